// A module that parses but does not verify is refused with the verifier's message.
// RUN: not qlower-opt %s 2>&1 | FileCheck %s

// CHECK: {{^}}error: cannot parse '{{.*}}verify_error.mlir' as MLIR: {{.*}}verify_error.mlir:{{[0-9]+}}:{{[0-9]+}}: type of return operand 0
func.func @wrong(%arg0: !torch.vtensor<[2],f32>) -> !torch.vtensor<[3],f32> {
  return %arg0 : !torch.vtensor<[2],f32>
}
