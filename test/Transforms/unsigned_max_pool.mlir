// pool-unsigned-as-float (--target): a max pool of ui8 integers pools their f32 values and converts
// back through si32 (torch-mlir compares integers as signed and converts f32 to ui8 as
// to si8). A max pool of si8 integers or of floats stays.
// RUN: qlower-opt --pool-unsigned-as-float --dce %s | FileCheck %s
// The canonical simplification leaves it alone:
// RUN: qlower-opt --canonicalize-quant --dce %s | FileCheck %s --check-prefix=CANON
// CANON-LABEL: func.func @unsigned
// CANON-NOT: to.dtype
// CANON: return

// CHECK-LABEL: func.func @unsigned
// CHECK: %[[F:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[1,2,4,4],f32>
// CHECK: %[[P:.+]] = "torch.aten.max_pool2d"(%[[F]], {{.+}} -> !torch.vtensor<[1,2,2,2],f32>
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[P]], {{.+}} -> !torch.vtensor<[1,2,2,2],si32>
// CHECK: %[[U:.+]] = "torch.aten.to.dtype"(%[[W]], {{.+}} -> !torch.vtensor<[1,2,2,2],ui8>
// CHECK: return %[[U]]
func.func @unsigned(%arg0: !torch.vtensor<[1,2,4,4],ui8>) -> !torch.vtensor<[1,2,2,2],ui8> {
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %y = "torch.aten.max_pool2d"(%arg0, %k, %k, %p, %d, %false) : (!torch.vtensor<[1,2,4,4],ui8>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,2],ui8>
  return %y : !torch.vtensor<[1,2,2,2],ui8>
}

// CHECK-LABEL: func.func @signed
// CHECK-NOT: to.dtype
// CHECK: "torch.aten.max_pool2d"(%arg0,
// CHECK-NOT: to.dtype
// CHECK: return
func.func @signed(%arg0: !torch.vtensor<[1,2,4,4],si8>) -> !torch.vtensor<[1,2,2,2],si8> {
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %y = "torch.aten.max_pool2d"(%arg0, %k, %k, %p, %d, %false) : (!torch.vtensor<[1,2,4,4],si8>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,2],si8>
  return %y : !torch.vtensor<[1,2,2,2],si8>
}
