// propagate-permutes through ops that name axes: reductions, softmax, slices, pads,
// cat and per-channel quantization take their axes through the permutation.
// RUN: qlower-opt --propagate-permutes --dce %s | FileCheck %s

// NHWC mean over H and W without keepdim (the tf2onnx ResNet head) is the NCHW mean
// over 2 and 3: N and C stay in order, so no permute is left.
// CHECK-LABEL: func.func @mean_drops_hw
// CHECK-NOT: permute
// CHECK: %[[D:.+]] = "torch.prim.ListConstruct"(%{{.+}}, %{{.+}}) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[M:.+]] = "torch.aten.mean.dim"(%arg0, %[[D]], {{.+}} -> !torch.vtensor<[1,3],f32>
// CHECK-NOT: permute
// CHECK: return %[[M]]
func.func @mean_drops_hw(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %hw = "torch.prim.ListConstruct"(%1, %2) : (!torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %m = "torch.aten.mean.dim"(%a, %hw, %false, %none) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,3],f32>
  return %m : !torch.vtensor<[1,3],f32>
}

// With keepdim the reduced tensor keeps the rank and the permute follows it; the NHWC
// channel axis (-1) is NCHW's axis 1.
// CHECK-LABEL: func.func @sum_keeps_dims
// CHECK: %[[S:.+]] = "torch.aten.sum.dim_IntList"(%arg0, {{.+}} -> !torch.vtensor<[1,1,4,5],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[S]], {{.+}} -> !torch.vtensor<[1,4,5,1],f32>
// CHECK: return %[[P]]
func.func @sum_keeps_dims(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,1],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %m1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %c = "torch.prim.ListConstruct"(%m1) : (!torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %s = "torch.aten.sum.dim_IntList"(%a, %c, %true, %none) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,4,5,1],f32>
  return %s : !torch.vtensor<[1,4,5,1],f32>
}

// Without keepdim, kept axes whose order the permutation swaps leave a permute of the
// smaller tensor: [2,3,4] permuted by [2,0,1] is [4,2,3]; amax over axis 1 (x's 0)
// keeps x's axes 1 and 2 as [3,4], permuted by [1,0] to [4,3].
// CHECK-LABEL: func.func @amax_reorders_kept
// CHECK: %[[R:.+]] = "torch.aten.amax"(%arg0, {{.+}} -> !torch.vtensor<[3,4],f32>
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%[[A:.+]], %[[B:.+]]) :
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[R]], %[[L]]) {{.+}} -> !torch.vtensor<[4,3],f32>
// CHECK: return %[[P]]
func.func @amax_reorders_kept(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %p = "torch.prim.ListConstruct"(%2, %0, %1) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%1) : (!torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %p) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>) -> !torch.vtensor<[4,2,3],f32>
  %r = "torch.aten.amax"(%a, %d, %false) : (!torch.vtensor<[4,2,3],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[4,3],f32>
  return %r : !torch.vtensor<[4,3],f32>
}

// Softmax along NHWC's channels (-1) is softmax along NCHW's axis 1 (the input writes
// NHWC's permutation with negative axes, so the only constant 1 is the rule's).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[C1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[S:.+]] = "torch.aten.softmax.int"(%arg0, %[[C1]], {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[S]], {{.+}} -> !torch.vtensor<[1,4,5,3],f32>
// CHECK: return %[[P]]
func.func @softmax(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %m1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %m2 = "torch.constant.int"() {value = -2 : i64} : () -> !torch.int
  %m3 = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %nhwc = "torch.prim.ListConstruct"(%0, %m2, %m1, %m3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %t = "torch.aten.softmax.int"(%a, %m1, %none) : (!torch.vtensor<[1,4,5,3],f32>, !torch.int, !torch.none) -> !torch.vtensor<[1,4,5,3],f32>
  return %t : !torch.vtensor<[1,4,5,3],f32>
}

// A slice of W (axis 2 of NHWC) slices NCHW's axis 3; the permute follows it.
// CHECK-LABEL: func.func @slice
// CHECK: %[[C3:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[L:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[C3]], {{.+}} -> !torch.vtensor<[1,3,4,2],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[L]], {{.+}} -> !torch.vtensor<[1,4,2,3],f32>
// CHECK: return %[[P]]
func.func @slice(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,2,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %m1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %m2 = "torch.constant.int"() {value = -2 : i64} : () -> !torch.int
  %m3 = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %m2, %m1, %m3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %l = "torch.aten.slice.Tensor"(%a, %2, %0, %2, %1) : (!torch.vtensor<[1,4,5,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1,4,2,3],f32>
  return %l : !torch.vtensor<[1,4,2,3],f32>
}

// A pad of NHWC's W (the second pair of torch's list, which starts at the last axis)
// pads NCHW's W, the last axis: the list becomes that one pair. Pads computed at run
// time (%arg1) move as they are.
// CHECK-LABEL: func.func @pad_moves_pairs
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%arg1, %{{.+}}) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[D:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[L]], {{.+}} -> !torch.vtensor<[1,3,4,?],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[D]], {{.+}} -> !torch.vtensor<[1,4,?,3],f32>
// CHECK: return %[[P]]
func.func @pad_moves_pairs(%x: !torch.vtensor<[1,3,4,5],f32>, %n: !torch.int) -> !torch.vtensor<[1,4,?,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %f = "torch.constant.float"() {value = 0.0 : f64} : () -> !torch.float
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %pads = "torch.prim.ListConstruct"(%0, %0, %n, %2) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %p = "torch.aten.constant_pad_nd"(%a, %pads, %f) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,4,?,3],f32>
  return %p : !torch.vtensor<[1,4,?,3],f32>
}

// A cat along NHWC's channels of two tensors permuted alike and a literal is a cat
// along NCHW's axis 1 of the tensors and the literal permuted back ([1,1,1,2] NHWC
// is [1,2,1,1] NCHW).
// CHECK-LABEL: func.func @cat_of_permuted
// CHECK: %[[K:.+]] = "torch.vtensor.literal"() {{.+}} : tensor<1x2x1x1xf32>}
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%arg0, %arg1, %[[K]]) :
// CHECK: %[[C:.+]] = "torch.aten.cat"(%[[L]], {{.+}} -> !torch.vtensor<[1,8,1,1],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[C]], {{.+}} -> !torch.vtensor<[1,1,1,8],f32>
// CHECK: return %[[P]]
func.func @cat_of_permuted(%x: !torch.vtensor<[1,3,1,1],f32>, %y: !torch.vtensor<[1,3,1,1],f32>) -> !torch.vtensor<[1,1,1,8],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %m1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %k = "torch.vtensor.literal"() {value = dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>} : () -> !torch.vtensor<[1,1,1,2],f32>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,1,1],f32>, !torch.list<int>) -> !torch.vtensor<[1,1,1,3],f32>
  %b = "torch.aten.permute"(%y, %nhwc) : (!torch.vtensor<[1,3,1,1],f32>, !torch.list<int>) -> !torch.vtensor<[1,1,1,3],f32>
  %parts = "torch.prim.ListConstruct"(%a, %b, %k) : (!torch.vtensor<[1,1,1,3],f32>, !torch.vtensor<[1,1,1,3],f32>, !torch.vtensor<[1,1,1,2],f32>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%parts, %m1) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[1,1,1,8],f32>
  return %c : !torch.vtensor<[1,1,1,8],f32>
}

// A per-channel quantize along NHWC's channels (axis 3) quantizes along NCHW's axis 1,
// and its dequantize follows the permute down.
// CHECK-LABEL: func.func @per_channel
// CHECK: %[[C1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_channel"(%arg0, %arg1, %arg2, %[[C1]], {{.+}} -> !torch.vtensor<[1,3,4,5],!torch.qint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[Q]]) {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[D]], {{.+}} -> !torch.vtensor<[1,4,5,3],f32>
// CHECK: return %[[P]]
func.func @per_channel(%x: !torch.vtensor<[1,3,4,5],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si8>) -> !torch.vtensor<[1,4,5,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %m1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %m2 = "torch.constant.int"() {value = -2 : i64} : () -> !torch.int
  %m3 = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %m2, %m1, %m3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %q = "torch.aten.quantize_per_channel"(%a, %s, %z, %3, %dt) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.int, !torch.int) -> !torch.vtensor<[1,4,5,3],!torch.qint8>
  %d = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,4,5,3],!torch.qint8>) -> !torch.vtensor<[1,4,5,3],f32>
  return %d : !torch.vtensor<[1,4,5,3],f32>
}

// Where they must not fire: axes known only at run time (%arg1), argmax over every
// axis (dim None), a cat whose other part is computed at run time and not permuted,
// a cat of parts permuted differently, a pad list that is not a list construct, and
// a softmax of a permuted literal (fold-constants' to fold).
// CHECK-LABEL: func.func @stays
// CHECK: %[[A:.+]] = "torch.aten.permute"(%arg0,
// CHECK: "torch.aten.mean.dim"(%[[A]], %arg1,
// CHECK: "torch.aten.argmax"(%[[A]],
// CHECK: %[[L1:.+]] = "torch.prim.ListConstruct"(%[[A]], %arg2)
// CHECK: "torch.aten.cat"(%[[L1]],
// CHECK: %[[B:.+]] = "torch.aten.permute"(%arg3,
// CHECK: %[[L2:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]])
// CHECK: "torch.aten.cat"(%[[L2]],
// CHECK: "torch.aten.constant_pad_nd"(%[[A]], %arg4,
// CHECK: %[[K:.+]] = "torch.aten.permute"(%{{.+}},
// CHECK: "torch.aten.softmax.int"(%[[K]],
// CHECK: return
func.func @stays(%x: !torch.vtensor<[1,3,4,5],f32>, %dims: !torch.list<int>, %y: !torch.vtensor<[1,4,5,3],f32>, %w: !torch.vtensor<[1,4,3,5],f32>, %pads: !torch.list<int>) -> (!torch.vtensor<[1,3],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[1,4,5,6],f32>, !torch.vtensor<[1,4,5,6],f32>, !torch.vtensor<[1,4,5,5],f32>, !torch.vtensor<[2,1],f32>) {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %f = "torch.constant.float"() {value = 0.0 : f64} : () -> !torch.float
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %other = "torch.prim.ListConstruct"(%0, %1, %3, %2) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %swap = "torch.prim.ListConstruct"(%1, %0) : (!torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %m = "torch.aten.mean.dim"(%a, %dims, %false, %none) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,3],f32>
  %am = "torch.aten.argmax"(%a, %none, %false) : (!torch.vtensor<[1,4,5,3],f32>, !torch.none, !torch.bool) -> !torch.vtensor<[],si64>
  %l1 = "torch.prim.ListConstruct"(%a, %y) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>) -> !torch.list<vtensor>
  %c1 = "torch.aten.cat"(%l1, %3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[1,4,5,6],f32>
  %b = "torch.aten.permute"(%w, %other) : (!torch.vtensor<[1,4,3,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %l2 = "torch.prim.ListConstruct"(%a, %b) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>) -> !torch.list<vtensor>
  %c2 = "torch.aten.cat"(%l2, %3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[1,4,5,6],f32>
  %p = "torch.aten.constant_pad_nd"(%a, %pads, %f) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,4,5,5],f32>
  %k = "torch.vtensor.literal"() {value = dense<[[1.0, 2.0]]> : tensor<1x2xf32>} : () -> !torch.vtensor<[1,2],f32>
  %kt = "torch.aten.permute"(%k, %swap) : (!torch.vtensor<[1,2],f32>, !torch.list<int>) -> !torch.vtensor<[2,1],f32>
  %sm = "torch.aten.softmax.int"(%kt, %0, %none) : (!torch.vtensor<[2,1],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,1],f32>
  return %m, %am, %c1, %c2, %p, %sm : !torch.vtensor<[1,3],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[1,4,5,6],f32>, !torch.vtensor<[1,4,5,6],f32>, !torch.vtensor<[1,4,5,5],f32>, !torch.vtensor<[2,1],f32>
}
