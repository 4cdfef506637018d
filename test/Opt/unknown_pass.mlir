// A pass flag qlower-opt does not know is an error with exit code 1.
// RUN: not qlower-opt --no-such-pass %s 2>&1 | FileCheck %s

// CHECK: error: unexpected argument '--no-such-pass' found
func.func @f() {
  return
}
