// slice-strided-pointwise-conv (--target iree): a 1x1 convolution with stride 2 of a dequantized tensor reads
// every second row and column of the integers (slice.Tensor, step 2, on axes 2 and 3),
// then convolves with stride 1: IREE materialises the whole dequantized input on the
// stack for the strided form. A padded one, a 3x3 one and a float input stay.
// RUN: qlower-opt --slice-strided-pointwise-conv --canonicalize-quant --dce %s | FileCheck %s
// The canonical simplification leaves it alone:
// RUN: qlower-opt --canonicalize-quant --dce %s | FileCheck %s --check-prefix=CANON
// CANON-LABEL: func.func @strided
// CANON-NOT: slice.Tensor
// CANON: return

// CHECK-LABEL: func.func @strided
// CHECK: %[[H:.+]] = "torch.aten.slice.Tensor"(%arg0, %{{.+}}) : (!torch.vtensor<[1,4,7,6],ui8>, {{.+}}) -> !torch.vtensor<[1,4,4,6],ui8>
// CHECK: %[[W:.+]] = "torch.aten.slice.Tensor"(%[[H]], %{{.+}}) : (!torch.vtensor<[1,4,4,6],ui8>, {{.+}}) -> !torch.vtensor<[1,4,4,3],ui8>
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[W]], %[[S:.+]], %[[Z:.+]]) : {{.+}} -> !torch.vtensor<[1,4,4,3],!torch.quint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[M]]) : {{.+}} -> !torch.vtensor<[1,4,4,3],f32>
// The strides are now the dilations' list [1, 1] (merged with it).
// CHECK: %[[C:.+]] = "torch.aten.convolution"(%[[D]], %arg1, %{{[0-9]+}}, %[[ONES:[0-9]+]], %{{[0-9]+}},
// CHECK-SAME: %[[ONES]], {{.+}} -> !torch.vtensor<[1,8,4,3],f32>
// CHECK: return %[[C]]
func.func @strided(%arg0: !torch.vtensor<[1,4,7,6],ui8>, %arg1: !torch.vtensor<[8,4,1,1],f32>) -> !torch.vtensor<[1,8,4,3],f32> {
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,4,7,6],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,4,7,6],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[1,4,7,6],!torch.quint8>) -> !torch.vtensor<[1,4,7,6],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %stride = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %dil = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %y = "torch.aten.convolution"(%x, %arg1, %none, %stride, %pad, %dil, %false, %pad, %one) : (!torch.vtensor<[1,4,7,6],f32>, !torch.vtensor<[8,4,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,8,4,3],f32>
  return %y : !torch.vtensor<[1,8,4,3],f32>
}

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: slice.Tensor
// CHECK: return
func.func @left_alone(%arg0: !torch.vtensor<[1,4,7,6],ui8>, %arg1: !torch.vtensor<[8,4,1,1],f32>, %arg2: !torch.vtensor<[8,4,3,3],f32>, %arg3: !torch.vtensor<[1,4,7,6],f32>) -> (!torch.vtensor<[1,8,5,4],f32>, !torch.vtensor<[1,8,3,2],f32>, !torch.vtensor<[1,8,4,3],f32>) {
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,4,7,6],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,4,7,6],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[1,4,7,6],!torch.quint8>) -> !torch.vtensor<[1,4,7,6],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %stride = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %pad1 = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %dil = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %padded = "torch.aten.convolution"(%x, %arg1, %none, %stride, %pad1, %dil, %false, %pad, %one) : (!torch.vtensor<[1,4,7,6],f32>, !torch.vtensor<[8,4,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,8,5,4],f32>
  %k3 = "torch.aten.convolution"(%x, %arg2, %none, %stride, %pad, %dil, %false, %pad, %one) : (!torch.vtensor<[1,4,7,6],f32>, !torch.vtensor<[8,4,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,8,3,2],f32>
  %float = "torch.aten.convolution"(%arg3, %arg1, %none, %stride, %pad, %dil, %false, %pad, %one) : (!torch.vtensor<[1,4,7,6],f32>, !torch.vtensor<[8,4,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,8,4,3],f32>
  return %padded, %k3, %float : !torch.vtensor<[1,8,5,4],f32>, !torch.vtensor<[1,8,3,2],f32>, !torch.vtensor<[1,8,4,3],f32>
}
