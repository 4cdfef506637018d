// fuse-for-cpu, (Q)EmbedLayerNormalization: the lowering's gathers of word, position
// and segment rows (reshaped to the ids' shape, dequantized after them for 8-bit
// tables), their sum and its layer_norm become one qlower.embed_layer_norm(gamma,
// beta, epsilon, (table, ids)...), a folded literal of position rows a term of its
// own with none for ids. When the sum is returned too (the op's third output) it is
// the fused op's second result. A term or the sum read before the norm, or another
// reader of a term, leaves the ops alone. Inputs: `qlower --emit fused` of one-node
// models with tiny constant tables.
// RUN: qlower-opt --sink-dequantize --dce %s | qlower-opt --fuse-for-cpu --dce | FileCheck %s

// CHECK-LABEL: func.func @static_three_terms_sum_returned(
// CHECK-DAG: %[[WORD:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[5,4],f32>
// CHECK-DAG: %[[SEG:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[2,4],f32>
// CHECK-DAG: %[[POS:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[1,3,4],f32>
// CHECK-DAG: %[[IDS:.+]] = "torch.aten.to.dtype"(%arg0
// CHECK-DAG: %[[SEGIDS:.+]] = "torch.aten.to.dtype"(%arg2
// CHECK: %[[Y:.+]]:2 = "qlower.embed_layer_norm"(%{{.+}}, %{{.+}}, %{{.+}}, %[[WORD]], %[[IDS]], %[[POS]], %{{.+}}, %[[SEG]], %[[SEGIDS]]) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.vtensor<[5,4],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[1,3,4],f32>, !torch.none, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3],si64>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>)
// CHECK-NOT: torch.aten.index_select
// CHECK-NOT: torch.aten.layer_norm
// CHECK: return %[[Y]]#0, %{{.+}}, %[[Y]]#1
func.func @static_three_terms_sum_returned(%arg0: !torch.vtensor<[2,3],si32>, %arg1: !torch.vtensor<[2,3],si32>, %arg2: !torch.vtensor<[2,3],si32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>) {
  %0 = "torch.vtensor.literal"() {value = dense<[[-0.89059186, -0.454670787, -0.991646528, 6.014360e-02], [1.34021521, -0.492206514, -0.620474874, 0.489842057], [3.568870e-01, 0.105414249, -9.304680e-01, -0.0292518232], [0.695303202, -1.34421456, -0.457615763, -1.90122271], [-1.28953779, -1.84173501, -0.235091135, -1.26744652]]> : tensor<5x4xf32>} : () -> !torch.vtensor<[5,4],f32>
  %1 = "torch.vtensor.literal"() {value = dense<[[-0.807534694, -0.0325217061, 0.884389877, -0.583600461], [-0.11170195, 0.110464141, 0.0637817755, -1.22505581]]> : tensor<2x4xf32>} : () -> !torch.vtensor<[2,4],f32>
  %2 = "torch.vtensor.literal"() {value = dense<[0.859382688, 0.119354025, -0.641470372, 2.00041652]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %3 = "torch.vtensor.literal"() {value = dense<[0.762259722, -1.19928885, 0.0745162293, 0.576689601]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %4 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %5 = "torch.constant.none"() : () -> !torch.none
  %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %7 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %8 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %9 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %10 = "torch.aten.to.dtype"(%arg0, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %11 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %12 = "torch.prim.ListConstruct"(%11) : (!torch.int) -> !torch.list<int>
  %13 = "torch.aten.reshape"(%10, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %14 = "torch.aten.index_select"(%0, %6, %13) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %15 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %16 = "torch.prim.ListConstruct"(%15, %4, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %17 = "torch.aten.reshape"(%14, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %18 = "torch.vtensor.literal"() {value = dense<[[[0.271264344, 0.156751081, -0.18693094, -2.51675963], [-0.538692892, -0.0485009439, 0.113308989, -1.53013575], [-0.477753282, -0.978519082, -0.808837234, 1.06089866]]]> : tensor<1x3x4xf32>} : () -> !torch.vtensor<[1,3,4],f32>
  %19 = "torch.aten.add.Tensor"(%17, %18, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %20 = "torch.aten.to.dtype"(%arg2, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %21 = "torch.aten.reshape"(%20, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %22 = "torch.aten.index_select"(%1, %6, %21) : (!torch.vtensor<[2,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %23 = "torch.aten.reshape"(%22, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %24 = "torch.aten.add.Tensor"(%19, %23, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %25 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
  %26 = "torch.constant.float"() {value = 9.999999960041972E-13 : f64} : () -> !torch.float
  %27 = "torch.aten.layer_norm"(%24, %25, %2, %3, %26, %9) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  %28 = "torch.aten.eq.Scalar"(%arg1, %7) : (!torch.vtensor<[2,3],si32>, !torch.int) -> !torch.vtensor<[2,3],i1>
  %29 = "torch.aten.to.dtype"(%28, %4, %9, %9, %5) : (!torch.vtensor<[2,3],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si32>
  %30 = "torch.prim.ListConstruct"(%7) : (!torch.int) -> !torch.list<int>
  %31 = "torch.aten.sum.dim_IntList"(%29, %30, %9, %4) : (!torch.vtensor<[2,3],si32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[2],si32>
  return %27, %31, %24 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>
}

// Unknown batch and sequence: the positions are an arange of the sequence length.
// CHECK-LABEL: func.func @dynamic_two_terms(
// CHECK: %[[POS:.+]] = "torch.aten.unsqueeze"
// CHECK: %[[IDS:.+]] = "torch.aten.to.dtype"(%arg0
// CHECK: %[[Y:.+]] = "qlower.embed_layer_norm"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[IDS]], %{{.+}}, %[[POS]]) : {{.+}} -> !torch.vtensor<[?,?,4],f32>
// CHECK-NOT: torch.aten.layer_norm
// CHECK: return %[[Y]],
func.func @dynamic_two_terms(%arg0: !torch.vtensor<[?,?],si32>, %arg1: !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[?],si32>) {
  %0 = "torch.vtensor.literal"() {value = dense<[[0.667247534, 1.43852258, -0.675662279, 0.203138605], [-0.463307589, 0.127268419, -1.18719459, -0.579301596], [-0.196195975, 0.898763895, 1.14522195, -1.32352781], [-0.794642388, 0.646903396, -1.99241984, -0.463169873], [-0.0972869247, 1.25701499, 0.689403892, -0.327213407]]> : tensor<5x4xf32>} : () -> !torch.vtensor<[5,4],f32>
  %1 = "torch.vtensor.literal"() {value = dense<[[-0.368575901, -0.250195414, 1.52352941, -0.428024948], [-0.30368039, 0.352589071, -0.120770447, -0.197284222], [-1.1140672, -0.0115214679, -0.443581223, 1.1661278], [0.65308851, -0.0241436139, 0.668381035, -0.339869559], [1.05212641, -0.00539956056, 0.583382368, -1.2908932], [0.346680045, -1.68820417, -2.03532887, -0.304476887]]> : tensor<6x4xf32>} : () -> !torch.vtensor<[6,4],f32>
  %2 = "torch.vtensor.literal"() {value = dense<[-0.205930337, 0.702462971, 0.519907653, -1.03367579]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %3 = "torch.vtensor.literal"() {value = dense<[-0.0791813209, 0.0352868475, -1.05448461, 0.259839088]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %4 = "torch.constant.none"() : () -> !torch.none
  %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %6 = "torch.aten.size.int"(%arg0, %5) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.int
  %7 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %8 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %9 = "torch.aten.arange.start_step"(%7, %6, %5, %8, %4, %4, %4) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[?],si64>
  %10 = "torch.aten.unsqueeze"(%9, %7) : (!torch.vtensor<[?],si64>, !torch.int) -> !torch.vtensor<[1,?],si64>
  %11 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %12 = "torch.aten.to.dtype"(%arg0, %8, %11, %11, %4) : (!torch.vtensor<[?,?],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si64>
  %13 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %14 = "torch.prim.ListConstruct"(%13) : (!torch.int) -> !torch.list<int>
  %15 = "torch.aten.reshape"(%12, %14) : (!torch.vtensor<[?,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %16 = "torch.aten.index_select"(%0, %7, %15) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,4],f32>
  %17 = "torch.aten.size.int"(%12, %7) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %18 = "torch.aten.size.int"(%12, %5) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %19 = "torch.prim.ListConstruct"(%17, %18, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %20 = "torch.aten.reshape"(%16, %19) : (!torch.vtensor<[?,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,4],f32>
  %21 = "torch.aten.reshape"(%10, %14) : (!torch.vtensor<[1,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %22 = "torch.aten.index_select"(%1, %7, %21) : (!torch.vtensor<[6,4],f32>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,4],f32>
  %23 = "torch.aten.size.int"(%10, %5) : (!torch.vtensor<[1,?],si64>, !torch.int) -> !torch.int
  %24 = "torch.prim.ListConstruct"(%5, %23, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %25 = "torch.aten.reshape"(%22, %24) : (!torch.vtensor<[?,4],f32>, !torch.list<int>) -> !torch.vtensor<[1,?,4],f32>
  %26 = "torch.aten.add.Tensor"(%20, %25, %5) : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[1,?,4],f32>, !torch.int) -> !torch.vtensor<[?,?,4],f32>
  %27 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
  %28 = "torch.constant.float"() {value = 9.999999960041972E-13 : f64} : () -> !torch.float
  %29 = "torch.aten.layer_norm"(%26, %27, %2, %3, %28, %11) : (!torch.vtensor<[?,?,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[?,?,4],f32>
  %30 = "torch.aten.eq.Scalar"(%arg1, %5) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.vtensor<[?,?],i1>
  %31 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %32 = "torch.aten.to.dtype"(%30, %31, %11, %11, %4) : (!torch.vtensor<[?,?],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si32>
  %33 = "torch.prim.ListConstruct"(%5) : (!torch.int) -> !torch.list<int>
  %34 = "torch.aten.sum.dim_IntList"(%32, %33, %11, %31) : (!torch.vtensor<[?,?],si32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[?],si32>
  return %29, %34 : !torch.vtensor<[?,?,4],f32>, !torch.vtensor<[?],si32>
}

// QEmbedLayerNormalization: the tables stay 8-bit and quantized per tensor; gamma and
// beta are dequantized before the op.
// CHECK-LABEL: func.func @quantized_three_terms(
// CHECK: %[[Y:.+]] = "qlower.embed_layer_norm"({{.+}}) : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.vtensor<[5,4],!torch.quint8>, !torch.vtensor<[?,?],si64>, !torch.vtensor<[6,4],!torch.quint8>, !torch.vtensor<[1,?],si64>, !torch.vtensor<[2,4],!torch.quint8>, !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?,4],f32>
// CHECK-NOT: torch.aten.index_select
// CHECK-NOT: torch.aten.layer_norm
// CHECK: return %[[Y]],
func.func @quantized_three_terms(%arg0: !torch.vtensor<[?,?],si32>, %arg1: !torch.vtensor<[?,?],si32>, %arg2: !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[?],si32>) {
  %0 = "torch.vtensor.literal"() {value = dense<[[221, 160, 124, 203], [243, 131, 22, 185], [59, 57, 49, 50], [232, 92, 27, 45], [101, 88, 79, 242]]> : tensor<5x4xui8>} : () -> !torch.vtensor<[5,4],ui8>
  %1 = "torch.vtensor.literal"() {value = dense<[[221, 146, 252, 87], [35, 69, 22, 243], [56, 113, 51, 250], [40, 131, 243, 133], [230, 229, 196, 190], [147, 148, 212, 109]]> : tensor<6x4xui8>} : () -> !torch.vtensor<[6,4],ui8>
  %2 = "torch.vtensor.literal"() {value = dense<[[242, 224, 95, 105], [182, 236, 24, 17]]> : tensor<2x4xui8>} : () -> !torch.vtensor<[2,4],ui8>
  %3 = "torch.vtensor.literal"() {value = dense<[190, 64, 201, 206]> : tensor<4xui8>} : () -> !torch.vtensor<[4],ui8>
  %4 = "torch.vtensor.literal"() {value = dense<[174, 173, 79, 183]> : tensor<4xui8>} : () -> !torch.vtensor<[4],ui8>
  %5 = "torch.constant.float"() {value = 0.0099999997764825821 : f64} : () -> !torch.float
  %6 = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %7 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %5, %6) : (!torch.vtensor<[5,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[5,4],!torch.quint8>
  %8 = "torch.aten.dequantize.self"(%7) : (!torch.vtensor<[5,4],!torch.quint8>) -> !torch.vtensor<[5,4],f32>
  %9 = "torch.constant.float"() {value = 0.019999999552965164 : f64} : () -> !torch.float
  %10 = "torch.constant.int"() {value = 120 : i64} : () -> !torch.int
  %11 = "torch.aten._make_per_tensor_quantized_tensor"(%1, %9, %10) : (!torch.vtensor<[6,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[6,4],!torch.quint8>
  %12 = "torch.aten.dequantize.self"(%11) : (!torch.vtensor<[6,4],!torch.quint8>) -> !torch.vtensor<[6,4],f32>
  %13 = "torch.constant.float"() {value = 0.029999999329447746 : f64} : () -> !torch.float
  %14 = "torch.constant.int"() {value = 130 : i64} : () -> !torch.int
  %15 = "torch.aten._make_per_tensor_quantized_tensor"(%2, %13, %14) : (!torch.vtensor<[2,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,4],!torch.quint8>
  %16 = "torch.aten.dequantize.self"(%15) : (!torch.vtensor<[2,4],!torch.quint8>) -> !torch.vtensor<[2,4],f32>
  %17 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %18 = "torch.aten._make_per_tensor_quantized_tensor"(%3, %5, %17) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %19 = "torch.aten.dequantize.self"(%18) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  %20 = "torch.aten._make_per_tensor_quantized_tensor"(%4, %9, %6) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %21 = "torch.aten.dequantize.self"(%20) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  %22 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %23 = "torch.aten.size.int"(%arg0, %22) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.int
  %24 = "torch.constant.none"() : () -> !torch.none
  %25 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %26 = "torch.aten.arange.start_step"(%17, %23, %22, %25, %24, %24, %24) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[?],si64>
  %27 = "torch.aten.unsqueeze"(%26, %17) : (!torch.vtensor<[?],si64>, !torch.int) -> !torch.vtensor<[1,?],si64>
  %28 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %29 = "torch.aten.to.dtype"(%arg0, %25, %28, %28, %24) : (!torch.vtensor<[?,?],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si64>
  %30 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %31 = "torch.prim.ListConstruct"(%30) : (!torch.int) -> !torch.list<int>
  %32 = "torch.aten.reshape"(%29, %31) : (!torch.vtensor<[?,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %33 = "torch.aten.index_select"(%8, %17, %32) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,4],f32>
  %34 = "torch.aten.size.int"(%29, %17) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %35 = "torch.aten.size.int"(%29, %22) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %36 = "torch.prim.ListConstruct"(%34, %35, %25) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %37 = "torch.aten.reshape"(%33, %36) : (!torch.vtensor<[?,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,4],f32>
  %38 = "torch.aten.reshape"(%27, %31) : (!torch.vtensor<[1,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %39 = "torch.aten.index_select"(%12, %17, %38) : (!torch.vtensor<[6,4],f32>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,4],f32>
  %40 = "torch.aten.size.int"(%27, %22) : (!torch.vtensor<[1,?],si64>, !torch.int) -> !torch.int
  %41 = "torch.prim.ListConstruct"(%22, %40, %25) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %42 = "torch.aten.reshape"(%39, %41) : (!torch.vtensor<[?,4],f32>, !torch.list<int>) -> !torch.vtensor<[1,?,4],f32>
  %43 = "torch.aten.add.Tensor"(%37, %42, %22) : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[1,?,4],f32>, !torch.int) -> !torch.vtensor<[?,?,4],f32>
  %44 = "torch.aten.to.dtype"(%arg2, %25, %28, %28, %24) : (!torch.vtensor<[?,?],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si64>
  %45 = "torch.aten.reshape"(%44, %31) : (!torch.vtensor<[?,?],si64>, !torch.list<int>) -> !torch.vtensor<[?],si64>
  %46 = "torch.aten.index_select"(%16, %17, %45) : (!torch.vtensor<[2,4],f32>, !torch.int, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?,4],f32>
  %47 = "torch.aten.size.int"(%44, %17) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %48 = "torch.aten.size.int"(%44, %22) : (!torch.vtensor<[?,?],si64>, !torch.int) -> !torch.int
  %49 = "torch.prim.ListConstruct"(%47, %48, %25) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %50 = "torch.aten.reshape"(%46, %49) : (!torch.vtensor<[?,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,4],f32>
  %51 = "torch.aten.add.Tensor"(%43, %50, %22) : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[?,?,4],f32>, !torch.int) -> !torch.vtensor<[?,?,4],f32>
  %52 = "torch.prim.ListConstruct"(%25) : (!torch.int) -> !torch.list<int>
  %53 = "torch.constant.float"() {value = 9.999999960041972E-13 : f64} : () -> !torch.float
  %54 = "torch.aten.layer_norm"(%51, %52, %19, %21, %53, %28) : (!torch.vtensor<[?,?,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[?,?,4],f32>
  %55 = "torch.aten.eq.Scalar"(%arg1, %22) : (!torch.vtensor<[?,?],si32>, !torch.int) -> !torch.vtensor<[?,?],i1>
  %56 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %57 = "torch.aten.to.dtype"(%55, %56, %28, %28, %24) : (!torch.vtensor<[?,?],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si32>
  %58 = "torch.prim.ListConstruct"(%22) : (!torch.int) -> !torch.list<int>
  %59 = "torch.aten.sum.dim_IntList"(%57, %58, %28, %56) : (!torch.vtensor<[?,?],si32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[?],si32>
  return %54, %59 : !torch.vtensor<[?,?,4],f32>, !torch.vtensor<[?],si32>
}

// The sum is read before the norm: left alone.
// CHECK-LABEL: func.func @sum_read_before_the_norm(
// CHECK-NOT: qlower.embed_layer_norm
// CHECK: torch.aten.layer_norm
func.func @sum_read_before_the_norm(%arg0: !torch.vtensor<[2,3],si32>, %arg1: !torch.vtensor<[2,3],si32>, %arg2: !torch.vtensor<[2,3],si32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>) {
  %0 = "torch.vtensor.literal"() {value = dense<[[-0.89059186, -0.454670787, -0.991646528, 6.014360e-02], [1.34021521, -0.492206514, -0.620474874, 0.489842057], [3.568870e-01, 0.105414249, -9.304680e-01, -0.0292518232], [0.695303202, -1.34421456, -0.457615763, -1.90122271], [-1.28953779, -1.84173501, -0.235091135, -1.26744652]]> : tensor<5x4xf32>} : () -> !torch.vtensor<[5,4],f32>
  %1 = "torch.vtensor.literal"() {value = dense<[[-0.807534694, -0.0325217061, 0.884389877, -0.583600461], [-0.11170195, 0.110464141, 0.0637817755, -1.22505581]]> : tensor<2x4xf32>} : () -> !torch.vtensor<[2,4],f32>
  %2 = "torch.vtensor.literal"() {value = dense<[0.859382688, 0.119354025, -0.641470372, 2.00041652]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %3 = "torch.vtensor.literal"() {value = dense<[0.762259722, -1.19928885, 0.0745162293, 0.576689601]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %4 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %5 = "torch.constant.none"() : () -> !torch.none
  %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %7 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %8 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %9 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %10 = "torch.aten.to.dtype"(%arg0, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %11 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %12 = "torch.prim.ListConstruct"(%11) : (!torch.int) -> !torch.list<int>
  %13 = "torch.aten.reshape"(%10, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %14 = "torch.aten.index_select"(%0, %6, %13) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %15 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %16 = "torch.prim.ListConstruct"(%15, %4, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %17 = "torch.aten.reshape"(%14, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %18 = "torch.vtensor.literal"() {value = dense<[[[0.271264344, 0.156751081, -0.18693094, -2.51675963], [-0.538692892, -0.0485009439, 0.113308989, -1.53013575], [-0.477753282, -0.978519082, -0.808837234, 1.06089866]]]> : tensor<1x3x4xf32>} : () -> !torch.vtensor<[1,3,4],f32>
  %19 = "torch.aten.add.Tensor"(%17, %18, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %20 = "torch.aten.to.dtype"(%arg2, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %21 = "torch.aten.reshape"(%20, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %22 = "torch.aten.index_select"(%1, %6, %21) : (!torch.vtensor<[2,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %23 = "torch.aten.reshape"(%22, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %24 = "torch.aten.add.Tensor"(%19, %23, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %25 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
  %26 = "torch.constant.float"() {value = 9.999999960041972E-13 : f64} : () -> !torch.float
  %neg = "torch.aten.neg"(%24) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  %27 = "torch.aten.layer_norm"(%24, %25, %2, %3, %26, %9) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  %28 = "torch.aten.eq.Scalar"(%arg1, %7) : (!torch.vtensor<[2,3],si32>, !torch.int) -> !torch.vtensor<[2,3],i1>
  %29 = "torch.aten.to.dtype"(%28, %4, %9, %9, %5) : (!torch.vtensor<[2,3],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si32>
  %30 = "torch.prim.ListConstruct"(%7) : (!torch.int) -> !torch.list<int>
  %31 = "torch.aten.sum.dim_IntList"(%29, %30, %9, %4) : (!torch.vtensor<[2,3],si32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[2],si32>
  return %27, %31, %neg : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>
}

// The word rows are returned too: left alone.
// CHECK-LABEL: func.func @term_read_elsewhere(
// CHECK-NOT: qlower.embed_layer_norm
// CHECK: torch.aten.layer_norm
func.func @term_read_elsewhere(%arg0: !torch.vtensor<[2,3],si32>, %arg1: !torch.vtensor<[2,3],si32>, %arg2: !torch.vtensor<[2,3],si32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>) {
  %0 = "torch.vtensor.literal"() {value = dense<[[-0.89059186, -0.454670787, -0.991646528, 6.014360e-02], [1.34021521, -0.492206514, -0.620474874, 0.489842057], [3.568870e-01, 0.105414249, -9.304680e-01, -0.0292518232], [0.695303202, -1.34421456, -0.457615763, -1.90122271], [-1.28953779, -1.84173501, -0.235091135, -1.26744652]]> : tensor<5x4xf32>} : () -> !torch.vtensor<[5,4],f32>
  %1 = "torch.vtensor.literal"() {value = dense<[[-0.807534694, -0.0325217061, 0.884389877, -0.583600461], [-0.11170195, 0.110464141, 0.0637817755, -1.22505581]]> : tensor<2x4xf32>} : () -> !torch.vtensor<[2,4],f32>
  %2 = "torch.vtensor.literal"() {value = dense<[0.859382688, 0.119354025, -0.641470372, 2.00041652]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %3 = "torch.vtensor.literal"() {value = dense<[0.762259722, -1.19928885, 0.0745162293, 0.576689601]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %4 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %5 = "torch.constant.none"() : () -> !torch.none
  %6 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %7 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %8 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %9 = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %10 = "torch.aten.to.dtype"(%arg0, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %11 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %12 = "torch.prim.ListConstruct"(%11) : (!torch.int) -> !torch.list<int>
  %13 = "torch.aten.reshape"(%10, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %14 = "torch.aten.index_select"(%0, %6, %13) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %15 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %16 = "torch.prim.ListConstruct"(%15, %4, %8) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %17 = "torch.aten.reshape"(%14, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %18 = "torch.vtensor.literal"() {value = dense<[[[0.271264344, 0.156751081, -0.18693094, -2.51675963], [-0.538692892, -0.0485009439, 0.113308989, -1.53013575], [-0.477753282, -0.978519082, -0.808837234, 1.06089866]]]> : tensor<1x3x4xf32>} : () -> !torch.vtensor<[1,3,4],f32>
  %19 = "torch.aten.add.Tensor"(%17, %18, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %20 = "torch.aten.to.dtype"(%arg2, %8, %9, %9, %5) : (!torch.vtensor<[2,3],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si64>
  %21 = "torch.aten.reshape"(%20, %12) : (!torch.vtensor<[2,3],si64>, !torch.list<int>) -> !torch.vtensor<[6],si64>
  %22 = "torch.aten.index_select"(%1, %6, %21) : (!torch.vtensor<[2,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
  %23 = "torch.aten.reshape"(%22, %16) : (!torch.vtensor<[6,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
  %24 = "torch.aten.add.Tensor"(%19, %23, %7) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %25 = "torch.prim.ListConstruct"(%8) : (!torch.int) -> !torch.list<int>
  %26 = "torch.constant.float"() {value = 9.999999960041972E-13 : f64} : () -> !torch.float
  %27 = "torch.aten.layer_norm"(%24, %25, %2, %3, %26, %9) : (!torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4],f32>
  %28 = "torch.aten.eq.Scalar"(%arg1, %7) : (!torch.vtensor<[2,3],si32>, !torch.int) -> !torch.vtensor<[2,3],i1>
  %29 = "torch.aten.to.dtype"(%28, %4, %9, %9, %5) : (!torch.vtensor<[2,3],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si32>
  %30 = "torch.prim.ListConstruct"(%7) : (!torch.int) -> !torch.list<int>
  %31 = "torch.aten.sum.dim_IntList"(%29, %30, %9, %4) : (!torch.vtensor<[2,3],si32>, !torch.list<int>, !torch.bool, !torch.int) -> !torch.vtensor<[2],si32>
  return %27, %31, %17 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],si32>, !torch.vtensor<[2,3,4],f32>
}
