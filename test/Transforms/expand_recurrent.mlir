// expand-recurrent writes a qlower.lstm or qlower.gru as one torch.prim.Loop per
// direction over the time steps (T read from X at run time), the cell in torch ops, H
// written into Y with an index_put; a reverse direction reads step T-1-t. Directions are
// stacked on Y's axis 1 and the states' axis 0. With sequence_lens, a reverse direction
// gathers X into each entry's reversed order, the loop masks the steps past an entry's
// length (states kept, zeros written), Y is gathered back, and an empty sequence ends
// with zero states. A layer the pass cannot read (here: a clip that is not a constant)
// stays qlower.lstm.
// RUN: qlower-opt --expand-recurrent %s | FileCheck %s

// CHECK-LABEL: func.func @bidirectional
// CHECK: %[[T:.*]] = "torch.aten.size.int"(%arg0,
// CHECK: %[[FWD:.*]]:3 = "torch.prim.Loop"(%[[T]],
// CHECK: ^bb0(%[[I:.*]]: !torch.int, %{{.*}}: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[?,1,1],f32>):
// CHECK: "torch.aten.select.int"(%arg0, %{{.*}}, %[[I]])
// CHECK: "torch.aten.matmul"
// CHECK: "torch.aten.matmul"
// CHECK: "torch.aten.sigmoid"
// CHECK: "torch.aten.sigmoid"
// CHECK: "torch.aten.tanh"
// CHECK: "torch.aten.sigmoid"
// CHECK: "torch.aten.tanh"
// CHECK: "torch.aten.index_put"
// CHECK: "torch.prim.Loop.condition"
// CHECK: %[[BWD:.*]]:3 = "torch.prim.Loop"(%[[T]],
// CHECK: %[[LAST:.*]] = "torch.aten.sub.int"(%[[T]],
// CHECK: %[[ROW:.*]] = "torch.aten.sub.int"(%[[LAST]],
// CHECK: "torch.aten.select.int"(%arg0, %{{.*}}, %[[ROW]])
// CHECK: "torch.prim.ListConstruct"(%[[FWD]]#2, %[[BWD]]#2)
// CHECK: "torch.aten.stack"{{.*}} -> !torch.vtensor<[?,2,1,1],f32>
// CHECK-NOT: qlower.lstm
// CHECK: return

// CHECK-LABEL: func.func @gru_reverse
// CHECK: %[[T:.*]] = "torch.aten.size.int"(%arg0,
// CHECK: %[[L:.*]]:2 = "torch.prim.Loop"(%[[T]],
// CHECK: ^bb0(%[[I:.*]]: !torch.int, %[[H:.*]]: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[?,1,1],f32>):
// CHECK: %[[LAST:.*]] = "torch.aten.sub.int"(%[[T]],
// CHECK: %[[ROW:.*]] = "torch.aten.sub.int"(%[[LAST]], %[[I]])
// CHECK: "torch.aten.matmul"
// CHECK: "torch.aten.matmul"(%[[H]],
// CHECK: "torch.aten.sigmoid"
// CHECK: "torch.aten.sigmoid"
// CHECK: %[[RESET:.*]] = "torch.aten.mul.Tensor"(%{{.*}}, %[[H]])
// CHECK: "torch.aten.matmul"(%[[RESET]],
// CHECK: "torch.aten.tanh"
// CHECK: "torch.aten.index_put"
// CHECK: "torch.prim.Loop.condition"
// CHECK: "torch.aten.unsqueeze"(%[[L]]#1,
// CHECK: "torch.aten.unsqueeze"(%[[L]]#0,
// CHECK-NOT: qlower.gru
// CHECK: return

// CHECK-LABEL: func.func @with_sequence_lens
// CHECK: %[[LEN:.*]] = "torch.aten.to.dtype"(%arg1, {{.*}} -> !torch.vtensor<[1],si64>
// CHECK: "torch.aten.arange.start_step"
// CHECK: %[[ORDER:.*]] = "torch.aten.where.self"({{.*}} -> !torch.vtensor<[?,1],si64>
// CHECK: %[[XR:.*]] = "torch.aten.gather"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) : {{.*}} -> !torch.vtensor<[?,1,1],f32>
// CHECK: %[[L:.*]]:3 = "torch.prim.Loop"(
// CHECK: ^bb0(%[[I:.*]]: !torch.int, %[[H:.*]]: !torch.vtensor<[1,1],f32>, %[[C:.*]]: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[?,1,1],f32>):
// CHECK: "torch.aten.select.int"(%[[XR]], %{{.*}}, %[[I]])
// CHECK: %[[ACTIVE:.*]] = "torch.aten.gt.Scalar"(%[[LEN]], %[[I]])
// CHECK: %[[ACTIVE2:.*]] = "torch.aten.unsqueeze"(%[[ACTIVE]],
// CHECK: "torch.aten.where.self"(%[[ACTIVE2]], %{{.*}}, %[[H]])
// CHECK: "torch.aten.where.self"(%[[ACTIVE2]], %{{.*}}, %[[C]])
// CHECK: "torch.aten.where.ScalarOther"(%[[ACTIVE2]],
// CHECK: "torch.aten.index_put"
// CHECK: "torch.prim.Loop.condition"
// CHECK: "torch.aten.gather"(%[[L]]#2,
// CHECK: "torch.aten.gt.Scalar"(%[[LEN]],
// CHECK: "torch.aten.where.ScalarOther"({{.*}}%[[L]]#0,
// CHECK-NOT: qlower.lstm
// CHECK: return

// CHECK-LABEL: func.func @clip_not_constant
// CHECK-NOT: torch.prim.Loop
// CHECK: {name = "qlower.lstm"}

// CHECK-LABEL: func.func @batch_first_peepholes_clip
// CHECK: %[[X:.*]] = "torch.aten.transpose.int"(%arg0, {{.*}} -> !torch.vtensor<[?,1,1],f32>
// CHECK: %[[P:.*]] = "torch.aten.select.int"(%{{.*}}) : {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[PI:.*]] = "torch.aten.slice.Tensor"(%[[P]],
// CHECK: %[[PO:.*]] = "torch.aten.slice.Tensor"(%[[P]],
// CHECK: "torch.prim.Loop"(
// CHECK: ^bb0(%{{.*}}: !torch.int, %{{.*}}: !torch.vtensor<[1,1],f32>, %[[C:.*]]: !torch.vtensor<[1,1],f32>,
// CHECK: "torch.aten.mul.Tensor"(%[[PI]], %[[C]])
// CHECK: "torch.aten.clamp"
// CHECK: %[[I:.*]] = "torch.aten.clamp"
// CHECK: %[[F:.*]] = "torch.aten.rsub.Scalar"(%[[I]],
// CHECK: "torch.aten.abs"
// CHECK: "torch.aten.mul.Tensor"(%[[F]], %[[C]])
// CHECK: %[[C2:.*]] = "torch.aten.add.Tensor"
// CHECK: "torch.aten.mul.Tensor"(%[[PO]], %[[C2]])
// CHECK: "torch.aten.mul.Scalar"(%[[C2]],
// CHECK: "torch.prim.Loop.condition"
// CHECK: "torch.aten.permute"({{.*}} -> !torch.vtensor<[1,?,1,1],f32>
// CHECK: "torch.aten.transpose.int"({{.*}} -> !torch.vtensor<[1,1,1],f32>
// CHECK-NOT: qlower.lstm
// CHECK: return

module {
  func.func @bidirectional(%arg0: !torch.vtensor<[?,1,1],f32> {onnx.name = "X"}) -> (!torch.vtensor<[?,2,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[2,1,1],f32> {onnx.name = "Yh"}, !torch.vtensor<[2,1,1],f32> {onnx.name = "Yc"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<2x4x1xf32>} : () -> !torch.vtensor<[2,4,1],f32>
    %1 = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<2x4x1xf32>} : () -> !torch.vtensor<[2,4,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<0.000000e+00> : tensor<2x8xf32>} : () -> !torch.vtensor<[2,8],f32>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.str"() {value = "bidirectional"} : () -> !torch.str
    %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %7 = "torch.constant.str"() {value = "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh"} : () -> !torch.str
    %8 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %9 = "torch.prim.ListConstruct"(%8, %8, %8, %8, %8, %8) : (!torch.float, !torch.float, !torch.float, !torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %10:3 = "torch.operator"(%arg0, %0, %1, %2, %3, %3, %3, %3, %4, %5, %6, %3, %6, %7, %9, %9) {name = "qlower.lstm"} : (!torch.vtensor<[?,1,1],f32>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,8],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.str, !torch.int, !torch.int, !torch.none, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[?,2,1,1],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>)
    return %10#0, %10#1, %10#2 : !torch.vtensor<[?,2,1,1],f32>, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[2,1,1],f32>
  }
  func.func @gru_reverse(%arg0: !torch.vtensor<[?,1,1],f32> {onnx.name = "X"}) -> (!torch.vtensor<[?,1,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yh"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<1x3x1xf32>} : () -> !torch.vtensor<[1,3,1],f32>
    %1 = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<1x3x1xf32>} : () -> !torch.vtensor<[1,3,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<0.000000e+00> : tensor<1x6xf32>} : () -> !torch.vtensor<[1,6],f32>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.str"() {value = "reverse"} : () -> !torch.str
    %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %7 = "torch.constant.str"() {value = "Sigmoid,Tanh"} : () -> !torch.str
    %8 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %9 = "torch.prim.ListConstruct"(%8, %8) : (!torch.float, !torch.float) -> !torch.list<float>
    %10:2 = "torch.operator"(%arg0, %0, %1, %2, %3, %3, %4, %5, %6, %3, %6, %7, %9, %9) {name = "qlower.gru"} : (!torch.vtensor<[?,1,1],f32>, !torch.vtensor<[1,3,1],f32>, !torch.vtensor<[1,3,1],f32>, !torch.vtensor<[1,6],f32>, !torch.none, !torch.none, !torch.str, !torch.int, !torch.int, !torch.none, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
    return %10#0, %10#1 : !torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
  }
  func.func @with_sequence_lens(%arg0: !torch.vtensor<[?,1,1],f32> {onnx.name = "X"}, %arg1: !torch.vtensor<[1],si32> {onnx.name = "s"}) -> (!torch.vtensor<[?,1,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yh"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yc"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %1 = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<0.000000e+00> : tensor<1x8xf32>} : () -> !torch.vtensor<[1,8],f32>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.str"() {value = "reverse"} : () -> !torch.str
    %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %7 = "torch.constant.str"() {value = "Sigmoid,Tanh,Tanh"} : () -> !torch.str
    %8 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %9 = "torch.prim.ListConstruct"(%8, %8, %8) : (!torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %10:3 = "torch.operator"(%arg0, %0, %1, %2, %arg1, %3, %3, %3, %4, %5, %6, %3, %6, %7, %9, %9) {name = "qlower.lstm"} : (!torch.vtensor<[?,1,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.vtensor<[1,8],f32>, !torch.vtensor<[1],si32>, !torch.none, !torch.none, !torch.none, !torch.str, !torch.int, !torch.int, !torch.none, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
    return %10#0, %10#1, %10#2 : !torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
  }
  func.func @clip_not_constant(%arg0: !torch.vtensor<[?,1,1],f32> {onnx.name = "X"}, %arg1: !torch.float) -> (!torch.vtensor<[?,1,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yh"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yc"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %1 = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<0.000000e+00> : tensor<1x8xf32>} : () -> !torch.vtensor<[1,8],f32>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.str"() {value = "reverse"} : () -> !torch.str
    %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %7 = "torch.constant.str"() {value = "Sigmoid,Tanh,Tanh"} : () -> !torch.str
    %8 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %9 = "torch.prim.ListConstruct"(%8, %8, %8) : (!torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %10:3 = "torch.operator"(%arg0, %0, %1, %2, %3, %3, %3, %3, %4, %5, %6, %arg1, %6, %7, %9, %9) {name = "qlower.lstm"} : (!torch.vtensor<[?,1,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.vtensor<[1,8],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.str, !torch.int, !torch.int, !torch.float, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
    return %10#0, %10#1, %10#2 : !torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
  }
  func.func @batch_first_peepholes_clip(%arg0: !torch.vtensor<[1,?,1],f32> {onnx.name = "X"}) -> (!torch.vtensor<[1,?,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yh"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yc"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %1 = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<1x4x1xf32>} : () -> !torch.vtensor<[1,4,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>} : () -> !torch.vtensor<[1,3],f32>
    %3 = "torch.constant.none"() : () -> !torch.none
    %4 = "torch.constant.str"() {value = "forward"} : () -> !torch.str
    %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %6 = "torch.constant.float"() {value = 2.000000e+00 : f64} : () -> !torch.float
    %7 = "torch.constant.str"() {value = "HardSigmoid,Softsign,Affine"} : () -> !torch.str
    %8 = "torch.constant.float"() {value = 3.000000e-01 : f64} : () -> !torch.float
    %9 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %10 = "torch.prim.ListConstruct"(%8, %9, %8) : (!torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %11 = "torch.prim.ListConstruct"(%8, %9, %9) : (!torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %12:3 = "torch.operator"(%arg0, %0, %1, %3, %3, %3, %3, %2, %4, %5, %5, %6, %5, %7, %10, %11) {name = "qlower.lstm"} : (!torch.vtensor<[1,?,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.vtensor<[1,4,1],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1,3],f32>, !torch.str, !torch.int, !torch.int, !torch.float, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[1,?,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
    return %12#0, %12#1, %12#2 : !torch.vtensor<[1,?,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
  }
}
