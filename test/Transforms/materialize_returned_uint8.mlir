// materialize-returned-uint8: a uint8 literal that the function returns becomes
// int_repr(quantize_per_tensor(f32 literal, 1.0, 0, quint8)) with the same values
// (torch-mlir folds a returned uint8 constant into a literal it types si8). Its other
// readers take the new value too; a returned int8 literal stays as it is. Running
// either form gives the same bytes.
// RUN: qlower-opt --materialize-returned-uint8 %s | FileCheck %s
// RUN: qlower-opt --materialize-returned-uint8 %s -o %t.mlir
// RUN: qlower run %t.mlir --out-dir %t.out && qlower run %s --out-dir %t.ref
// RUN: cmp %t.out/zp.npy %t.ref/zp.npy && cmp %t.out/bytes.npy %t.ref/bytes.npy

// CHECK-LABEL: func.func @returned
// CHECK: %[[F:.*]] = "torch.vtensor.literal"() {value = dense<[0.000000e+00, 1.280000e+02, 2.550000e+02]> : tensor<3xf32>}
// CHECK: %[[Q:.*]] = "torch.aten.quantize_per_tensor"(%[[F]], %{{.*}}, %{{.*}}, %{{.*}}) : (!torch.vtensor<[3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3],!torch.quint8>
// CHECK: %[[B:.*]] = "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[3],!torch.quint8>) -> !torch.vtensor<[3],ui8>
// CHECK: "torch.aten.add.Tensor"(%[[B]],
// CHECK: "torch.vtensor.literal"() {value = dense<-3> : tensor<si8>}
// CHECK: return %[[B]], %{{.*}}, %{{.*}} :
module {
  func.func @returned() -> (!torch.vtensor<[3],ui8> {onnx.name = "bytes"}, !torch.vtensor<[3],ui8> {onnx.name = "sum"}, !torch.vtensor<[],si8> {onnx.name = "zp"}) {
    %0 = "torch.vtensor.literal"() {value = dense<[0, 128, 255]> : tensor<3xui8>} : () -> !torch.vtensor<[3],ui8>
    %1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %2 = "torch.aten.add.Tensor"(%0, %0, %1) : (!torch.vtensor<[3],ui8>, !torch.vtensor<[3],ui8>, !torch.int) -> !torch.vtensor<[3],ui8>
    %3 = "torch.vtensor.literal"() {value = dense<-3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
    return %0, %2, %3 : !torch.vtensor<[3],ui8>, !torch.vtensor<[3],ui8>, !torch.vtensor<[],si8>
  }
}
