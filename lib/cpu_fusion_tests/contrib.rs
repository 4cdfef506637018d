//! ONNX Runtime's contrib ops whose lowerings fuse-for-cpu rewrites: each function of
//! the lit tests test/Backend/fuse_for_cpu_gather_block_quantized.mlir and
//! fuse_for_cpu_embed_layer_norm.mlir planned with and without the fusion (both after
//! sink-dequantize and dce, as the backend pipeline runs them) gives the same bytes on
//! every output, and the fused plan runs the `qlower.` op.

use melior::ir::Module;

use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::testing::test_bytes;
use crate::runtime::plan::Plan;
use crate::transforms::{dce, fuse_for_cpu, sink_dequantize};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The function `name` of the lit test `file` alone.
fn lit_function(file: &str, name: &str) -> String {
    let text = std::fs::read_to_string(format!("{ROOT}/test/Backend/{file}")).unwrap();
    // At the start of a line: the CHECK-LABEL lines name it first.
    let start = text.find(&format!("\nfunc.func @{name}(")).unwrap() + 1;
    let end = start + text[start..].find("\n}\n").unwrap() + 3;
    text[start..end].to_string()
}

/// The plan's steps and outputs on `inputs`, fused or not.
fn run(source: &str, fuse: bool, inputs: &[Tensor]) -> (Vec<String>, Vec<Tensor>) {
    let context = new_context();
    let mut module: Module = parse_module(&context, source, "test").unwrap();
    sink_dequantize(&context, &mut module).unwrap();
    dce(&context, &mut module);
    if fuse {
        fuse_for_cpu(&context, &mut module).unwrap();
        dce(&context, &mut module);
    }
    let plan = Plan::new(&module).unwrap();
    let ops = plan.step_ops().iter().map(|s| s.to_string()).collect();
    (ops, plan.run(inputs.to_vec()).unwrap())
}

fn assert_fused_equals_unfused(file: &str, name: &str, op: &str, inputs: &[Tensor]) {
    let source = lit_function(file, name);
    let (fused_ops, fused) = run(&source, true, inputs);
    let (unfused_ops, unfused) = run(&source, false, inputs);
    assert!(fused_ops.iter().any(|s| s == op), "{name}: {fused_ops:?}");
    assert!(
        !unfused_ops.iter().any(|s| s == op),
        "{name}: {unfused_ops:?}"
    );
    assert_eq!(fused.len(), unfused.len(), "{name}");
    for (i, (a, b)) in fused.iter().zip(&unfused).enumerate() {
        assert_eq!(a.shape, b.shape, "{name} output {i}");
        assert_eq!(
            a.data.to_le_bytes(),
            b.data.to_le_bytes(),
            "{name} output {i}"
        );
    }
}

fn bytes(seed: u64, shape: &[usize]) -> Tensor {
    Tensor::new(
        shape.to_vec(),
        Data::U8(test_bytes(seed, shape.iter().product())),
    )
    .unwrap()
}

/// Values in `0..below`.
fn ids<T>(seed: u64, shape: &[usize], below: u8, data: fn(Vec<T>) -> Data) -> Tensor
where
    T: From<u8>,
{
    let v = test_bytes(seed, shape.iter().product())
        .into_iter()
        .map(|b| T::from(b % below))
        .collect();
    Tensor::new(shape.to_vec(), data(v)).unwrap()
}

fn scales(seed: u64, shape: &[usize]) -> Vec<f32> {
    test_bytes(seed, shape.iter().product())
        .iter()
        .map(|&b| (f32::from(b) + 1.0) / 1009.0)
        .collect()
}

#[test]
fn gathered_block_quantized_rows_are_the_unfused_bytes() {
    let file = "fuse_for_cpu_gather_block_quantized.mlir";
    let op = "qlower.gather_block_quantized";
    let int64 = Data::I64;
    let f32s = |seed, shape: &[usize]| {
        Tensor::new(shape.to_vec(), Data::F32(scales(seed, shape))).unwrap()
    };
    let inputs = [
        bytes(1, &[10, 32]),
        ids(2, &[2, 3], 10, int64),
        f32s(3, &[10, 4]),
        bytes(4, &[10, 2]),
    ];
    assert_fused_equals_unfused(file, "int4_zero_points", op, &inputs);
    let inputs = [
        bytes(5, &[10, 64]),
        ids(6, &[2, 3], 10, int64),
        f32s(7, &[10, 4]),
    ];
    assert_fused_equals_unfused(file, "int8_middle_zero_point", op, &inputs);
    let half: Vec<half::f16> = scales(8, &[100, 3])
        .into_iter()
        .map(half::f16::from_f32)
        .collect();
    let inputs = [
        bytes(9, &[100, 48]),
        ids(10, &[3, 5], 100, Data::I32),
        Tensor::new(vec![100, 3], Data::F16(half)).unwrap(),
        bytes(11, &[100, 2]),
    ];
    assert_fused_equals_unfused(file, "dynamic_int4_half_scales", op, &inputs);
}

#[test]
fn embedding_norms_are_the_unfused_bytes() {
    let file = "fuse_for_cpu_embed_layer_norm.mlir";
    let op = "qlower.embed_layer_norm";
    let int32 = Data::I32;
    let mask = |shape: &[usize]| {
        let ones = vec![1; shape.iter().product()];
        Tensor::new(shape.to_vec(), Data::I32(ones)).unwrap()
    };
    // (ids, mask, segment ids), static [2, 3].
    let inputs = [
        ids(1, &[2, 3], 5, int32),
        mask(&[2, 3]),
        ids(2, &[2, 3], 2, int32),
    ];
    assert_fused_equals_unfused(file, "static_three_terms_sum_returned", op, &inputs);
    // Unknown sizes, run at [3, 5] (the position table has 6 rows).
    assert_fused_equals_unfused(
        file,
        "dynamic_two_terms",
        op,
        &[ids(3, &[3, 5], 5, int32), mask(&[3, 5])],
    );
    let inputs = [
        ids(4, &[3, 5], 5, int32),
        mask(&[3, 5]),
        ids(5, &[3, 5], 2, int32),
    ];
    assert_fused_equals_unfused(file, "quantized_three_terms", op, &inputs);
}

/// f32 values of both signs across magnitudes, so that sums, squares and means round.
fn signed(seed: u64, shape: &[usize]) -> Tensor {
    let v = test_bytes(seed, shape.iter().product())
        .iter()
        .map(|&b| (f32::from(b) - 127.5) * 0.0371)
        .collect();
    Tensor::new(shape.to_vec(), Data::F32(v)).unwrap()
}

#[test]
fn residual_norms_are_the_unfused_bytes() {
    let file = "fuse_for_cpu_norms.mlir";
    let (x, y) = (signed(1, &[2, 3, 8]), signed(2, &[2, 3, 8]));
    let row = |seed| signed(seed, &[8]);
    assert_fused_equals_unfused(
        file,
        "skip_layer_norm_sum_returned",
        "qlower.skip_layer_norm",
        &[x.clone(), y.clone(), row(3), row(4), row(5)],
    );
    // Unknown sequence, run at 13 rows: a block of 8 and a ragged one.
    let (a, b) = (signed(6, &[1, 13, 8]), signed(7, &[1, 13, 8]));
    assert_fused_equals_unfused(file, "rms_t5_form", "qlower.rms_norm", &[a, b, row(8)]);
    assert_fused_equals_unfused(file, "rms_lowering_form", "qlower.rms_norm", &[x, row(9)]);
}
