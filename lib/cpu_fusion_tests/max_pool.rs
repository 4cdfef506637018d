use super::fused_plan;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::kernels::tensor::{Data, Tensor};
use crate::runtime::plan::Plan;

/// A 2x2/2 max pool of a 4x4 uint8 tensor wrapped in Q/DQ with parameters
/// (0.5, 10) in and (`y_scale`, `y_zero`) out.
fn module(y_scale: &str, y_zero: i64) -> String {
    format!(
        r#"func.func @main(%arg0: !torch.vtensor<[1,1,4,4],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {{
  %s = "torch.constant.float"() {{value = 5.000000e-01 : f64}} : () -> !torch.float
  %z = "torch.constant.int"() {{value = 10 : i64}} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,1,4,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,1,4,4],!torch.quint8>) -> !torch.vtensor<[1,1,4,4],f32>
  %two = "torch.constant.int"() {{value = 2 : i64}} : () -> !torch.int
  %one = "torch.constant.int"() {{value = 1 : i64}} : () -> !torch.int
  %zero = "torch.constant.int"() {{value = 0 : i64}} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {{value = false}} : () -> !torch.bool
  %m = "torch.aten.max_pool2d"(%x, %k, %k, %p, %d, %false) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {{value = {y_scale} : f64}} : () -> !torch.float
  %yz = "torch.constant.int"() {{value = {y_zero} : i64}} : () -> !torch.int
  %dtype = "torch.constant.int"() {{value = 13 : i64}} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%m, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}}"#
    )
}

fn run(source: &str) -> (Vec<String>, Tensor) {
    let context = new_context();
    let module = parse_module(&context, source, "test").unwrap();
    let plan = fused_plan(&context, module);
    let ops = plan.step_ops().iter().map(|s| s.to_string()).collect();
    let x = Tensor::new(
        vec![1, 1, 4, 4],
        Data::U8(vec![
            0, 7, 200, 3, 9, 1, 255, 4, 10, 10, 11, 12, 9, 10, 13, 0,
        ]),
    )
    .unwrap();
    (ops, plan.run(vec![x]).unwrap().remove(0))
}

#[test]
fn the_integer_pool_matches_the_window_by_window_one() {
    use crate::kernels::ops::pool::quantized_max_pool;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::{Call, ResultType};
    // Odd sizes, padding, ceil mode and dilation: 2-D runs the separable passes,
    // 1-D (same data as rows) the generic windows.
    let data: Vec<u8> = (0..2 * 7 * 9)
        .map(|i| ((i * 37 + 11) % 251) as u8)
        .collect();
    let x = Value::tensor(Tensor::new(vec![2, 7, 9], Data::U8(data)).unwrap());
    let ints = |v: &[i64]| Value::IntList(v.to_vec());
    let two_d = [
        x.clone(),
        ints(&[3, 2]),
        ints(&[2, 3]),
        ints(&[1, 1]),
        ints(&[1, 2]),
        Value::Bool(true),
        Value::Float(0.5),
        Value::Int(3),
    ];
    let results = [ResultType::None];
    let call = Call {
        args: &two_d,
        results: &results,
    };
    let got = quantized_max_pool(&call).unwrap();
    let y = got[0].as_tensor().unwrap();
    // Window by window, from the definition.
    let Data::U8(xs) = &x.as_tensor().unwrap().data else {
        unreachable!()
    };
    let (oh, ow) = (y.shape[1], y.shape[2]);
    let mut want = Vec::new();
    for p in 0..2 {
        for oy in 0..oh {
            for ox in 0..ow {
                let mut m = 0u8;
                for ky in 0..3 {
                    for kx in 0..2 {
                        let iy = (oy * 2 + ky) as i64 - 1;
                        let ix = (ox * 3 + kx * 2) as i64 - 1;
                        if (0..7).contains(&iy) && (0..9).contains(&ix) {
                            m = m.max(xs[p * 63 + iy as usize * 9 + ix as usize]);
                        }
                    }
                }
                want.push(m);
            }
        }
    }
    assert_eq!(y.data, Data::U8(want));
}

#[test]
fn the_same_parameters_pool_the_integers() {
    let (ops, y) = run(&module("5.000000e-01", 10));
    assert_eq!(ops, ["qlower.qmax_pool"]);
    assert_eq!(y.data, Data::U8(vec![9, 255, 10, 13]));
    // The float path on other parameters rounds through the floats instead.
    let (ops, y) = run(&module("1.000000e+00", 10));
    assert!(ops.contains(&"torch.aten.max_pool2d".to_string()));
    // (q - 10) * 0.5 / 1 + 10, rounded half to even: 9 -> 9.5 -> 10, 255 -> 132.5 -> 132.
    assert_eq!(y.data, Data::U8(vec![10, 132, 10, 12]));
}

/// ReLU of a dequantized `[1,2,7,9]` tensor of `storage` (ui8 or si8, zero point
/// `zero`), a 3x3/2 max pool with padding 1, and the pool quantized: both returned.
fn relu_pool(storage: &str, zero: i64) -> String {
    let (q, code) = match storage {
        "ui8" => ("!torch.quint8", 13),
        _ => ("!torch.qint8", 12),
    };
    format!(
        r#"func.func @main(%arg0: !torch.vtensor<[1,2,7,9],{storage}>) -> (!torch.vtensor<[1,2,4,5],f32>, !torch.vtensor<[1,2,4,5],{q}>) {{
  %s = "torch.constant.float"() {{value = 3.000000e-01 : f64}} : () -> !torch.float
  %z = "torch.constant.int"() {{value = {zero} : i64}} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,2,7,9],{storage}>, !torch.float, !torch.int) -> !torch.vtensor<[1,2,7,9],{q}>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,2,7,9],{q}>) -> !torch.vtensor<[1,2,7,9],f32>
  %r = "torch.aten.relu"(%x) : (!torch.vtensor<[1,2,7,9],f32>) -> !torch.vtensor<[1,2,7,9],f32>
  %three = "torch.constant.int"() {{value = 3 : i64}} : () -> !torch.int
  %two = "torch.constant.int"() {{value = 2 : i64}} : () -> !torch.int
  %one = "torch.constant.int"() {{value = 1 : i64}} : () -> !torch.int
  %k = "torch.prim.ListConstruct"(%three, %three) : (!torch.int, !torch.int) -> !torch.list<int>
  %st = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {{value = false}} : () -> !torch.bool
  %m = "torch.aten.max_pool2d"(%r, %k, %st, %p, %p, %false) : (!torch.vtensor<[1,2,7,9],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,2,4,5],f32>
  %ys = "torch.constant.float"() {{value = 1.000000e-01 : f64}} : () -> !torch.float
  %yz = "torch.constant.int"() {{value = 0 : i64}} : () -> !torch.int
  %dtype = "torch.constant.int"() {{value = {code} : i64}} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%m, %ys, %yz, %dtype) : (!torch.vtensor<[1,2,4,5],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,2,4,5],{q}>
  return %m, %y : !torch.vtensor<[1,2,4,5],f32>, !torch.vtensor<[1,2,4,5],{q}>
}}"#
    )
}

#[test]
fn a_pool_of_a_relu_table_pools_the_bytes_with_the_float_results() {
    use crate::transforms::compose_lookups;
    for (storage, zero) in [("ui8", 140), ("si8", -20)] {
        let source = relu_pool(storage, zero);
        let context = new_context();
        let bytes: Vec<u8> = (0..2 * 7 * 9).map(|i| ((i * 83 + 5) % 256) as u8).collect();
        let x = match storage {
            "ui8" => Data::U8(bytes),
            _ => Data::I8(bytes.into_iter().map(|b| b as i8).collect()),
        };
        let x = Tensor::new(vec![1, 2, 7, 9], x).unwrap();
        let unfused = Plan::new(&parse_module(&context, &source, "test").unwrap()).unwrap();
        let want = unfused.run(vec![x.clone()]).unwrap();
        let mut module = parse_module(&context, &source, "test").unwrap();
        crate::transforms::fuse_for_cpu(&context, &mut module).unwrap();
        compose_lookups(&context, &mut module).unwrap();
        let plan = Plan::new(&module).unwrap();
        let ops: Vec<String> = plan.step_ops().iter().map(|s| s.to_string()).collect();
        assert!(ops.contains(&"qlower.qmax_pool".to_string()), "{ops:?}");
        assert!(
            !ops.contains(&"torch.aten.max_pool2d".to_string()),
            "{ops:?}"
        );
        assert!(
            !ops.contains(&"torch.aten.quantize_per_tensor".to_string()),
            "{ops:?}"
        );
        let got = plan.run(vec![x]).unwrap();
        let (Data::F32(a), Data::F32(b)) = (&got[0].data, &want[0].data) else {
            panic!("float results expected");
        };
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b), "{storage}");
        assert_eq!(got[1].data, want[1].data, "{storage}");
        assert_eq!(got[1].quant, want[1].quant, "{storage}");
    }
}
