// compose-lookups: a quantized product or sum of x and a one-row table lookup of x is a
// function of x alone, and becomes one qlower.qlinear_lookup of x with the product's
// scale and zero point; the table is the product's kernel evaluated on every byte.
// RUN: qlower-opt --split-input-file --compose-lookups --dce %s | FileCheck %s

// CHECK-LABEL: func.func @silu(
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 2.500000e-01 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK-DAG: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[T:.+]] = "torch.vtensor.literal"() {value = dense<"0x{{[0-9A-F]+}}"> : tensor<1x256xui8>}
// CHECK: %[[Y:.+]] = "qlower.qlinear_lookup"(%arg0, %[[T]], %[[AXIS]], %[[YS]], %[[YZ]]) : {{.+}} -> !torch.vtensor<[2,3],!torch.quint8>
// CHECK-NOT: qlower.qlinear_mul
// CHECK: return %[[Y]]
func.func @silu(%arg0: !torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],!torch.quint8> {
  %t = "torch.vtensor.literal"() {value = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"> : tensor<1x256xui8>} : () -> !torch.vtensor<[1,256],ui8>
  %axis = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %l = "qlower.qlinear_lookup"(%arg0, %t, %axis, %s, %z) : (!torch.vtensor<[2,3],!torch.quint8>, !torch.vtensor<[1,256],ui8>, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  %ys = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int
  %y = "qlower.qlinear_mul"(%arg0, %s, %z, %l, %s, %z, %ys, %yz) : (!torch.vtensor<[2,3],!torch.quint8>, !torch.float, !torch.int, !torch.vtensor<[2,3],!torch.quint8>, !torch.float, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  return %y : !torch.vtensor<[2,3],!torch.quint8>
}

// -----

// Left alone: the lookup reads another tensor than the product's other operand.
// CHECK-LABEL: func.func @other_tensor(
// CHECK: "qlower.qlinear_add"
func.func @other_tensor(%arg0: !torch.vtensor<[2,3],!torch.quint8>, %arg1: !torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],!torch.quint8> {
  %t = "torch.vtensor.literal"() {value = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"> : tensor<1x256xui8>} : () -> !torch.vtensor<[1,256],ui8>
  %axis = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %l = "qlower.qlinear_lookup"(%arg1, %t, %axis, %s, %z) : (!torch.vtensor<[2,3],!torch.quint8>, !torch.vtensor<[1,256],ui8>, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  %y = "qlower.qlinear_add"(%arg0, %s, %z, %l, %s, %z, %s, %z) : (!torch.vtensor<[2,3],!torch.quint8>, !torch.float, !torch.int, !torch.vtensor<[2,3],!torch.quint8>, !torch.float, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  return %y : !torch.vtensor<[2,3],!torch.quint8>
}
