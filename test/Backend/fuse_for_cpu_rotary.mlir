// fuse-for-cpu, rotary embedding: the rotation conversion/attention/rotary.rs writes
// (x1·cos − x2·sin, x2·cos + x1·sin over split halves or interleaved pairs, a partial
// rotary dimension concatenated with the rest of x) becomes one
// qlower.rotary_embedding(x, cos, sin, rotary, interleaved, perm). Anything else, or
// an intermediate with another reader, is left as it is.
// RUN: qlower-opt --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @split_halves(
// CHECK: %[[R:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK: %[[I:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[P:.+]] = "torch.constant.none"
// CHECK: %[[Y:.+]] = "qlower.rotary_embedding"(%arg0, %arg1, %arg2, %[[R]], %[[I]], %[[P]])
// CHECK-NOT: torch.aten.mul.Tensor
// CHECK-NOT: torch.aten.cat
// CHECK: return %[[Y]]
func.func @split_halves(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> (!torch.vtensor<[2,5,4,8],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %x1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,8],f32>
  return %y : !torch.vtensor<[2,5,4,8],f32>
}

// The interleaved form: x reshaped to pairs, both read by select, the halves stacked
// and reshaped back, each size the input's own.
// CHECK-LABEL: func.func @interleaved(
// CHECK: %[[I:.+]] = "torch.constant.bool"() {value = true}
// CHECK: "qlower.rotary_embedding"(%arg0, %arg1, %arg2, %{{.+}}, %[[I]], %{{.+}})
// CHECK-NOT: torch.aten.stack
func.func @interleaved(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,8],f32> {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %d0 = "torch.aten.size.int"(%x, %c0) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int) -> !torch.int
  %d1 = "torch.aten.size.int"(%x, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int) -> !torch.int
  %sp = "torch.prim.ListConstruct"(%d0, %d1, %c4, %c4, %c2) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %pairs = "torch.aten.reshape"(%x, %sp) : (!torch.vtensor<[2,5,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[2,5,4,4,2],f32>
  %x1 = "torch.aten.select.int"(%pairs, %c4, %c0) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.select.int"(%pairs, %c4, %c1) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m4, %m3, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %st = "torch.aten.stack"(%l, %c4) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,4,2],f32>
  %os = "torch.prim.ListConstruct"(%d0, %d1, %c4, %c8) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %y = "torch.aten.reshape"(%st, %os) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.list<int>) -> !torch.vtensor<[2,5,4,8],f32>
  return %y : !torch.vtensor<[2,5,4,8],f32>
}

// A partial rotary dimension: the first 4 of 8 features rotated, the rest
// concatenated after them; the fused op reads x itself.
// CHECK-LABEL: func.func @partial(
// CHECK: %[[R:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[Y:.+]] = "qlower.rotary_embedding"(%arg0, %arg1, %arg2, %[[R]], %{{.+}}, %{{.+}})
// CHECK-NOT: torch.aten.cat
// CHECK: return %[[Y]]
func.func @partial(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,2],f32>, %sin: !torch.vtensor<[2,5,1,2],f32>) -> (!torch.vtensor<[2,5,4,8],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %part = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x1 = "torch.aten.slice.Tensor"(%part, %c3, %c0, %c2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,2],f32>
  %x2 = "torch.aten.slice.Tensor"(%part, %c3, %c2, %c4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,2],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,1,2],f32>) -> !torch.vtensor<[2,5,4,2],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,1,2],f32>) -> !torch.vtensor<[2,5,4,2],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,4,2],f32>, !torch.int) -> !torch.vtensor<[2,5,4,2],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,1,2],f32>) -> !torch.vtensor<[2,5,4,2],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,1,2],f32>) -> !torch.vtensor<[2,5,4,2],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,4,2],f32>, !torch.int) -> !torch.vtensor<[2,5,4,2],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,2],f32>, !torch.vtensor<[2,5,4,2],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %rest = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l2 = "torch.prim.ListConstruct"(%y, %rest) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %z = "torch.aten.cat"(%l2, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,8],f32>
  return %z : !torch.vtensor<[2,5,4,8],f32>
}

// GroupQueryAttention's halves after propagate-permutes: each slice of [B, S, N, H]
// permuted to [B, N, S, H]; the kernel reads x through the permutation.
// CHECK-LABEL: func.func @read_through_a_permute(
// CHECK: %[[PERM:.+]] = "torch.prim.ListConstruct"
// CHECK: "qlower.rotary_embedding"(%arg0, %arg1, %arg2, %{{.+}}, %{{.+}}, %[[PERM]]) : {{.+}} -> !torch.vtensor<[2,4,5,8],f32>
// CHECK-NOT: torch.aten.permute
func.func @read_through_a_permute(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,1,5,4],f32>, %sin: !torch.vtensor<[2,1,5,4],f32>) -> (!torch.vtensor<[2,4,5,8],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %s1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %s2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %perm = "torch.prim.ListConstruct"(%c0, %c2, %c1, %c3) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %x1 = "torch.aten.permute"(%s1, %perm) : (!torch.vtensor<[2,5,4,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,4,5,4],f32>
  %x2 = "torch.aten.permute"(%s2, %perm) : (!torch.vtensor<[2,5,4,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,4,5,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,1,5,4],f32>) -> !torch.vtensor<[2,4,5,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,1,5,4],f32>) -> !torch.vtensor<[2,4,5,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,4,5,4],f32>, !torch.int) -> !torch.vtensor<[2,4,5,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,1,5,4],f32>) -> !torch.vtensor<[2,4,5,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,1,5,4],f32>) -> !torch.vtensor<[2,4,5,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,4,5,4],f32>, !torch.int) -> !torch.vtensor<[2,4,5,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,4,5,4],f32>, !torch.vtensor<[2,4,5,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,4,5,8],f32>
  return %y : !torch.vtensor<[2,4,5,8],f32>
}

// Left alone: x2·sin − x1·cos (another rotation), a difference with alpha 2, a
// product also returned (it must exist), a cat along another axis, and the pairs
// selected the other way round.
// CHECK-LABEL: func.func @difference_the_wrong_way_round(
// CHECK-NOT: qlower.rotary_embedding
// CHECK: torch.aten.cat
// CHECK-LABEL: func.func @alpha_not_one(
// CHECK-NOT: qlower.rotary_embedding
// CHECK: torch.aten.cat
// CHECK-LABEL: func.func @product_returned(
// CHECK-NOT: qlower.rotary_embedding
// CHECK: torch.aten.cat
// CHECK-LABEL: func.func @cat_not_along_the_last_axis(
// CHECK-NOT: qlower.rotary_embedding
// CHECK: torch.aten.cat
// CHECK-LABEL: func.func @pairs_swapped(
// CHECK-NOT: qlower.rotary_embedding
// CHECK: torch.aten.stack
func.func @difference_the_wrong_way_round(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> (!torch.vtensor<[2,5,4,8],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %x1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m2, %m1, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,8],f32>
  return %y : !torch.vtensor<[2,5,4,8],f32>
}

func.func @alpha_not_one(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> (!torch.vtensor<[2,5,4,8],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %x1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c2) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,8],f32>
  return %y : !torch.vtensor<[2,5,4,8],f32>
}

func.func @product_returned(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> (!torch.vtensor<[2,5,4,8],f32>, !torch.vtensor<[2,5,4,4],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %x1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c3) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,8],f32>
  return %y, %m1 : !torch.vtensor<[2,5,4,8],f32>, !torch.vtensor<[2,5,4,4],f32>
}

func.func @cat_not_along_the_last_axis(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> (!torch.vtensor<[2,5,8,4],f32>) {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %x1 = "torch.aten.slice.Tensor"(%x, %c3, %c0, %c4, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.slice.Tensor"(%x, %c3, %c4, %c8, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m3, %m4, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %y = "torch.aten.cat"(%l, %c2) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,8,4],f32>
  return %y : !torch.vtensor<[2,5,8,4],f32>
}

func.func @pairs_swapped(%x: !torch.vtensor<[2,5,4,8],f32>, %cos: !torch.vtensor<[2,5,1,4],f32>, %sin: !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,8],f32> {
  %c0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %c1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %c2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %c3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %c4 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %c8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %d0 = "torch.aten.size.int"(%x, %c0) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int) -> !torch.int
  %d1 = "torch.aten.size.int"(%x, %c1) : (!torch.vtensor<[2,5,4,8],f32>, !torch.int) -> !torch.int
  %sp = "torch.prim.ListConstruct"(%d0, %d1, %c4, %c4, %c2) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %pairs = "torch.aten.reshape"(%x, %sp) : (!torch.vtensor<[2,5,4,8],f32>, !torch.list<int>) -> !torch.vtensor<[2,5,4,4,2],f32>
  %x1 = "torch.aten.select.int"(%pairs, %c4, %c1) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %x2 = "torch.aten.select.int"(%pairs, %c4, %c0) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m1 = "torch.aten.mul.Tensor"(%x1, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m2 = "torch.aten.mul.Tensor"(%x2, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %first = "torch.aten.sub.Tensor"(%m1, %m2, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %m3 = "torch.aten.mul.Tensor"(%x2, %cos) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %m4 = "torch.aten.mul.Tensor"(%x1, %sin) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,1,4],f32>) -> !torch.vtensor<[2,5,4,4],f32>
  %second = "torch.aten.add.Tensor"(%m4, %m3, %c1) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>, !torch.int) -> !torch.vtensor<[2,5,4,4],f32>
  %l = "torch.prim.ListConstruct"(%first, %second) : (!torch.vtensor<[2,5,4,4],f32>, !torch.vtensor<[2,5,4,4],f32>) -> !torch.list<vtensor>
  %st = "torch.aten.stack"(%l, %c4) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,5,4,4,2],f32>
  %os = "torch.prim.ListConstruct"(%d0, %d1, %c4, %c8) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %y = "torch.aten.reshape"(%st, %os) : (!torch.vtensor<[2,5,4,4,2],f32>, !torch.list<int>) -> !torch.vtensor<[2,5,4,8],f32>
  return %y : !torch.vtensor<[2,5,4,8],f32>
}
