use super::fused_plan;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::kernels::tensor::{Data, Tensor};
use crate::transforms::fuse_quantized_ops::fuse_quantized_ops;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The function `name` of the fuse-quantized-ops lit test, as its own module.
fn lit_case(name: &str) -> String {
    let path = format!("{ROOT}/test/Transforms/fuse_quantized_ops.mlir");
    let text = std::fs::read_to_string(path).unwrap();
    let chunk = text
        .split("\n// -----\n")
        .find(|c| c.contains(&format!("func.func @{name}(")))
        .unwrap();
    chunk.to_string()
}

/// The plan's steps by op name, and its outputs on `input`, without and with
/// `fuse-quantized-ops` before `fuse-for-cpu`.
fn plans(source: &str, input: &Tensor) -> [(Vec<String>, Vec<Tensor>); 2] {
    [false, true].map(|fuse| {
        let context = new_context();
        let mut module = parse_module(&context, source, "test").unwrap();
        if fuse {
            fuse_quantized_ops(&context, &mut module).unwrap();
        }
        let plan = fused_plan(&context, module);
        let ops = plan.step_ops().iter().map(|s| s.to_string()).collect();
        (ops, plan.run(vec![input.clone()]).unwrap())
    })
}

#[test]
fn a_requantized_fused_convolution_runs_the_fused_integer_step() {
    let x = Tensor::new(
        vec![1, 1, 3, 3],
        Data::U8(vec![0, 7, 128, 129, 200, 255, 3, 90, 131]),
    )
    .unwrap();
    let [(unfused_ops, unfused), (fused_ops, fused)] = plans(&lit_case("conv_per_tensor"), &x);
    assert_eq!(unfused_ops, ["qlower.qlinear_conv"]);
    assert_eq!(fused_ops, ["qlower.qlinear_conv"]);
    assert_eq!(fused, unfused);
}

#[test]
fn a_fused_convolution_used_as_floats_matches_the_unfused_float_path() {
    let x = Tensor::new(vec![1, 1, 2, 2], Data::U8(vec![0, 100, 128, 255])).unwrap();
    let [(_, unfused), (fused_ops, fused)] = plans(&lit_case("conv_per_channel_bias"), &x);
    // The float convolution of the dequantized operands is one step, in place of the
    // accumulator's dequantize; the qint32 convolution is dead.
    assert_eq!(
        fused_ops,
        [
            "torch.aten._make_per_tensor_quantized_tensor",
            "qlower.dequantized_conv"
        ]
    );
    assert_eq!(fused, unfused);
}

#[test]
fn a_per_channel_qlinearconv_runs_as_one_fused_step_after_fusion() {
    let path = format!("{ROOT}/test/Import/Inputs/qlinearconv_per_channel.onnx");
    let plan = crate::pipeline::plan_model(std::path::Path::new(&path)).unwrap();
    // The fused op replaced the int_repr; the quantize it read is dead.
    assert_eq!(plan.step_ops(), ["qlower.qlinear_conv"]);
}

#[test]
fn qdq_activations_and_qat_weights_give_the_same_floats_fused() {
    let x = Tensor::new(vec![1, 1, 2, 2], Data::F32(vec![-1.0, 0.013, 0.5, 3.0])).unwrap();
    let [(_, unfused), (_, fused)] = plans(&lit_case("qdq_activation_and_qat_weight"), &x);
    assert_eq!(fused, unfused);
}

#[test]
fn a_padded_fused_convolution_gives_the_same_floats() {
    let x = Tensor::new(
        vec![1, 1, 3, 3],
        Data::U8(vec![0, 7, 128, 129, 200, 255, 3, 90, 131]),
    )
    .unwrap();
    let [(_, unfused), (_, fused)] = plans(&lit_case("conv_padded"), &x);
    assert_eq!(fused, unfused);
}
