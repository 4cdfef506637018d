// expand-recurrent writes a DynamicQuantizeLSTM's qlower.lstm (X and the int8 weights
// quantized tensors, W and R already transposed as [D, I, 4H] / [D, H, 4H]) as a
// torch.prim.Loop over the dequantized X and weights, in which H is quantized from its
// own range at every step before its product with R, in the form torch-mlir's importer
// writes (quantize_per_tensor, int_repr, _make_per_tensor_quantized_tensor,
// dequantize.self). An H of zeros takes scale 1 (where.ScalarSelf), not 0.
// RUN: qlower-opt --expand-recurrent %s | FileCheck %s

// CHECK-LABEL: func.func @dynamic_lstm
// CHECK: %[[X:.*]] = "torch.aten.dequantize.self"(%arg0) : (!torch.vtensor<[?,1,1],!torch.quint8>) -> !torch.vtensor<[?,1,1],f32>
// CHECK: %[[W:.*]] = "torch.aten.dequantize.self"(%{{.*}}) : (!torch.vtensor<[1,1,4],!torch.qint8>) -> !torch.vtensor<[1,1,4],f32>
// CHECK: %[[R:.*]] = "torch.aten.dequantize.self"(%{{.*}}) : (!torch.vtensor<[1,1,4],!torch.qint8>) -> !torch.vtensor<[1,1,4],f32>
// CHECK: %[[T:.*]] = "torch.aten.size.int"(%[[X]],
// CHECK: %[[WD:.*]] = "torch.aten.select.int"(%[[W]], %{{.*}}, %{{.*}}) : {{.*}} -> !torch.vtensor<[1,4],f32>
// CHECK: %[[RD:.*]] = "torch.aten.select.int"(%[[R]], %{{.*}}, %{{.*}}) : {{.*}} -> !torch.vtensor<[1,4],f32>
// CHECK: "torch.prim.Loop"(%[[T]],
// CHECK: ^bb0(%[[I:.*]]: !torch.int, %[[H:.*]]: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[1,1],f32>, %{{.*}}: !torch.vtensor<[?,1,1],f32>):
// CHECK: %[[XT:.*]] = "torch.aten.select.int"(%[[X]], %{{.*}}, %[[I]])
// CHECK: "torch.aten.matmul"(%[[XT]], %[[WD]])
// CHECK: "torch.aten.min"(%[[H]])
// CHECK: "torch.aten.max"(%[[H]])
// CHECK: %[[EMPTY:.*]] = "torch.aten.eq.Scalar"
// CHECK: %[[SCALE:.*]] = "torch.aten.where.ScalarSelf"(%[[EMPTY]],
// CHECK: "torch.aten.to.dtype"{{.*}} -> !torch.vtensor<[],si64>
// CHECK: %[[S:.*]] = "torch.aten.item"(%[[SCALE]]) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[Z:.*]] = "torch.aten.item"
// CHECK: %[[Q:.*]] = "torch.aten.quantize_per_tensor"(%[[H]], %[[S]], %[[Z]], %{{.*}}) : {{.*}} -> !torch.vtensor<[1,1],!torch.quint8>
// CHECK: %[[INTS:.*]] = "torch.aten.int_repr"(%[[Q]]) : {{.*}} -> !torch.vtensor<[1,1],ui8>
// CHECK: %[[MADE:.*]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[INTS]], %[[S]], %[[Z]])
// CHECK: %[[HQ:.*]] = "torch.aten.dequantize.self"(%[[MADE]]) : {{.*}} -> !torch.vtensor<[1,1],f32>
// CHECK: "torch.aten.matmul"(%[[HQ]], %[[RD]])
// CHECK: "torch.aten.index_put"
// CHECK: "torch.prim.Loop.condition"
// CHECK-NOT: qlower.lstm
// CHECK: return

module {
  func.func @dynamic_lstm(%arg0: !torch.vtensor<[?,1,1],!torch.quint8> {onnx.name = "X"}) -> (!torch.vtensor<[?,1,1,1],f32> {onnx.name = "Y"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yh"}, !torch.vtensor<[1,1,1],f32> {onnx.name = "Yc"}) attributes {torch.onnx_meta.ir_version = 8 : si64, torch.onnx_meta.opset_version = 14 : si64, torch.onnx_meta.producer_name = "", torch.onnx_meta.producer_version = ""} {
    %0 = "torch.vtensor.literal"() {value = dense<[[[3, -2, 5, 1]]]> : tensor<1x1x4xsi8>} : () -> !torch.vtensor<[1,1,4],si8>
    %1 = "torch.vtensor.literal"() {value = dense<[[[-4, 2, 7, -1]]]> : tensor<1x1x4xsi8>} : () -> !torch.vtensor<[1,1,4],si8>
    %2 = "torch.constant.float"() {value = 0.01 : f64} : () -> !torch.float
    %3 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %4 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %2, %3) : (!torch.vtensor<[1,1,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,4],!torch.qint8>
    %5 = "torch.aten._make_per_tensor_quantized_tensor"(%1, %2, %3) : (!torch.vtensor<[1,1,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,4],!torch.qint8>
    %6 = "torch.constant.none"() : () -> !torch.none
    %7 = "torch.constant.str"() {value = "forward"} : () -> !torch.str
    %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %9 = "torch.constant.str"() {value = "Sigmoid,Tanh,Tanh"} : () -> !torch.str
    %10 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %11 = "torch.prim.ListConstruct"(%10, %10, %10) : (!torch.float, !torch.float, !torch.float) -> !torch.list<float>
    %12:3 = "torch.operator"(%arg0, %4, %5, %6, %6, %6, %6, %6, %7, %8, %3, %6, %3, %9, %11, %11) {name = "qlower.lstm"} : (!torch.vtensor<[?,1,1],!torch.quint8>, !torch.vtensor<[1,1,4],!torch.qint8>, !torch.vtensor<[1,1,4],!torch.qint8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.str, !torch.int, !torch.int, !torch.none, !torch.int, !torch.str, !torch.list<float>, !torch.list<float>) -> (!torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
    return %12#0, %12#1, %12#2 : !torch.vtensor<[?,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>, !torch.vtensor<[1,1,1],f32>
  }
}
