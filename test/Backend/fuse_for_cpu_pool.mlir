// fuse-for-cpu, pool family: quantized global average, average and max pools become
// qlower.qglobal_avg_pool, qlower.qavg_pool, qlower.qavg_pool_over_inputs and
// qlower.qmax_pool, which the CPU backend runs on the integers as ONNX Runtime does; the
// cases it must leave alone keep their float ops.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s

// QLinearGlobalAveragePool: the quantize of a mean over the spatial dims becomes
// qlower.qglobal_avg_pool of x's integers, scale and zero point, the dims, keepdim, and
// y's scale and zero point.
// CHECK-LABEL: func.func @global_average(
// CHECK-DAG: %[[XS:.+]] = "torch.constant.float"() {value = 0.026083534583449364 : f64}
// CHECK-DAG: %[[XZ:.+]] = "torch.constant.int"() {value = 46 : i64}
// CHECK-DAG: %[[DIMS:.+]] = "torch.prim.ListConstruct"(
// CHECK-DAG: %[[KEEP:.+]] = "torch.constant.bool"() {value = true}
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 0.035751756280660629 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = 24 : i64}
// CHECK: %[[Y:.+]] = "qlower.qglobal_avg_pool"(%arg0, %[[XS]], %[[XZ]], %[[DIMS]], %[[KEEP]], %[[YS]], %[[YZ]]) : {{.+}} -> !torch.vtensor<[6,6,1,1],!torch.qint8>
// CHECK-NOT: torch.aten.mean.dim
// CHECK: return
func.func @global_average(%arg0: !torch.vtensor<[6,6,6,2],si8>) -> (!torch.vtensor<[6,6,1,1],si8>) {
  %0 = "torch.constant.float"() {value = 0.026083534583449364 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 46 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[6,6,6,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[6,6,6,2],!torch.qint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[6,6,6,2],!torch.qint8>) -> !torch.vtensor<[6,6,6,2],f32>
  %4 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.prim.ListConstruct"(%4, %5) : (!torch.int, !torch.int) -> !torch.list<int>
  %7 = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %8 = "torch.constant.none"() : () -> !torch.none
  %9 = "torch.aten.mean.dim"(%3, %6, %7, %8) : (!torch.vtensor<[6,6,6,2],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[6,6,1,1],f32>
  %10 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.035751756280660629 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 24 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[6,6,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[6,6,1,1],!torch.qint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[6,6,1,1],!torch.qint8>) -> !torch.vtensor<[6,6,1,1],si8>
  return %14 : !torch.vtensor<[6,6,1,1],si8>
}

// -----

// Not fused: something else reads the float mean.
// CHECK-LABEL: func.func @global_average_float_read_twice(
// CHECK-NOT: qlower.
// CHECK: torch.aten.mean.dim
// CHECK-NOT: qlower.
// CHECK: return
func.func @global_average_float_read_twice(%arg0: !torch.vtensor<[6,6,6,2],si8>) -> (!torch.vtensor<[6,6,1,1],si8>, !torch.vtensor<[6,6,1,1],f32>) {
  %0 = "torch.constant.float"() {value = 0.026083534583449364 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 46 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[6,6,6,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[6,6,6,2],!torch.qint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[6,6,6,2],!torch.qint8>) -> !torch.vtensor<[6,6,6,2],f32>
  %4 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.prim.ListConstruct"(%4, %5) : (!torch.int, !torch.int) -> !torch.list<int>
  %7 = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %8 = "torch.constant.none"() : () -> !torch.none
  %9 = "torch.aten.mean.dim"(%3, %6, %7, %8) : (!torch.vtensor<[6,6,6,2],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[6,6,1,1],f32>
  %10 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.035751756280660629 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 24 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[6,6,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[6,6,1,1],!torch.qint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[6,6,1,1],!torch.qint8>) -> !torch.vtensor<[6,6,1,1],si8>
  return %14, %9 : !torch.vtensor<[6,6,1,1],si8>, !torch.vtensor<[6,6,1,1],f32>
}

// -----

// QLinearAveragePool, channels last: the float pool (between permutes) stays, and the
// quantize becomes qlower.qavg_pool, which rounds after adding the zero point as ONNX
// Runtime does.
// CHECK-LABEL: func.func @average_channels_last(
// CHECK: %[[P:.+]] = "torch.aten.avg_pool2d"(
// CHECK: %[[T:.+]] = "torch.aten.permute"(%[[P]],
// CHECK: %[[Y:.+]] = "qlower.qavg_pool"(%[[T]], %{{.+}}, %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,6,7,2],!torch.quint8>
// CHECK-NOT: torch.aten.quantize_per_tensor
// CHECK: return
func.func @average_channels_last(%arg0: !torch.vtensor<[1,5,7,2],ui8>) -> (!torch.vtensor<[1,6,7,2],ui8>) {
  %0 = "torch.constant.float"() {value = 0.04585585743188858 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 146 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[1,5,7,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,5,7,2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[1,5,7,2],!torch.quint8>) -> !torch.vtensor<[1,5,7,2],f32>
  %4 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %7 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %8 = "torch.prim.ListConstruct"(%4, %5, %6, %7) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %9 = "torch.aten.permute"(%3, %8) : (!torch.vtensor<[1,5,7,2],f32>, !torch.list<int>) -> !torch.vtensor<[1,2,5,7],f32>
  %10 = "torch.prim.ListConstruct"(%7, %6) : (!torch.int, !torch.int) -> !torch.list<int>
  %11 = "torch.prim.ListConstruct"(%6, %6) : (!torch.int, !torch.int) -> !torch.list<int>
  %12 = "torch.prim.ListConstruct"(%6, %4) : (!torch.int, !torch.int) -> !torch.list<int>
  %13 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %14 = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %15 = "torch.constant.none"() : () -> !torch.none
  %16 = "torch.aten.avg_pool2d"(%9, %10, %11, %12, %13, %14, %15) : (!torch.vtensor<[1,2,5,7],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,6,7],f32>
  %17 = "torch.prim.ListConstruct"(%4, %7, %5, %6) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %18 = "torch.aten.permute"(%16, %17) : (!torch.vtensor<[1,2,6,7],f32>, !torch.list<int>) -> !torch.vtensor<[1,6,7,2],f32>
  %19 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %20 = "torch.constant.float"() {value = 0.018567416816949844 : f64} : () -> !torch.float
  %21 = "torch.constant.int"() {value = 72 : i64} : () -> !torch.int
  %22 = "torch.aten.quantize_per_tensor"(%18, %20, %21, %19) : (!torch.vtensor<[1,6,7,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,6,7,2],!torch.quint8>
  %23 = "torch.aten.int_repr"(%22) : (!torch.vtensor<[1,6,7,2],!torch.quint8>) -> !torch.vtensor<[1,6,7,2],ui8>
  return %23 : !torch.vtensor<[1,6,7,2],ui8>
}

// -----

// An average pool over asymmetric padding that does not count it (sum over the padded
// input divided by the pool of padded ones) becomes qlower.qavg_pool_over_inputs: the
// padded input, the pool's kernel, stride, padding and ceil_mode, the padded ones, and
// y's scale, zero point and dtype. The division is gone.
// CHECK-LABEL: func.func @average_over_inputs(
// CHECK: %[[PX:.+]] = "torch.aten.constant_pad_nd"(
// CHECK: %[[ONES:.+]] = "torch.aten.constant_pad_nd"(
// CHECK: "qlower.qavg_pool_over_inputs"(%[[PX]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ONES]], %{{.+}}, %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,4,3,7],!torch.quint8>
// CHECK-NOT: torch.aten.div.Tensor
// CHECK-NOT: torch.aten.avg_pool2d
// CHECK: return
func.func @average_over_inputs(%arg0: !torch.vtensor<[1,4,7,7],ui8>) -> (!torch.vtensor<[1,4,3,7],ui8>) {
  %0 = "torch.constant.float"() {value = 0.044166512787342072 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 206 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[1,4,7,7],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,4,7,7],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[1,4,7,7],!torch.quint8>) -> !torch.vtensor<[1,4,7,7],f32>
  %4 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %6 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %7 = "torch.prim.ListConstruct"(%5, %6, %5, %5) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %8 = "torch.aten.constant_pad_nd"(%3, %7, %4) : (!torch.vtensor<[1,4,7,7],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,4,7,8],f32>
  %9 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %10 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %11 = "torch.prim.ListConstruct"(%9, %10) : (!torch.int, !torch.int) -> !torch.list<int>
  %12 = "torch.prim.ListConstruct"(%10, %6) : (!torch.int, !torch.int) -> !torch.list<int>
  %13 = "torch.prim.ListConstruct"(%5, %5) : (!torch.int, !torch.int) -> !torch.list<int>
  %14 = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %15 = "torch.constant.none"() : () -> !torch.none
  %16 = "torch.aten.avg_pool2d"(%8, %11, %12, %13, %14, %14, %15) : (!torch.vtensor<[1,4,7,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,4,3,7],f32>
  %17 = "torch.aten.ones_like"(%3, %15, %15, %15, %15, %15) : (!torch.vtensor<[1,4,7,7],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[1,4,7,7],f32>
  %18 = "torch.aten.constant_pad_nd"(%17, %7, %4) : (!torch.vtensor<[1,4,7,7],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,4,7,8],f32>
  %19 = "torch.aten.avg_pool2d"(%18, %11, %12, %13, %14, %14, %15) : (!torch.vtensor<[1,4,7,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,4,3,7],f32>
  %20 = "torch.aten.div.Tensor"(%16, %19) : (!torch.vtensor<[1,4,3,7],f32>, !torch.vtensor<[1,4,3,7],f32>) -> !torch.vtensor<[1,4,3,7],f32>
  %21 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %22 = "torch.constant.float"() {value = 0.034072447568178177 : f64} : () -> !torch.float
  %23 = "torch.constant.int"() {value = 120 : i64} : () -> !torch.int
  %24 = "torch.aten.quantize_per_tensor"(%20, %22, %23, %21) : (!torch.vtensor<[1,4,3,7],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4,3,7],!torch.quint8>
  %25 = "torch.aten.int_repr"(%24) : (!torch.vtensor<[1,4,3,7],!torch.quint8>) -> !torch.vtensor<[1,4,3,7],ui8>
  return %25 : !torch.vtensor<[1,4,3,7],ui8>
}

// -----

// A max pool wrapped in Q/DQ with the input's own scale and zero point runs on the
// integers: qlower.qmax_pool of x's integers, the pool's geometry, and y's parameters.
// CHECK-LABEL: func.func @max_pool_same_parameters(
// CHECK: %[[Y:.+]] = "qlower.qmax_pool"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.quint8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.max_pool2d
func.func @max_pool_same_parameters(%arg0: !torch.vtensor<[1,1,4,4],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,1,4,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,1,4,4],!torch.quint8>) -> !torch.vtensor<[1,1,4,4],f32>
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %m = "torch.aten.max_pool2d"(%x, %k, %k, %p, %d, %false) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%m, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// Not fused: other output parameters round through the floats.
// CHECK-LABEL: func.func @max_pool_other_parameters(
// CHECK-NOT: qlower.
// CHECK: torch.aten.max_pool2d
// CHECK-NOT: qlower.
// CHECK: return
func.func @max_pool_other_parameters(%arg0: !torch.vtensor<[1,1,4,4],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,1,4,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,1,4,4],!torch.quint8>) -> !torch.vtensor<[1,1,4,4],f32>
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %m = "torch.aten.max_pool2d"(%x, %k, %k, %p, %d, %false) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%m, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// An average pool whose window is the whole unpadded plane is ONNX Runtime's global
// average pool: qlower.qglobal_avg_pool, with the spatial dims and keepdim written as
// constants before it.
// CHECK-LABEL: func.func @average_whole_plane(
// CHECK-DAG: %[[XS:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK-DAG: %[[XZ:.+]] = "torch.constant.int"() {value = 10 : i64}
// CHECK: %[[D2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK-NEXT: %[[D3:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK-NEXT: %[[DIMS:.+]] = "torch.prim.ListConstruct"(%[[D2]], %[[D3]])
// CHECK-NEXT: %[[KEEP:.+]] = "torch.constant.bool"() {value = true}
// CHECK-NEXT: %[[Y:.+]] = "qlower.qglobal_avg_pool"(%arg0, %[[XS]], %[[XZ]], %[[DIMS]], %[[KEEP]], %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,2,1,1],!torch.quint8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.avg_pool2d
func.func @average_whole_plane(%arg0: !torch.vtensor<[1,2,3,3],ui8>) -> !torch.vtensor<[1,2,1,1],!torch.quint8> {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,2,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,2,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,2,3,3],!torch.quint8>) -> !torch.vtensor<[1,2,3,3],f32>
  %three = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%three, %three) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %a = "torch.aten.avg_pool2d"(%x, %k, %k, %p, %false, %true, %none) : (!torch.vtensor<[1,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,1,1],f32>
  %ys = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%a, %ys, %yz, %dtype) : (!torch.vtensor<[1,2,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,2,1,1],!torch.quint8>
  return %y : !torch.vtensor<[1,2,1,1],!torch.quint8>
}

// -----

// MaxPool of uint8 (QOperator models pool their activations so): the lowering's float
// pool between casts becomes qlower.qmax_pool of the bytes, with no scale or zero
// point. Dynamic sizes are fine: a padding below the kernel, without dilation or ceil
// mode, leaves no window wholly in the padding.
// CHECK-LABEL: func.func @integer_max_pool(
// CHECK: %[[P:.+]] = "qlower.qmax_pool"(%arg0, {{.+}}, !torch.bool, !torch.none, !torch.none) -> !torch.vtensor<[?,4,?,?],ui8>
// CHECK-NOT: max_pool2d
// CHECK-NOT: torch.aten.to.dtype
// CHECK: return %[[P]]
func.func @integer_max_pool(%arg0: !torch.vtensor<[?,4,?,?],ui8>) -> !torch.vtensor<[?,4,?,?],ui8> {
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %int5 = "torch.constant.int"() {value = 5 : i64} : () -> !torch.int
  %int6 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %kernel = "torch.prim.ListConstruct"(%int5, %int5) : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = "torch.prim.ListConstruct"(%int1, %int1) : (!torch.int, !torch.int) -> !torch.list<int>
  %pad = "torch.prim.ListConstruct"(%int2, %int2) : (!torch.int, !torch.int) -> !torch.list<int>
  %f = "torch.aten.to.dtype"(%arg0, %int6, %false, %false, %none) : (!torch.vtensor<[?,4,?,?],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,4,?,?],f32>
  %m = "torch.aten.max_pool2d"(%f, %kernel, %ones, %pad, %ones, %false) : (!torch.vtensor<[?,4,?,?],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[?,4,?,?],f32>
  %i = "torch.aten.to.dtype"(%m, %int3, %false, %false, %none) : (!torch.vtensor<[?,4,?,?],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,4,?,?],si32>
  %y = "torch.aten.to.dtype"(%i, %int0, %false, %false, %none) : (!torch.vtensor<[?,4,?,?],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,4,?,?],ui8>
  return %y : !torch.vtensor<[?,4,?,?],ui8>
}

// -----

// int8, cast straight back from f32, static sizes: fused too.
// CHECK-LABEL: func.func @integer_max_pool_one_cast(
// CHECK: %[[P:.+]] = "qlower.qmax_pool"(%arg0, {{.+}} -> !torch.vtensor<[1,2,2,2],si8>
// CHECK-NOT: max_pool2d
// CHECK: return %[[P]]
func.func @integer_max_pool_one_cast(%arg0: !torch.vtensor<[1,2,4,4],si8>) -> !torch.vtensor<[1,2,2,2],si8> {
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int6 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %twos = "torch.prim.ListConstruct"(%int2, %int2) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%int0, %int0) : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = "torch.prim.ListConstruct"(%int1, %int1) : (!torch.int, !torch.int) -> !torch.list<int>
  %f = "torch.aten.to.dtype"(%arg0, %int6, %false, %false, %none) : (!torch.vtensor<[1,2,4,4],si8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,4,4],f32>
  %m = "torch.aten.max_pool2d"(%f, %twos, %twos, %zeros, %ones, %false) : (!torch.vtensor<[1,2,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,2],f32>
  %y = "torch.aten.to.dtype"(%m, %int1, %false, %false, %none) : (!torch.vtensor<[1,2,2,2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,2],si8>
  return %y : !torch.vtensor<[1,2,2,2],si8>
}

// -----

// Not fused: with dynamic sizes, a padding as wide as the kernel may leave a window
// wholly in the padding (-inf in the float pool, which no byte is).
// CHECK-LABEL: func.func @integer_max_pool_wide_padding(
// CHECK-NOT: qlower.qmax_pool
// CHECK: "torch.aten.max_pool2d"
// CHECK: return
func.func @integer_max_pool_wide_padding(%arg0: !torch.vtensor<[?,4,?,?],ui8>) -> !torch.vtensor<[?,4,?,?],ui8> {
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int6 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %twos = "torch.prim.ListConstruct"(%int2, %int2) : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = "torch.prim.ListConstruct"(%int1, %int1) : (!torch.int, !torch.int) -> !torch.list<int>
  %f = "torch.aten.to.dtype"(%arg0, %int6, %false, %false, %none) : (!torch.vtensor<[?,4,?,?],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,4,?,?],f32>
  %m = "torch.aten.max_pool2d"(%f, %twos, %ones, %twos, %ones, %false) : (!torch.vtensor<[?,4,?,?],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[?,4,?,?],f32>
  %y = "torch.aten.to.dtype"(%m, %int0, %false, %false, %none) : (!torch.vtensor<[?,4,?,?],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,4,?,?],ui8>
  return %y : !torch.vtensor<[?,4,?,?],ui8>
}

// -----

// Not fused: the pool of uint8 is cast to int8, another type.
// CHECK-LABEL: func.func @integer_max_pool_other_type(
// CHECK-NOT: qlower.qmax_pool
// CHECK: "torch.aten.max_pool2d"
// CHECK: return
func.func @integer_max_pool_other_type(%arg0: !torch.vtensor<[1,2,4,4],ui8>) -> !torch.vtensor<[1,2,2,2],si8> {
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int6 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %twos = "torch.prim.ListConstruct"(%int2, %int2) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%int0, %int0) : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = "torch.prim.ListConstruct"(%int1, %int1) : (!torch.int, !torch.int) -> !torch.list<int>
  %f = "torch.aten.to.dtype"(%arg0, %int6, %false, %false, %none) : (!torch.vtensor<[1,2,4,4],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,4,4],f32>
  %m = "torch.aten.max_pool2d"(%f, %twos, %twos, %zeros, %ones, %false) : (!torch.vtensor<[1,2,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,2,2],f32>
  %y = "torch.aten.to.dtype"(%m, %int1, %false, %false, %none) : (!torch.vtensor<[1,2,2,2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,2],si8>
  return %y : !torch.vtensor<[1,2,2,2],si8>
}
