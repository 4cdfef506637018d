// fold-constants leaves ops on large tensors to run time: by default no operand or
// result may have more than 1048576 elements; --fold-max-input-elements and
// --fold-max-output-elements move the bounds.
// RUN: qlower-opt --fold-constants %s | FileCheck %s --check-prefix=DEFAULT
// RUN: qlower-opt --fold-constants --fold-max-input-elements 1048577 %s | FileCheck %s --check-prefix=BIGIN
// RUN: qlower-opt --fold-constants --fold-max-output-elements 4 %s | FileCheck %s --check-prefix=SMALLOUT

// Summing 1048577 elements (1048577.0 = 0x49800008) reads one element over the
// default input limit.
// DEFAULT-LABEL: func.func @big_input
// DEFAULT: "torch.aten.sum"(
// BIGIN-LABEL: func.func @big_input
// BIGIN: %[[S:.+]] = "torch.vtensor.literal"() {value = dense<0x49800008> : tensor<f32>}
// BIGIN: return %[[S]]
// SMALLOUT-LABEL: func.func @big_input
// SMALLOUT: "torch.aten.sum"(
func.func @big_input() -> !torch.vtensor<[],f32> {
  %a = "torch.vtensor.literal"() {value = dense<1.0> : tensor<1048577xf32>} : () -> !torch.vtensor<[1048577],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %s = "torch.aten.sum"(%a, %none) : (!torch.vtensor<[1048577],f32>, !torch.none) -> !torch.vtensor<[],f32>
  return %s : !torch.vtensor<[],f32>
}

// Broadcasting to 1048577 elements writes one element over the default output limit,
// whatever the input limit.
// DEFAULT-LABEL: func.func @big_output
// DEFAULT: "torch.aten.expand"(
// BIGIN-LABEL: func.func @big_output
// BIGIN: "torch.aten.expand"(
func.func @big_output() -> !torch.vtensor<[1048577],f32> {
  %a = "torch.vtensor.literal"() {value = dense<1.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
  %n = "torch.constant.int"() {value = 1048577 : i64} : () -> !torch.int
  %shape = "torch.prim.ListConstruct"(%n) : (!torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %e = "torch.aten.expand"(%a, %shape, %false) : (!torch.vtensor<[1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1048577],f32>
  return %e : !torch.vtensor<[1048577],f32>
}

// With the output limit at 4, a 4-element result folds and a 5-element one does not.
// SMALLOUT-LABEL: func.func @small_outputs
// SMALLOUT: "torch.vtensor.literal"() {value = dense<2.000000e+00> : tensor<4xf32>}
// SMALLOUT: "torch.aten.expand"({{.+}} -> !torch.vtensor<[5],f32>
// DEFAULT-LABEL: func.func @small_outputs
// DEFAULT-NOT: torch.aten.expand
func.func @small_outputs() -> (!torch.vtensor<[4],f32>, !torch.vtensor<[5],f32>) {
  %a = "torch.vtensor.literal"() {value = dense<2.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
  %n4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %n5 = "torch.constant.int"() {value = 5 : i64} : () -> !torch.int
  %s4 = "torch.prim.ListConstruct"(%n4) : (!torch.int) -> !torch.list<int>
  %s5 = "torch.prim.ListConstruct"(%n5) : (!torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %e4 = "torch.aten.expand"(%a, %s4, %false) : (!torch.vtensor<[1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[4],f32>
  %e5 = "torch.aten.expand"(%a, %s5, %false) : (!torch.vtensor<[1],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[5],f32>
  return %e4, %e5 : !torch.vtensor<[4],f32>, !torch.vtensor<[5],f32>
}
