// fuse-for-cpu, GatherBlockQuantized: the lowering's gather of packed rows, nibble
// split (remainder, floor division, stack), zero points (or the middle code) and
// scales becomes one qlower.gather_block_quantized(data, flat indices, scales,
// zero points | none, bits, block_size) whose kernel dequantizes only the rows read;
// the reshape to the indices' shape stays. Anything else, or an intermediate another
// op reads, is left as it is. Inputs: `qlower --emit fused` of one-node models
// (tools/differential/gather_block_quantized.py's), and the lowering of
// test/Conversion/OnnxToTorch/Microsoft/gatherblockquantized.mlir with unknown sizes.
// RUN: qlower-opt --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @int4_zero_points(
// CHECK: %[[FLAT:.+]] = "torch.aten.reshape"(%arg1
// CHECK-DAG: %[[BITS:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK-DAG: %[[BLOCK:.+]] = "torch.constant.int"() {value = 16 : i64}
// CHECK: %[[ROWS:.+]] = "qlower.gather_block_quantized"(%arg0, %[[FLAT]], %arg2, %arg3, %[[BITS]], %[[BLOCK]]) : {{.+}} -> !torch.vtensor<[6,64],f32>
// CHECK-NOT: torch.aten.index_select
// CHECK-NOT: torch.aten.stack
// CHECK-NOT: torch.aten.mul.Tensor
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[ROWS]]
// CHECK: return %[[Y]]
func.func @int4_zero_points(%arg0: !torch.vtensor<[10,32],ui8>, %arg1: !torch.vtensor<[2,3],si64>, %arg2: !torch.vtensor<[10,4],f32>, %arg3: !torch.vtensor<[10,2],ui8>) -> (!torch.vtensor<[2,3,64],f32>) {
  %0 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.reshape"(%arg1, %1) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %3 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %4 = "torch.aten.index_select"(%arg0, %3, %2) : (!torch.vtensor<[10,32],ui8>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,32],ui8>
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %7 = "torch.constant.none"() : () -> !torch.none
  %8 = "torch.aten.to.dtype"(%4, %5, %6, %6, %7) : (!torch.vtensor<[6,32],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,32],si32>
  %9 = "torch.constant.int"() {value = 16 : i64} : () -> !torch.int
  %10 = "torch.aten.remainder.Scalar"(%8, %9) : (!torch.vtensor<[6,32],si32>, !torch.int) -> !torch.vtensor<[6,32],si32>
  %11 = "torch.constant.str"() {value = "floor"} : () -> !torch.str
  %12 = "torch.aten.div.Scalar_mode"(%8, %9, %11) : (!torch.vtensor<[6,32],si32>, !torch.int, !torch.str) -> !torch.vtensor<[6,32],si32>
  %13 = "torch.prim.ListConstruct"(%10, %12) : (!torch.vtensor<[6,32],si32>, !torch.vtensor<[6,32],si32>) -> !torch.list<vtensor>
  %14 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %15 = "torch.aten.stack"(%13, %14) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[6,32,2],si32>
  %16 = "torch.constant.int"() {value = 64 : i64} : () -> !torch.int
  %17 = "torch.prim.ListConstruct"(%0, %16) : (!torch.int, !torch.int) -> !torch.list<int>
  %18 = "torch.aten.reshape"(%15, %17) : (!torch.vtensor<[6,32,2],si32>, !torch.list<int>) -> !torch.vtensor<[6,64],si32>
  %19 = "torch.aten.index_select"(%arg3, %3, %2) : (!torch.vtensor<[10,2],ui8>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,2],ui8>
  %20 = "torch.aten.to.dtype"(%19, %5, %6, %6, %7) : (!torch.vtensor<[6,2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,2],si32>
  %21 = "torch.aten.remainder.Scalar"(%20, %9) : (!torch.vtensor<[6,2],si32>, !torch.int) -> !torch.vtensor<[6,2],si32>
  %22 = "torch.aten.div.Scalar_mode"(%20, %9, %11) : (!torch.vtensor<[6,2],si32>, !torch.int, !torch.str) -> !torch.vtensor<[6,2],si32>
  %23 = "torch.prim.ListConstruct"(%21, %22) : (!torch.vtensor<[6,2],si32>, !torch.vtensor<[6,2],si32>) -> !torch.list<vtensor>
  %24 = "torch.aten.stack"(%23, %14) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[6,2,2],si32>
  %25 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %26 = "torch.prim.ListConstruct"(%0, %25) : (!torch.int, !torch.int) -> !torch.list<int>
  %27 = "torch.aten.reshape"(%24, %26) : (!torch.vtensor<[6,2,2],si32>, !torch.list<int>) -> !torch.vtensor<[6,4],si32>
  %28 = "torch.prim.ListConstruct"(%0, %25, %9) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %29 = "torch.aten.reshape"(%18, %28) : (!torch.vtensor<[6,64],si32>, !torch.list<int>) -> !torch.vtensor<[6,4,16],si32>
  %30 = "torch.aten.unsqueeze"(%27, %14) : (!torch.vtensor<[6,4],si32>, !torch.int) -> !torch.vtensor<[6,4,1],si32>
  %31 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %32 = "torch.aten.sub.Tensor"(%29, %30, %31) : (!torch.vtensor<[6,4,16],si32>, !torch.vtensor<[6,4,1],si32>, !torch.int) -> !torch.vtensor<[6,4,16],si32>
  %33 = "torch.aten.to.dtype"(%32, %0, %6, %6, %7) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,4,16],f32>
  %34 = "torch.aten.index_select"(%arg2, %3, %2) : (!torch.vtensor<[10,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %35 = "torch.aten.unsqueeze"(%34, %14) : (!torch.vtensor<[6,4],f32>, !torch.int) -> !torch.vtensor<[6,4,1],f32>
  %36 = "torch.aten.mul.Tensor"(%33, %35) : (!torch.vtensor<[6,4,16],f32>, !torch.vtensor<[6,4,1],f32>) -> !torch.vtensor<[6,4,16],f32>
  %37 = "torch.aten.reshape"(%36, %17) : (!torch.vtensor<[6,4,16],f32>, !torch.list<int>) -> !torch.vtensor<[6,64],f32>
  %38 = "torch.prim.ListConstruct"(%14, %5, %16) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %39 = "torch.aten.reshape"(%37, %38) : (!torch.vtensor<[6,64],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,64],f32>
  return %39 : !torch.vtensor<[2,3,64],f32>
}

// CHECK-LABEL: func.func @int8_middle_zero_point(
// CHECK: %[[NONE:.+]] = "torch.constant.none"
// CHECK-DAG: %[[BITS:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK-DAG: %[[BLOCK:.+]] = "torch.constant.int"() {value = 16 : i64}
// CHECK: "qlower.gather_block_quantized"(%arg0, %{{.+}}, %arg2, %[[NONE]], %[[BITS]], %[[BLOCK]]) : {{.+}} -> !torch.vtensor<[6,64],f32>
// CHECK-NOT: torch.aten.sub.Scalar
func.func @int8_middle_zero_point(%arg0: !torch.vtensor<[10,64],ui8>, %arg1: !torch.vtensor<[2,3],si64>, %arg2: !torch.vtensor<[10,4],f32>) -> (!torch.vtensor<[2,3,64],f32>) {
  %0 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.reshape"(%arg1, %1) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %3 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %4 = "torch.aten.index_select"(%arg0, %3, %2) : (!torch.vtensor<[10,64],ui8>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,64],ui8>
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %7 = "torch.constant.none"() : () -> !torch.none
  %8 = "torch.aten.to.dtype"(%4, %5, %6, %6, %7) : (!torch.vtensor<[6,64],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,64],si32>
  %9 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %10 = "torch.constant.int"() {value = 16 : i64} : () -> !torch.int
  %11 = "torch.prim.ListConstruct"(%0, %9, %10) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %12 = "torch.aten.reshape"(%8, %11) : (!torch.vtensor<[6,64],si32>, !torch.list<int>) -> !torch.vtensor<[6,4,16],si32>
  %13 = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %14 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %15 = "torch.aten.sub.Scalar"(%12, %13, %14) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.int) -> !torch.vtensor<[6,4,16],si32>
  %16 = "torch.aten.to.dtype"(%15, %0, %6, %6, %7) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,4,16],f32>
  %17 = "torch.aten.index_select"(%arg2, %3, %2) : (!torch.vtensor<[10,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %18 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %19 = "torch.aten.unsqueeze"(%17, %18) : (!torch.vtensor<[6,4],f32>, !torch.int) -> !torch.vtensor<[6,4,1],f32>
  %20 = "torch.aten.mul.Tensor"(%16, %19) : (!torch.vtensor<[6,4,16],f32>, !torch.vtensor<[6,4,1],f32>) -> !torch.vtensor<[6,4,16],f32>
  %21 = "torch.constant.int"() {value = 64 : i64} : () -> !torch.int
  %22 = "torch.prim.ListConstruct"(%0, %21) : (!torch.int, !torch.int) -> !torch.list<int>
  %23 = "torch.aten.reshape"(%20, %22) : (!torch.vtensor<[6,4,16],f32>, !torch.list<int>) -> !torch.vtensor<[6,64],f32>
  %24 = "torch.prim.ListConstruct"(%18, %5, %21) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %25 = "torch.aten.reshape"(%23, %24) : (!torch.vtensor<[6,64],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,64],f32>
  return %25 : !torch.vtensor<[2,3,64],f32>
}

// Unknown sizes, int32 indices, float16 scales (widened by to.dtype) and 4-bit zero
// points of 3 blocks, sliced from the 4 their two bytes hold.
// CHECK-LABEL: func.func @dynamic_int4_half_scales(
// CHECK: %[[FLAT:.+]] = "torch.aten.reshape"({{.+}} -> !torch.vtensor<[?],si64>
// CHECK: %[[ROWS:.+]] = "qlower.gather_block_quantized"(%arg0, %[[FLAT]], %arg2, %arg3, {{.+}}) : (!torch.vtensor<[100,48],ui8>, !torch.vtensor<[?],si64>, !torch.vtensor<[100,3],f16>, !torch.vtensor<[100,2],ui8>, !torch.int, !torch.int) -> !torch.vtensor<[?,96],f32>
// CHECK-NOT: torch.aten.slice.Tensor
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[ROWS]]
// CHECK: "torch.aten.to.dtype"(%[[Y]]
func.func @dynamic_int4_half_scales(%arg0: !torch.vtensor<[100,48],ui8>, %arg1: !torch.vtensor<[?,?],si32>, %arg2: !torch.vtensor<[100,3],f16>, %arg3: !torch.vtensor<[100,2],ui8>) -> !torch.vtensor<[?,?,96],f16> {
  %0 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %1 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %2 = "torch.constant.none"() : () -> !torch.none
  %3 = "torch.aten.to.dtype"(%arg1, %0, %1, %1, %2) : (!torch.vtensor<[?,?],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si64>
  %4 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %5 = "torch.prim.ListConstruct"(%4) : (!torch.int) -> !torch.list<int>
  %6 = "torch.aten.reshape"(%3, %5) : (!torch.vtensor<[?,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %7 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %8 = "torch.aten.index_select"(%arg0, %7, %6) : (!torch.vtensor<[100,48],ui8>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,48],ui8>
  %9 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %10 = "torch.aten.to.dtype"(%8, %9, %1, %1, %2) : (!torch.vtensor<[?,48],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,48],si32>
  %11 = "torch.constant.int"() {value = 16 : i64} : () -> !torch.int
  %12 = "torch.aten.remainder.Scalar"(%10, %11) : (!torch.vtensor<[?,48],si32>, !torch.int) -> !torch.vtensor<[?,48],si32>
  %13 = "torch.constant.str"() {value = "floor"} : () -> !torch.str
  %14 = "torch.aten.div.Scalar_mode"(%10, %11, %13) : (!torch.vtensor<[?,48],si32>, !torch.int, !torch.str) -> !torch.vtensor<[?,48],si32>
  %15 = "torch.prim.ListConstruct"(%12, %14) : (!torch.vtensor<[?,48],si32>, !torch.vtensor<[?,48],si32>) -> !torch.list<vtensor>
  %16 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %17 = "torch.aten.stack"(%15, %16) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[?,48,2],si32>
  %18 = "torch.constant.int"() {value = 96 : i64} : () -> !torch.int
  %19 = "torch.aten.size.int"(%10, %7) : (!torch.vtensor<[?,48],si32>, !torch.int) -> !torch.int
  %20 = "torch.prim.ListConstruct"(%19, %18) : (!torch.int, !torch.int) -> !torch.list<int>
  %21 = "torch.aten.reshape"(%17, %20) : (!torch.vtensor<[?,48,2],si32>, !torch.list<int>) -> !torch.vtensor<[?,96],si32>
  %22 = "torch.aten.index_select"(%arg3, %7, %6) : (!torch.vtensor<[100,2],ui8>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,2],ui8>
  %23 = "torch.aten.to.dtype"(%22, %9, %1, %1, %2) : (!torch.vtensor<[?,2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,2],si32>
  %24 = "torch.aten.remainder.Scalar"(%23, %11) : (!torch.vtensor<[?,2],si32>, !torch.int) -> !torch.vtensor<[?,2],si32>
  %25 = "torch.aten.div.Scalar_mode"(%23, %11, %13) : (!torch.vtensor<[?,2],si32>, !torch.int, !torch.str) -> !torch.vtensor<[?,2],si32>
  %26 = "torch.prim.ListConstruct"(%24, %25) : (!torch.vtensor<[?,2],si32>, !torch.vtensor<[?,2],si32>) -> !torch.list<vtensor>
  %27 = "torch.aten.stack"(%26, %16) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[?,2,2],si32>
  %28 = "torch.aten.size.int"(%23, %7) : (!torch.vtensor<[?,2],si32>, !torch.int) -> !torch.int
  %29 = "torch.prim.ListConstruct"(%28, %0) : (!torch.int, !torch.int) -> !torch.list<int>
  %30 = "torch.aten.reshape"(%27, %29) : (!torch.vtensor<[?,2,2],si32>, !torch.list<int>) -> !torch.vtensor<[?,4],si32>
  %31 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %32 = "torch.aten.slice.Tensor"(%30, %31, %7, %9, %31) : (!torch.vtensor<[?,4],si32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,3],si32>
  %33 = "torch.aten.size.int"(%21, %7) : (!torch.vtensor<[?,96],si32>, !torch.int) -> !torch.int
  %34 = "torch.constant.int"() {value = 32 : i64} : () -> !torch.int
  %35 = "torch.prim.ListConstruct"(%33, %9, %34) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %36 = "torch.aten.reshape"(%21, %35) : (!torch.vtensor<[?,96],si32>, !torch.list<int>) -> !torch.vtensor<[?,3,32],si32>
  %37 = "torch.aten.unsqueeze"(%32, %16) : (!torch.vtensor<[?,3],si32>, !torch.int) -> !torch.vtensor<[?,3,1],si32>
  %38 = "torch.aten.sub.Tensor"(%36, %37, %31) : (!torch.vtensor<[?,3,32],si32>, !torch.vtensor<[?,3,1],si32>, !torch.int) -> !torch.vtensor<[?,3,32],si32>
  %39 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %40 = "torch.aten.to.dtype"(%38, %39, %1, %1, %2) : (!torch.vtensor<[?,3,32],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,3,32],f32>
  %41 = "torch.aten.index_select"(%arg2, %7, %6) : (!torch.vtensor<[100,3],f16>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,3],f16>
  %42 = "torch.aten.to.dtype"(%41, %39, %1, %1, %2) : (!torch.vtensor<[?,3],f16>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,3],f32>
  %43 = "torch.aten.unsqueeze"(%42, %16) : (!torch.vtensor<[?,3],f32>, !torch.int) -> !torch.vtensor<[?,3,1],f32>
  %44 = "torch.aten.mul.Tensor"(%40, %43) : (!torch.vtensor<[?,3,32],f32>, !torch.vtensor<[?,3,1],f32>) -> !torch.vtensor<[?,3,32],f32>
  %45 = "torch.prim.ListConstruct"(%33, %18) : (!torch.int, !torch.int) -> !torch.list<int>
  %46 = "torch.aten.reshape"(%44, %45) : (!torch.vtensor<[?,3,32],f32>, !torch.list<int>) -> !torch.vtensor<[?,96],f32>
  %47 = "torch.aten.size.int"(%arg1, %7) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.int
  %48 = "torch.aten.size.int"(%arg1, %31) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.int
  %49 = "torch.prim.ListConstruct"(%47, %48, %18) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %50 = "torch.aten.reshape"(%46, %49) : (!torch.vtensor<[?,96],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,96],f32>
  %51 = "torch.constant.int"() {value = 5 : i64} : () -> !torch.int
  %52 = "torch.aten.to.dtype"(%50, %51, %1, %1, %2) : (!torch.vtensor<[?,?,96],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?,96],f16>
  return %52 : !torch.vtensor<[?,?,96],f16>
}

// The codes are returned too: left alone.
// CHECK-LABEL: func.func @codes_read_elsewhere(
// CHECK-NOT: qlower.gather_block_quantized
// CHECK: torch.aten.index_select
// CHECK: return
func.func @codes_read_elsewhere(%arg0: !torch.vtensor<[10,64],ui8>, %arg1: !torch.vtensor<[2,3],si64>, %arg2: !torch.vtensor<[10,4],f32>) -> (!torch.vtensor<[2,3,64],f32>, !torch.vtensor<[6,64],si32>) {
  %0 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.reshape"(%arg1, %1) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %3 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %4 = "torch.aten.index_select"(%arg0, %3, %2) : (!torch.vtensor<[10,64],ui8>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,64],ui8>
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %7 = "torch.constant.none"() : () -> !torch.none
  %8 = "torch.aten.to.dtype"(%4, %5, %6, %6, %7) : (!torch.vtensor<[6,64],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,64],si32>
  %9 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %10 = "torch.constant.int"() {value = 16 : i64} : () -> !torch.int
  %11 = "torch.prim.ListConstruct"(%0, %9, %10) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %12 = "torch.aten.reshape"(%8, %11) : (!torch.vtensor<[6,64],si32>, !torch.list<int>) -> !torch.vtensor<[6,4,16],si32>
  %13 = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %14 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %15 = "torch.aten.sub.Scalar"(%12, %13, %14) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.int) -> !torch.vtensor<[6,4,16],si32>
  %16 = "torch.aten.to.dtype"(%15, %0, %6, %6, %7) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,4,16],f32>
  %17 = "torch.aten.index_select"(%arg2, %3, %2) : (!torch.vtensor<[10,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %18 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %19 = "torch.aten.unsqueeze"(%17, %18) : (!torch.vtensor<[6,4],f32>, !torch.int) -> !torch.vtensor<[6,4,1],f32>
  %20 = "torch.aten.mul.Tensor"(%16, %19) : (!torch.vtensor<[6,4,16],f32>, !torch.vtensor<[6,4,1],f32>) -> !torch.vtensor<[6,4,16],f32>
  %21 = "torch.constant.int"() {value = 64 : i64} : () -> !torch.int
  %22 = "torch.prim.ListConstruct"(%0, %21) : (!torch.int, !torch.int) -> !torch.list<int>
  %23 = "torch.aten.reshape"(%20, %22) : (!torch.vtensor<[6,4,16],f32>, !torch.list<int>) -> !torch.vtensor<[6,64],f32>
  %24 = "torch.prim.ListConstruct"(%18, %5, %21) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %25 = "torch.aten.reshape"(%23, %24) : (!torch.vtensor<[6,64],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,64],f32>
  return %25, %8 : !torch.vtensor<[2,3,64],f32>, !torch.vtensor<[6,64],si32>
}

// 127 is not the middle code of 8 bits: left alone.
// CHECK-LABEL: func.func @not_the_middle_code(
// CHECK-NOT: qlower.gather_block_quantized
// CHECK: torch.aten.sub.Scalar
func.func @not_the_middle_code(%arg0: !torch.vtensor<[10,64],ui8>, %arg1: !torch.vtensor<[2,3],si64>, %arg2: !torch.vtensor<[10,4],f32>) -> (!torch.vtensor<[2,3,64],f32>) {
  %0 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %1 = "torch.prim.ListConstruct"(%0) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.reshape"(%arg1, %1) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %3 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %4 = "torch.aten.index_select"(%arg0, %3, %2) : (!torch.vtensor<[10,64],ui8>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,64],ui8>
  %5 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %6 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %7 = "torch.constant.none"() : () -> !torch.none
  %8 = "torch.aten.to.dtype"(%4, %5, %6, %6, %7) : (!torch.vtensor<[6,64],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,64],si32>
  %9 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %10 = "torch.constant.int"() {value = 16 : i64} : () -> !torch.int
  %11 = "torch.prim.ListConstruct"(%0, %9, %10) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %12 = "torch.aten.reshape"(%8, %11) : (!torch.vtensor<[6,64],si32>, !torch.list<int>) -> !torch.vtensor<[6,4,16],si32>
  %13 = "torch.constant.int"() {value = 127 : i64} : () -> !torch.int
  %14 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %15 = "torch.aten.sub.Scalar"(%12, %13, %14) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.int) -> !torch.vtensor<[6,4,16],si32>
  %16 = "torch.aten.to.dtype"(%15, %0, %6, %6, %7) : (!torch.vtensor<[6,4,16],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[6,4,16],f32>
  %17 = "torch.aten.index_select"(%arg2, %3, %2) : (!torch.vtensor<[10,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %18 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %19 = "torch.aten.unsqueeze"(%17, %18) : (!torch.vtensor<[6,4],f32>, !torch.int) -> !torch.vtensor<[6,4,1],f32>
  %20 = "torch.aten.mul.Tensor"(%16, %19) : (!torch.vtensor<[6,4,16],f32>, !torch.vtensor<[6,4,1],f32>) -> !torch.vtensor<[6,4,16],f32>
  %21 = "torch.constant.int"() {value = 64 : i64} : () -> !torch.int
  %22 = "torch.prim.ListConstruct"(%0, %21) : (!torch.int, !torch.int) -> !torch.list<int>
  %23 = "torch.aten.reshape"(%20, %22) : (!torch.vtensor<[6,4,16],f32>, !torch.list<int>) -> !torch.vtensor<[6,64],f32>
  %24 = "torch.prim.ListConstruct"(%18, %5, %21) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %25 = "torch.aten.reshape"(%23, %24) : (!torch.vtensor<[6,64],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,64],f32>
  return %25 : !torch.vtensor<[2,3,64],f32>
}
