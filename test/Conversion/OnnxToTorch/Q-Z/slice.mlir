// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// One slice.Tensor per sliced axis, with ONNX's clamping applied to the constant
// bounds: -3 of 20 is 17, and an end past the axis is its size.
// CHECK-LABEL: func.func @test_slice_clamped(
func.func @test_slice_clamped(%arg0: !torch.vtensor<[20,10,5],f32>) -> !torch.vtensor<[3,9,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[-3, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %e = "torch.vtensor.literal"() {value = dense<[9223372036854775807, 1000]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s, %e) {name = "onnx.Slice"} : (!torch.vtensor<[20,10,5],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[3,9,5],f32>
  return %0 : !torch.vtensor<[3,9,5],f32>
}
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 17 : i64}
// CHECK: %[[E0:.+]] = "torch.constant.int"() {value = 20 : i64}
// CHECK: %[[T0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[A:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[D0]], %[[S0]], %[[E0]], %[[T0]]) : (!torch.vtensor<[20,10,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,10,5],f32>
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E1:.+]] = "torch.constant.int"() {value = 10 : i64}
// CHECK: %[[T1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%[[A]], %[[D1]], %[[S1]], %[[E1]], %[[T1]]) : (!torch.vtensor<[3,10,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,9,5],f32>
// CHECK: return %[[Y]]

// Axes and steps: every other element of axis 2 from the back. A positive step over
// an axis of unknown size keeps ONNX's bounds, which torch clamps the same way.
// CHECK-LABEL: func.func @test_slice_axes_steps(
func.func @test_slice_axes_steps(%arg0: !torch.vtensor<[?,10,5],f32>) -> !torch.vtensor<[?,10,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[0, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %e = "torch.vtensor.literal"() {value = dense<[-1, 9223372036854775807]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %a = "torch.vtensor.literal"() {value = dense<[-1, 0]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %st = "torch.vtensor.literal"() {value = dense<[2, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %s, %e, %a, %st) {name = "onnx.Slice"} : (!torch.vtensor<[?,10,5],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,10,3],f32>
  return %0 : !torch.vtensor<[?,10,3],f32>
}
// CHECK: %[[D2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[S2:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E2:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[T2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[A:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[D2]], %[[S2]], %[[E2]], %[[T2]]) : (!torch.vtensor<[?,10,5],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,10,2],f32>
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E0:.+]] = "torch.constant.int"() {value = 9223372036854775807 : i64}
// CHECK: %[[T0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%[[A]], %[[D0]], %[[S0]], %[[E0]], %[[T0]]) : (!torch.vtensor<[?,10,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,10,3],f32>
// CHECK: return %[[Y]]

// A negative step flips the axis and slices it forwards: 8, 6, 4 of 10 elements are
// positions 1, 3, 5 of the flipped axis.
// CHECK-LABEL: func.func @test_slice_negative_step(
func.func @test_slice_negative_step(%arg0: !torch.vtensor<[10,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<8> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %e = "torch.vtensor.literal"() {value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %a = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %st = "torch.vtensor.literal"() {value = dense<-2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %e, %a, %st) {name = "onnx.Slice"} : (!torch.vtensor<[10,4],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[FD:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[FDIMS:.+]] = "torch.prim.ListConstruct"(%[[FD]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[F:.+]] = "torch.aten.flip"(%arg0, %[[FDIMS]]) : (!torch.vtensor<[10,4],f32>, !torch.list<int>) -> !torch.vtensor<[10,4],f32>
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: %[[T:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%[[F]], %[[D]], %[[S]], %[[E]], %[[T]]) : (!torch.vtensor<[10,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// Slice-1 takes starts, ends and axes as attributes.
// CHECK-LABEL: func.func @test_slice_v1_attributes(
func.func @test_slice_v1_attributes(%arg0: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[4,3],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Slice", torch.onnx.starts = [2 : si64], torch.onnx.ends = [5 : si64], torch.onnx.axes = [1 : si64]} : (!torch.vtensor<[4,6],f32>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %[[D]], %[[S]], %[[E]], %{{.+}}) : (!torch.vtensor<[4,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4,3],f32>

// Taking a whole axis needs no op.
// CHECK-LABEL: func.func @test_slice_whole(
func.func @test_slice_whole(%arg0: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %e = "torch.vtensor.literal"() {value = dense<100> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %e) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[4,6],f32>
  return %0 : !torch.vtensor<[4,6],f32>
}
// CHECK-NOT: torch.aten
// CHECK: return %arg0

// Starts and ends known only at run time (T5's attention slices): read with item into
// slice.Tensor, which clamps them into the axis as ONNX does.
// CHECK-LABEL: func.func @test_slice_run_time_bounds(
func.func @test_slice_run_time_bounds(%arg0: !torch.vtensor<[4,6],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[4,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %a = "torch.vtensor.literal"() {value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %arg1, %a) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[4,?],f32>
  return %0 : !torch.vtensor<[4,?],f32>
}
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PICKED:.+]] = "torch.aten.select.int"(%arg1, {{.*}}) : (!torch.vtensor<[1],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[END:.+]] = "torch.aten.item"(%[[PICKED]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[STEP:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[AXIS]], %[[START]], %[[END]], %[[STEP]]) : (!torch.vtensor<[4,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[4,?],f32>
// CHECK: return %[[Y]]

// Axes known only at run time, too: slice.Tensor takes the dim as a !torch.int.
// CHECK-LABEL: func.func @test_slice_run_time_axes(
func.func @test_slice_run_time_axes(%arg0: !torch.vtensor<[4,6],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %e = "torch.vtensor.literal"() {value = dense<3> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %e, %arg1) {name = "onnx.Slice"} : (!torch.vtensor<[4,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[AXIS:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.slice.Tensor"(%arg0, %[[AXIS]], {{.*}}) : (!torch.vtensor<[4,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,?],f32>

// x[::-1] over an axis of unknown size: start -1 and end INT64_MIN are clamped against
// size(x, 0) at run time (start into [0, d-1], end into [-1, d-1]) and flipped to
// positions of the reversed axis (d-1-p).
// CHECK-LABEL: func.func @test_slice_negative_step_run_time_size(
func.func @test_slice_negative_step_run_time_size(%arg0: !torch.vtensor<[?,6],f32>) -> !torch.vtensor<[?,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %e = "torch.vtensor.literal"() {value = dense<-9223372036854775808> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %a = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %st = "torch.vtensor.literal"() {value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %s, %e, %a, %st) {name = "onnx.Slice"} : (!torch.vtensor<[?,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32>
  return %0 : !torch.vtensor<[?,6],f32>
}
// CHECK: %[[F:.+]] = "torch.aten.flip"(%arg0, %{{.+}}) : (!torch.vtensor<[?,6],f32>, !torch.list<int>) -> !torch.vtensor<[?,6],f32>
// CHECK: %[[D:.+]] = "torch.aten.size.int"(%[[F]], %{{.+}}) : (!torch.vtensor<[?,6],f32>, !torch.int) -> !torch.int
// CHECK: %[[LAST:.+]] = "torch.aten.sub.int"(%[[D]], %{{.+}})
// CHECK: %[[SV:.+]] = "torch.aten.add.int"(%{{.+}}, %[[D]])
// CHECK: %[[SLO:.+]] = "torch.prim.max.int"(%[[SV]], %{{.+}})
// CHECK: %[[SHI:.+]] = "torch.prim.min.int"(%[[SLO]], %[[LAST]])
// CHECK: %[[START:.+]] = "torch.aten.sub.int"(%[[LAST]], %[[SHI]])
// CHECK: %[[EV:.+]] = "torch.aten.add.int"(%{{.+}}, %[[D]])
// CHECK: %[[ELO:.+]] = "torch.prim.max.int"(%[[EV]], %{{.+}})
// CHECK: %[[EHI:.+]] = "torch.prim.min.int"(%[[ELO]], %[[LAST]])
// CHECK: %[[END:.+]] = "torch.aten.sub.int"(%[[LAST]], %[[EHI]])
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%[[F]], %{{.+}}, %[[START]], %[[END]], %{{.+}}) : (!torch.vtensor<[?,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,6],f32>
// CHECK: return %[[Y]]
