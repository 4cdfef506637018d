// propagate-permutes: permutes move down through element-wise ops and per-tensor
// quantization, merge where they meet, and vanish when they compose to the identity.
// RUN: qlower-opt --propagate-permutes --dce %s | FileCheck %s

// Two permutes that undo each other vanish.
// CHECK-LABEL: func.func @inverse_pair
// CHECK-NOT: permute
// CHECK: return %arg0
func.func @inverse_pair(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,4,5],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %nchw = "torch.prim.ListConstruct"(%0, %3, %1, %2) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %b = "torch.aten.permute"(%a, %nchw) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,3,4,5],f32>
  return %b : !torch.vtensor<[1,3,4,5],f32>
}

// Two permutes that do not cancel merge into one (NCHW -> NHWC -> NWHC is [0, 3, 2, 1]).
// CHECK-LABEL: func.func @merged
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%[[A:.+]], %[[B:.+]], %[[C:.+]], %[[D:.+]]) :
// CHECK: %[[P:.+]] = "torch.aten.permute"(%arg0, %[[L]]) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,5,4,3],f32>
// CHECK-NOT: permute
// CHECK: return %[[P]]
func.func @merged(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,5,4,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %swap = "torch.prim.ListConstruct"(%0, %2, %1, %3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %b = "torch.aten.permute"(%a, %swap) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,5,4,3],f32>
  return %b : !torch.vtensor<[1,5,4,3],f32>
}

// A permute moves through a quantize/dequantize round trip and a ReLU, and meets the
// inverse permute: the ops run on the unpermuted tensor with unpermuted types.
// CHECK-LABEL: func.func @through_qdq
// CHECK-NOT: permute
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0, {{.+}} -> !torch.vtensor<[1,3,4,5],!torch.quint8>
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]]) {{.+}} -> !torch.vtensor<[1,3,4,5],ui8>
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[I]], {{.+}} -> !torch.vtensor<[1,3,4,5],!torch.quint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[M]]) {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[R:.+]] = "torch.aten.relu"(%[[D]]) {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK-NOT: permute
// CHECK: return %[[R]]
func.func @through_qdq(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,4,5],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %nchw = "torch.prim.ListConstruct"(%0, %3, %1, %2) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %q = "torch.aten.quantize_per_tensor"(%a, %s, %z, %dt) : (!torch.vtensor<[1,4,5,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4,5,3],!torch.quint8>
  %i = "torch.aten.int_repr"(%q) : (!torch.vtensor<[1,4,5,3],!torch.quint8>) -> !torch.vtensor<[1,4,5,3],ui8>
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%i, %s, %z) : (!torch.vtensor<[1,4,5,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,4,5,3],!torch.quint8>
  %d = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[1,4,5,3],!torch.quint8>) -> !torch.vtensor<[1,4,5,3],f32>
  %r = "torch.aten.relu"(%d) : (!torch.vtensor<[1,4,5,3],f32>) -> !torch.vtensor<[1,4,5,3],f32>
  %b = "torch.aten.permute"(%r, %nchw) : (!torch.vtensor<[1,4,5,3],f32>, !torch.list<int>) -> !torch.vtensor<[1,3,4,5],f32>
  return %b : !torch.vtensor<[1,3,4,5],f32>
}

// A binary op of two tensors permuted alike runs on the unpermuted ones; a per-channel
// literal along the NHWC channel axis (rank 1, broadcast from the right) is written
// again as the [1,3,1,1] literal that broadcasts along NCHW's channels.
// CHECK-LABEL: func.func @through_binary
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1, {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[CP:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<1x3x1x1xf32>}
// CHECK: %[[M:.+]] = "torch.aten.mul.Tensor"(%[[S]], %[[CP]]) {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[Y:.+]] = "torch.aten.permute"(%[[M]], {{.+}} -> !torch.vtensor<[1,4,5,3],f32>
// CHECK: return %[[Y]]
func.func @through_binary(%x: !torch.vtensor<[1,3,4,5],f32>, %y: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %c = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %b = "torch.aten.permute"(%y, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %s = "torch.aten.add.Tensor"(%a, %b, %1) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>, !torch.int) -> !torch.vtensor<[1,4,5,3],f32>
  %m = "torch.aten.mul.Tensor"(%s, %c) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,4,5,3],f32>
  return %m : !torch.vtensor<[1,4,5,3],f32>
}

// Where it must not move: the other operand of a binary op is computed at run time (a
// permute would have to be put on it), and the operands are permuted differently.
// (Per-channel quantization moves with its axis remapped: propagate_permutes_axes.mlir.)
// CHECK-LABEL: func.func @stays
// CHECK: %[[A:.+]] = "torch.aten.permute"(%arg0,
// CHECK: "torch.aten.add.Tensor"(%[[A]], %arg1,
// CHECK: %[[B:.+]] = "torch.aten.permute"(%arg2,
// CHECK: "torch.aten.mul.Tensor"(%[[A]], %[[B]])
// CHECK: return
func.func @stays(%x: !torch.vtensor<[1,3,4,5],f32>, %y: !torch.vtensor<[1,4,5,3],f32>, %w: !torch.vtensor<[1,4,3,5],f32>) -> (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>) {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %other = "torch.prim.ListConstruct"(%0, %1, %3, %2) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %s1 = "torch.aten.add.Tensor"(%a, %y, %1) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>, !torch.int) -> !torch.vtensor<[1,4,5,3],f32>
  %b = "torch.aten.permute"(%w, %other) : (!torch.vtensor<[1,4,3,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %m = "torch.aten.mul.Tensor"(%a, %b) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>) -> !torch.vtensor<[1,4,5,3],f32>
  return %s1, %m : !torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[1,4,5,3],f32>
}

// A quantized constant along the NHWC channel axis, as ONNX Runtime's QDQ models write
// a batch norm's scale (dequantize of _make_per_tensor_quantized_tensor of a literal),
// is rebuilt on its permuted literal and stays a quantized constant.
// CHECK-LABEL: func.func @quantized_constant
// CHECK: %[[L:.+]] = "torch.vtensor.literal"() {{.+}} : tensor<1x3x1x1xsi8>}
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[L]], {{.+}} -> !torch.vtensor<[1,3,1,1],!torch.qint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[M]]) {{.+}} -> !torch.vtensor<[1,3,1,1],f32>
// CHECK: %[[P:.+]] = "torch.aten.mul.Tensor"(%arg0, %[[D]]) {{.+}} -> !torch.vtensor<[1,3,4,5],f32>
// CHECK: %[[Y:.+]] = "torch.aten.permute"(%[[P]], {{.+}} -> !torch.vtensor<[1,4,5,3],f32>
// CHECK: return %[[Y]]
func.func @quantized_constant(%x: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,4,5,3],f32> {
  %0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %nhwc = "torch.prim.ListConstruct"(%0, %2, %3, %1) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %c = "torch.vtensor.literal"() {value = dense<[1, 2, 3]> : tensor<3xsi8>} : () -> !torch.vtensor<[3],si8>
  %cm = "torch.aten._make_per_tensor_quantized_tensor"(%c, %s, %0) : (!torch.vtensor<[3],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3],!torch.qint8>
  %cd = "torch.aten.dequantize.self"(%cm) : (!torch.vtensor<[3],!torch.qint8>) -> !torch.vtensor<[3],f32>
  %a = "torch.aten.permute"(%x, %nhwc) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>) -> !torch.vtensor<[1,4,5,3],f32>
  %m = "torch.aten.mul.Tensor"(%a, %cd) : (!torch.vtensor<[1,4,5,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,4,5,3],f32>
  return %m : !torch.vtensor<[1,4,5,3],f32>
}
