// Text that is not MLIR gives one error with MLIR's own message and its location.
// RUN: not qlower-opt %s 2>&1 | FileCheck %s

// CHECK: {{^}}error: cannot parse '{{.*}}parse_error.mlir' as MLIR: {{.*}}parse_error.mlir:{{[0-9]+}}:{{[0-9]+}}: {{.+}}
// CHECK-NOT: {{.}}
func.func @broken( {
