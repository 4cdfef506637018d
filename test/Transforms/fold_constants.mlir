// fold-constants evaluates ops whose operands are all constants with the runtime's
// kernels and writes the results back as constants; ops reading a non-constant stay.
// RUN: qlower-opt --fold-constants --dce %s | FileCheck %s

// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: %[[R:.+]] = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 8.000000e+00, 1.200000e+01]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
// CHECK-NEXT: return %[[R]]
func.func @elementwise() -> !torch.vtensor<[3],f32> {
  %a = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, -3.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %b = "torch.vtensor.literal"() {value = dense<[0.5, 3.0, 0.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %s = "torch.aten.add.Tensor"(%a, %b, %one) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  %m = "torch.aten.mul.Tensor"(%s, %a) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %d = "torch.aten.sub.Tensor"(%m, %a, %one) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  return %d : !torch.vtensor<[3],f32>
}

// CHECK-LABEL: func.func @cast
// CHECK-NEXT: %[[R:.+]] = "torch.vtensor.literal"() {value = dense<[1, -2, 3]> : tensor<3xsi32>} : () -> !torch.vtensor<[3],si32>
// CHECK-NEXT: return %[[R]]
func.func @cast() -> !torch.vtensor<[3],si32> {
  %a = "torch.vtensor.literal"() {value = dense<[1.25, -2.75, 3.5]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %c = "torch.aten.to.dtype"(%a, %int3, %false, %false, %none) : (!torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3],si32>
  return %c : !torch.vtensor<[3],si32>
}

// CHECK-LABEL: func.func @layout
// CHECK-NEXT: %[[R:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}[0, 3], [1, 4], [2, 5]]]> : tensor<1x3x2xsi64>} : () -> !torch.vtensor<[1,3,2],si64>
// CHECK-NEXT: return %[[R]]
func.func @layout() -> !torch.vtensor<[1,3,2],si64> {
  %a = "torch.vtensor.literal"() {value = dense<[0, 1, 2, 3, 4, 5]> : tensor<6xsi64>} : () -> !torch.vtensor<[6],si64>
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %shape = "torch.prim.ListConstruct"(%int2, %int3) : (!torch.int, !torch.int) -> !torch.list<int>
  %r = "torch.aten.reshape"(%a, %shape) : (!torch.vtensor<[6],si64>, !torch.list<int>) -> !torch.vtensor<[2,3],si64>
  %t = "torch.aten.transpose.int"(%r, %int0, %int1) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3,2],si64>
  %u = "torch.aten.unsqueeze"(%t, %int0) : (!torch.vtensor<[3,2],si64>, !torch.int) -> !torch.vtensor<[1,3,2],si64>
  %perm = "torch.prim.ListConstruct"(%int0, %int2, %int1) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.aten.permute"(%u, %perm) : (!torch.vtensor<[1,3,2],si64>, !torch.list<int>) -> !torch.vtensor<[1,2,3],si64>
  %f = "torch.aten.flatten.using_ints"(%p, %int0, %int2) : (!torch.vtensor<[1,2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[6],si64>
  %v = "torch.aten.view"(%f, %shape) : (!torch.vtensor<[6],si64>, !torch.list<int>) -> !torch.vtensor<[2,3],si64>
  %t2 = "torch.aten.transpose.int"(%v, %int0, %int1) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[3,2],si64>
  %u2 = "torch.aten.unsqueeze"(%t2, %int0) : (!torch.vtensor<[3,2],si64>, !torch.int) -> !torch.vtensor<[1,3,2],si64>
  %u3 = "torch.aten.unsqueeze"(%u2, %int0) : (!torch.vtensor<[1,3,2],si64>, !torch.int) -> !torch.vtensor<[1,1,3,2],si64>
  %s = "torch.aten.squeeze.dim"(%u3, %int0) : (!torch.vtensor<[1,1,3,2],si64>, !torch.int) -> !torch.vtensor<[1,3,2],si64>
  return %s : !torch.vtensor<[1,3,2],si64>
}

// CHECK-LABEL: func.func @select
// CHECK-NEXT: %[[R:.+]] = "torch.vtensor.literal"() {value = dense<[40, 20, 30, 1, 2]> : tensor<5xsi64>} : () -> !torch.vtensor<[5],si64>
// CHECK-NEXT: return %[[R]]
func.func @select() -> !torch.vtensor<[5],si64> {
  %a = "torch.vtensor.literal"() {value = dense<[10, 20, 30, 40]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %b = "torch.vtensor.literal"() {value = dense<[0, 1, 2]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64>
  %idx = "torch.vtensor.literal"() {value = dense<[3]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %g = "torch.aten.index_select"(%a, %int0, %idx) : (!torch.vtensor<[4],si64>, !torch.int, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  %sl = "torch.aten.slice.Tensor"(%a, %int0, %int1, %int3, %int1) : (!torch.vtensor<[4],si64>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2],si64>
  %sb = "torch.aten.slice.Tensor"(%b, %int0, %int1, %int3, %int1) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2],si64>
  %list = "torch.prim.ListConstruct"(%g, %sl, %sb) : (!torch.vtensor<[1],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%list, %int0) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[5],si64>
  return %c : !torch.vtensor<[5],si64>
}

// CHECK-LABEL: func.func @scalars
// CHECK-NEXT: %[[F:.+]] = "torch.constant.float"() {value = 5.000000e+00 : f64} : () -> !torch.float
// CHECK-NEXT: %[[I:.+]] = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
// CHECK-NEXT: return %[[F]], %[[I]]
func.func @scalars() -> (!torch.float, !torch.int) {
  %lit = "torch.vtensor.literal"() {value = dense<2.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %x = "torch.aten.item"(%lit) : (!torch.vtensor<[],f32>) -> !torch.float
  %two = "torch.constant.float"() {value = 2.0 : f64} : () -> !torch.float
  %y = "torch.aten.mul.float"(%x, %two) : (!torch.float, !torch.float) -> !torch.float
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %int4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %list = "torch.prim.ListConstruct"(%int3, %int4) : (!torch.int, !torch.int) -> !torch.list<int>
  %a, %b = "torch.prim.ListUnpack"(%list) : (!torch.list<int>) -> (!torch.int, !torch.int)
  %z = "torch.aten.mul.int"(%a, %b) : (!torch.int, !torch.int) -> !torch.int
  return %y, %z : !torch.float, !torch.int
}

// Ops reading a function argument are not constant and stay.
// CHECK-LABEL: func.func @not_constant
// CHECK: "torch.aten.add.Tensor"(%arg0, %{{.+}}, %{{.+}})
func.func @not_constant(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %b = "torch.vtensor.literal"() {value = dense<[0.5, 3.0, 0.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %s = "torch.aten.add.Tensor"(%arg0, %b, %one) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  return %s : !torch.vtensor<[3],f32>
}
