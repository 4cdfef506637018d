// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Resize lowers to __interpolate.size_list_scale_list like torch-mlir: the mode string
// carries ONNX's coordinate transformation (after `_`) and nearest rounding (after `,`).

// Nearest with scales and ONNX's defaults (half_pixel, round_prefer_floor).
// CHECK-LABEL: func.func @test_resize_nearest_scales(
func.func @test_resize_nearest_scales(%arg0: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,8,10],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,5],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,10],f32>
  return %0 : !torch.vtensor<[1,3,8,10],f32>
}
// CHECK: "torch.constant.none"
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[SH:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SW:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SCALES:.+]] = "torch.prim.ListConstruct"(%[[SH]], %[[SW]]) : (!torch.float, !torch.float) -> !torch.list<float>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "nearest_half_pixel,round_prefer_floor"} : () -> !torch.str
// CHECK: %[[ALIGN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[AA:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[Y:.+]] = "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[NONE]], %[[SCALES]], %[[MODE]], %[[ALIGN]], %[[NONE]], %[[AA]]) : (!torch.vtensor<[1,3,4,5],f32>, !torch.none, !torch.list<float>, !torch.str, !torch.bool, !torch.none, !torch.bool) -> !torch.vtensor<[1,3,8,10],f32>
// CHECK: return %[[Y]]

// Nearest with sizes, asymmetric coordinates and floor rounding: plain "nearest".
// CHECK-LABEL: func.func @test_resize_nearest_sizes_asymmetric_floor(
func.func @test_resize_nearest_sizes_asymmetric_floor(%arg0: !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,3,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %sz = "torch.vtensor.literal"() {value = dense<[1, 1, 3, 6]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %sz) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.coordinate_transformation_mode = "asymmetric", torch.onnx.nearest_mode = "floor"} : (!torch.vtensor<[1,1,2,4],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,3,6],f32>
  return %0 : !torch.vtensor<[1,1,3,6],f32>
}
// CHECK: "torch.constant.none"
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[H:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[W:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[H]], %[[W]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "nearest"}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[SIZES]], %[[NONE]], %[[MODE]], %{{.+}}, %[[NONE]], %{{.+}}) : (!torch.vtensor<[1,1,2,4],f32>, !torch.list<int>, !torch.none, !torch.str, !torch.bool, !torch.none, !torch.bool) -> !torch.vtensor<[1,1,3,6],f32>

// Resize-11 passes an empty scales tensor next to sizes.
// CHECK-LABEL: func.func @test_resize_v11_empty_scales(
func.func @test_resize_v11_empty_scales(%arg0: !torch.vtensor<[1,1,2,4],f32>) -> !torch.vtensor<[1,1,4,8],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %roi = "torch.vtensor.literal"() {value = dense<> : tensor<0xf32>} : () -> !torch.vtensor<[0],f32>
  %s = "torch.vtensor.literal"() {value = dense<> : tensor<0xf32>} : () -> !torch.vtensor<[0],f32>
  %sz = "torch.vtensor.literal"() {value = dense<[1, 1, 4, 8]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %roi, %s, %sz) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.nearest_mode = "ceil"} : (!torch.vtensor<[1,1,2,4],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,4,8],f32>
  return %0 : !torch.vtensor<[1,1,4,8],f32>
}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%{{.+}}, %{{.+}}) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "nearest_half_pixel,ceil"}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[SIZES]], %{{.+}}, %[[MODE]],

// Linear on NCHW is bilinear; align_corners sets torch's flag.
// CHECK-LABEL: func.func @test_resize_linear_align_corners(
func.func @test_resize_linear_align_corners(%arg0: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,8,10],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %sz = "torch.vtensor.literal"() {value = dense<[1, 3, 8, 10]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %sz) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "align_corners"} : (!torch.vtensor<[1,3,4,5],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,3,8,10],f32>
  return %0 : !torch.vtensor<[1,3,8,10],f32>
}
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "bilinear"}
// CHECK: %[[ALIGN:.+]] = "torch.constant.bool"() {value = true}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %{{.+}}, %[[MODE]], %[[ALIGN]], %{{.+}}, %{{.+}})

// Linear with scales and half_pixel (ONNX's default) is torch's own bilinear.
// CHECK-LABEL: func.func @test_resize_linear_half_pixel_scales(
func.func @test_resize_linear_half_pixel_scales(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,2,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,2,2],f32>
  return %0 : !torch.vtensor<[1,3,2,2],f32>
}
// CHECK: %[[SH:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[SW:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[SCALES:.+]] = "torch.prim.ListConstruct"(%[[SH]], %[[SW]])
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "bilinear"}
// CHECK: %[[ALIGN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %[[SCALES]], %[[MODE]], %[[ALIGN]],

// Other coordinate transformations are spelled after the mode.
// CHECK-LABEL: func.func @test_resize_linear_pytorch_half_pixel(
func.func @test_resize_linear_pytorch_half_pixel(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.coordinate_transformation_mode = "pytorch_half_pixel"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,8,8],f32>
  return %0 : !torch.vtensor<[1,3,8,8],f32>
}
// CHECK: "torch.constant.str"() {value = "bilinear_pytorch_half_pixel"}

// Resize-18 axes name the resized dimensions; the others keep scale 1.
// CHECK-LABEL: func.func @test_resize_axes(
func.func @test_resize_axes(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,12,8],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[3.0, 2.0]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.axes = [2 : si64, -1 : si64], torch.onnx.coordinate_transformation_mode = "asymmetric"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,3,12,8],f32>
  return %0 : !torch.vtensor<[1,3,12,8],f32>
}
// CHECK: %[[SH:.+]] = "torch.constant.float"() {value = 3.000000e+00 : f64}
// CHECK: %[[SW:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SCALES:.+]] = "torch.prim.ListConstruct"(%[[SH]], %[[SW]])
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "nearest,round_prefer_floor"}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %[[SCALES]], %[[MODE]],

// Resize-10 samples like Upsample: asymmetric coordinates, rounding down.
// CHECK-LABEL: func.func @test_resize_v10_nearest(
func.func @test_resize_v10_nearest(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,6],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,6],f32>
  return %0 : !torch.vtensor<[1,1,4,6],f32>
}
// CHECK: %[[SCALES:.+]] = "torch.prim.ListConstruct"(%{{.+}}, %{{.+}}) : (!torch.float, !torch.float) -> !torch.list<float>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "nearest"}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %[[SCALES]], %[[MODE]],

// CHECK-LABEL: func.func @test_resize_v10_linear(
func.func @test_resize_v10_linear(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,4,4],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %0 = "torch.operator"(%arg0, %s) {name = "onnx.Resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,4,4],f32>
  return %0 : !torch.vtensor<[1,1,4,4],f32>
}
// CHECK: "torch.constant.str"() {value = "bilinear_asymmetric"}

// Sizes known only at run time: the result type's static sizes are used.
// CHECK-LABEL: func.func @test_resize_runtime_sizes_static_result(
func.func @test_resize_runtime_sizes_static_result(%arg0: !torch.vtensor<[1,3,4,4],f32>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,3,7,9],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.coordinate_transformation_mode = "asymmetric", torch.onnx.nearest_mode = "floor"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,3,7,9],f32>
  return %0 : !torch.vtensor<[1,3,7,9],f32>
}
// CHECK: %[[H:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: %[[W:.+]] = "torch.constant.int"() {value = 9 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[H]], %[[W]])
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[SIZES]],

// Scales known only at run time: every entry is read with item as !torch.float, and
// the spatial ones make the scale list.
// CHECK-LABEL: func.func @test_resize_run_time_scales(
func.func @test_resize_run_time_scales(%arg0: !torch.vtensor<[1,3,4,4],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  return %0 : !torch.vtensor<[1,3,?,?],f32>
}
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[S2:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[S3:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[SCALES:.+]] = "torch.prim.ListConstruct"(%[[S2]], %[[S3]]) : (!torch.float, !torch.float) -> !torch.list<float>
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.*}}, %[[SCALES]], {{.*}}) : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.list<float>, {{.*}}) -> !torch.vtensor<[1,3,?,?],f32>

// Sizes known only at run time, with unknown output sizes: read with item.
// CHECK-LABEL: func.func @test_resize_run_time_sizes(
func.func @test_resize_run_time_sizes(%arg0: !torch.vtensor<[1,3,4,4],f32>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,3,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,3,?,?],f32>
  return %0 : !torch.vtensor<[1,3,?,?],f32>
}
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[H:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[W:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[H]], %[[W]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[SIZES]], {{.*}}) : (!torch.vtensor<[1,3,4,4],f32>, !torch.list<int>, !torch.none, {{.*}}) -> !torch.vtensor<[1,3,?,?],f32>

// Cubic: torch's bicubic mode, with ONNX's cubic_coeff_a and exclude_outside after `,`
// when they differ from torch's kernel.
// CHECK-LABEL: func.func @test_resize_cubic_a_exclude_outside(
func.func @test_resize_cubic_a_exclude_outside(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "cubic", torch.onnx.cubic_coeff_a = -5.000000e-01 : f32, torch.onnx.exclude_outside = 1 : si64} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,8,8],f32>
  return %0 : !torch.vtensor<[1,1,8,8],f32>
}
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "bicubic,cubic_coeff_a=-0.5,exclude_outside"} : () -> !torch.str
// CHECK: %[[ALIGN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %{{.+}}, %[[MODE]], %[[ALIGN]], %{{.+}}, %{{.+}}) : {{.*}} -> !torch.vtensor<[1,1,8,8],f32>

// Cubic with align_corners and the defaults: torch's align_corners flag.
// CHECK-LABEL: func.func @test_resize_cubic_align_corners(
func.func @test_resize_cubic_align_corners(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "cubic", torch.onnx.coordinate_transformation_mode = "align_corners"} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,8,8],f32>
  return %0 : !torch.vtensor<[1,1,8,8],f32>
}
// CHECK: "torch.constant.str"() {value = "bicubic"} : () -> !torch.str
// CHECK: "torch.constant.bool"() {value = true}

// Nearest with align_corners: spelled in the mode string, torch's flag stays false.
// CHECK-LABEL: func.func @test_resize_nearest_align_corners(
func.func @test_resize_nearest_align_corners(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,1,8,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1, 1, 8, 8]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.coordinate_transformation_mode = "align_corners", torch.onnx.nearest_mode = "floor"} : (!torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.none, !torch.vtensor<[4],si64>) -> !torch.vtensor<[1,1,8,8],f32>
  return %0 : !torch.vtensor<[1,1,8,8],f32>
}
// CHECK: "torch.constant.str"() {value = "nearest_align_corners"} : () -> !torch.str
// CHECK: "torch.constant.bool"() {value = false}

// keep_aspect_ratio_policy: the sizes come from the result type, which shape inference
// computed with the policy's single scale (here min(3/2, 5/4) = 1.25: 2 → 3 (2.5 rounded), 4 → 5).
// CHECK-LABEL: func.func @test_resize_not_larger(
func.func @test_resize_not_larger(%arg0: !torch.vtensor<[1,1,2,4],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,3,5],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "nearest", torch.onnx.axes = [2 : si64, 3 : si64], torch.onnx.keep_aspect_ratio_policy = "not_larger"} : (!torch.vtensor<[1,1,2,4],f32>, !torch.none, !torch.none, !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,3,5],f32>
  return %0 : !torch.vtensor<[1,1,3,5],f32>
}
// CHECK: %[[H:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[W:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[H]], %[[W]])
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %[[SIZES]], {{.*}} -> !torch.vtensor<[1,1,3,5],f32>

// Resize-18's antialias: torch's antialias operand.
// CHECK-LABEL: func.func @test_resize_linear_antialias(
func.func @test_resize_linear_antialias(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 0.6, 0.6]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.antialias = 1 : si64} : (!torch.vtensor<[1,1,4,4],f32>, !torch.none, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "bilinear"} : () -> !torch.str
// CHECK: %[[ALIGN:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[AA:.+]] = "torch.constant.bool"() {value = true}
// CHECK: "torch.aten.__interpolate.size_list_scale_list"(%arg0, %{{.+}}, %{{.+}}, %[[MODE]], %[[ALIGN]], %{{.+}}, %[[AA]]) : {{.*}} -> !torch.vtensor<[1,1,2,2],f32>

// tf_crop_and_resize: the spatial axes' region of interest (from the constant roi, for
// `axes`) and extrapolation_value ride in the mode string after `,`.
// CHECK-LABEL: func.func @test_resize_tf_crop_and_resize(
func.func @test_resize_tf_crop_and_resize(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,3,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %roi = "torch.vtensor.literal"() {value = dense<[0.6, 0.4, 0.8, 0.6]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %sizes = "torch.vtensor.literal"() {value = dense<[3, 3]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %roi, %n, %sizes) {name = "onnx.Resize", torch.onnx.mode = "linear", torch.onnx.axes = [3 : si64, 2 : si64], torch.onnx.coordinate_transformation_mode = "tf_crop_and_resize", torch.onnx.extrapolation_value = 1.000000e+01 : f32} : (!torch.vtensor<[1,1,4,4],f32>, !torch.vtensor<[4],f32>, !torch.none, !torch.vtensor<[2],si64>) -> !torch.vtensor<[1,1,3,3],f32>
  return %0 : !torch.vtensor<[1,1,3,3],f32>
}
// CHECK: "torch.constant.str"() {value = "bilinear_tf_crop_and_resize,roi=0.4000000059604645:0.6000000238418579:0.6000000238418579:0.800000011920929,extrapolation_value=10"} : () -> !torch.str

// Linear (and cubic) Resize of 3-D (N, C, L) data, audio's: the 2-D interpolation of
// (N, C, 1, L) with scale 1 on the new axis, squeezed back.
// CHECK-LABEL: func.func @test_resize_1d_linear(
func.func @test_resize_1d_linear(%arg0: !torch.vtensor<[1,2,5],f32>) -> !torch.vtensor<[1,2,10],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %s = "torch.vtensor.literal"() {value = dense<[1.0, 1.0, 2.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %0 = "torch.operator"(%arg0, %n, %s) {name = "onnx.Resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,2,5],f32>, !torch.none, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,2,10],f32>
  return %0 : !torch.vtensor<[1,2,10],f32>
}
// CHECK: %[[TWO:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[X:.+]] = "torch.aten.unsqueeze"(%arg0, %[[TWO]]) : {{.+}} -> !torch.vtensor<[1,2,1,5],f32>
// CHECK: %[[ONE:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[S:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SC:.+]] = "torch.prim.ListConstruct"(%[[ONE]], %[[S]])
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "bilinear"}
// CHECK: %[[Y:.+]] = "torch.aten.__interpolate.size_list_scale_list"(%[[X]], %{{.+}}, %[[SC]], %[[MODE]], {{.+}} -> !torch.vtensor<[1,2,1,10],f32>
// CHECK: %[[R:.+]] = "torch.aten.squeeze.dim"(%[[Y]], %[[TWO]]) : {{.+}} -> !torch.vtensor<[1,2,10],f32>
// CHECK: return %[[R]]

// Linear Resize of 3-D data by scales known only at run time: the (N, C, 1, L) form's
// scale list is 1 for the new axis and L's scale read with item.
// CHECK-LABEL: func.func @test_resize_1d_run_time_scales(
func.func @test_resize_1d_run_time_scales(%arg0: !torch.vtensor<[1,2,?],f32>, %arg1: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,2,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "linear"} : (!torch.vtensor<[1,2,?],f32>, !torch.none, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,2,?],f32>
  return %0 : !torch.vtensor<[1,2,?],f32>
}
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[L:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[ONE:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[X:.+]] = "torch.aten.unsqueeze"(%arg0, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,2,1,?],f32>
// CHECK: %[[SC:.+]] = "torch.prim.ListConstruct"(%[[ONE]], %[[L]]) : (!torch.float, !torch.float) -> !torch.list<float>
// CHECK: %[[Y:.+]] = "torch.aten.__interpolate.size_list_scale_list"(%[[X]], %{{.+}}, %[[SC]], {{.+}} -> !torch.vtensor<[1,2,1,?],f32>
// CHECK: %[[R:.+]] = "torch.aten.squeeze.dim"(%[[Y]], %{{.+}}) : {{.+}} -> !torch.vtensor<[1,2,?],f32>
// CHECK: return %[[R]]

// Cubic Resize of 3-D data to sizes known only at run time: size 1 for the new axis.
// CHECK-LABEL: func.func @test_resize_1d_run_time_sizes(
func.func @test_resize_1d_run_time_sizes(%arg0: !torch.vtensor<[1,2,?],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[1,2,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %n, %n, %arg1) {name = "onnx.Resize", torch.onnx.mode = "cubic"} : (!torch.vtensor<[1,2,?],f32>, !torch.none, !torch.none, !torch.vtensor<[3],si64>) -> !torch.vtensor<[1,2,?],f32>
  return %0 : !torch.vtensor<[1,2,?],f32>
}
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[L:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[X:.+]] = "torch.aten.unsqueeze"(%arg0, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,2,1,?],f32>
// CHECK: %[[SZ:.+]] = "torch.prim.ListConstruct"(%[[ONE]], %[[L]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[Y:.+]] = "torch.aten.__interpolate.size_list_scale_list"(%[[X]], %[[SZ]], {{.+}} -> !torch.vtensor<[1,2,1,?],f32>
// CHECK: "torch.aten.squeeze.dim"(%[[Y]], %{{.+}}) : {{.+}} -> !torch.vtensor<[1,2,?],f32>
