//! Plan-time fusion of quantized convolutions and matrix products. The lowered IR says
//! `quantize_per_tensor(convolution(dequantize(x), dequantize(w), dequantize(b)))`;
//! run literally, the float convolution rounds differently from ONNX Runtime's int32
//! accumulation near ties. Where that pattern appears, the plan runs one fused integer
//! step instead (`kernels::qlinear`), and the float steps it replaces become dead.
//!
//! The same holds for the form `fuse-quantized-ops` writes, where the convolution is
//! applied to the quantized tensors and its qint32 accumulator is dequantized with the
//! scale `x_scale·w_scale`: requantized, it runs the same fused integer step; used as
//! floats, it runs the float convolution of the dequantized operands, exactly as the
//! unfused IR does, so fusing never changes a result.

use crate::ir::matchers::{constant_bool, constant_float, constant_int, defining, named};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use crate::kernels::quantized::{qlinear, quantized_operands};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Kernel, Prepare};

/// An operand of a fused step: an IR value, or a constant the matcher supplies.
pub enum Operand<'c, 'a> {
    Ir(MlirValue<'c, 'a>),
    Const(Value),
}

pub struct Fused<'c, 'a> {
    pub kernel: Kernel,
    /// Specialises the kernel to its constant operands once, at plan time.
    pub prepare: Option<Prepare>,
    pub operands: Vec<Operand<'c, 'a>>,
}

fn is_none(v: MlirValue) -> bool {
    v.r#type().to_string() == "!torch.none"
}

/// The integer tensor, scale and zero point behind `dequantize.self(_make_*(...))`, and
/// the per-channel axis when there is one.
pub(super) struct Dequantized<'c, 'a> {
    pub int: MlirValue<'c, 'a>,
    pub scale: MlirValue<'c, 'a>,
    pub zero_point: MlirValue<'c, 'a>,
    pub axis: Option<i64>,
}

fn dequantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    quantized(dq.operand(0).ok()?)
}

/// The operands of `_make_*_quantized_tensor` that produced `v`; for `quantize_*`, which
/// QDQ models quantize activations with, `v` itself holds the integers.
pub(super) fn quantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>> {
    let make = defining(v)?;
    let name = make.name().as_string_ref().as_str().ok()?.to_string();
    let operand = |i| make.operand(i).ok();
    match name.as_str() {
        "torch.aten.quantize_per_tensor" => Some(Dequantized {
            int: v,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: None,
        }),
        "torch.aten.quantize_per_channel" => Some(Dequantized {
            int: v,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: Some(constant_int(operand(3)?)?),
        }),
        "torch.aten._make_per_tensor_quantized_tensor" => Some(Dequantized {
            int: operand(0)?,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: None,
        }),
        "torch.aten._make_per_channel_quantized_tensor" => Some(Dequantized {
            int: operand(0)?,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: Some(constant_int(operand(3)?)?),
        }),
        _ => None,
    }
}

/// How the operands of a convolution or matmul reach their integers: through
/// `dequantize.self(_make_*)` in the unfused IR, straight from `_make_*` in the fused.
type Resolve<'c, 'a> = fn(MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>>;

/// The fused step for `quantize` (a `torch.aten.quantize_per_tensor`), if its input is a
/// convolution or matmul of dequantized 8-bit operands, or the dequantized accumulator
/// of one applied to quantized operands.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fused<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    let y_scale = quantize.operand(1).ok()?;
    let y_zero_point = quantize.operand(2).ok()?;
    let (producer, resolve): (_, Resolve<'c, 'a>) = match fused_accumulator(input) {
        Some(op) => (op, quantized),
        None => (defining(input)?, dequantized),
    };
    match producer.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => conv(producer, resolve, y_scale, y_zero_point),
        "torch.aten.matmul" | "torch.aten.mm" => matmul(producer, resolve, y_scale, y_zero_point),
        _ => None,
    }
}

/// The fused step for `int_repr(quantize_per_tensor(...))`, writing the integers
/// straight away; the plan asks only when the int_repr is the quantize's one use, so
/// the quantize step becomes dead.
pub fn match_int_repr<'c: 'a, 'a>(int_repr: OperationRef<'c, 'a>) -> Option<Fused<'c, 'a>> {
    let quantize = named(int_repr.operand(0).ok()?, "torch.aten.quantize_per_tensor")?;
    match_quantized(quantize)
}

/// The float step for `dequantize` (a `torch.aten.dequantize.self`) of a fused
/// accumulator: the convolution or matmul of the dequantized operands, which is what
/// the unfused IR computes. A requantized accumulator matches `match_quantized` too,
/// and then this step is dead and dropped.
pub fn match_dequantized<'c: 'a, 'a>(dequantize: OperationRef<'c, 'a>) -> Option<Fused<'c, 'a>> {
    let op = fused_accumulator(dequantize.result(0).ok()?.into())?;
    let kernel: Kernel = match op.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => quantized_operands::dequantized_conv,
        "torch.aten.matmul" => quantized_operands::dequantized_matmul,
        "torch.aten.mm" => quantized_operands::dequantized_mm,
        _ => return None,
    };
    let operands = (0..op.operand_count())
        .map(|i| op.operand(i).ok().map(Operand::Ir))
        .collect::<Option<Vec<_>>>()?;
    Some(Fused {
        kernel,
        prepare: None,
        operands,
    })
}

/// The convolution or matmul behind `dequantize.self(_make_*(int_repr(op)))` when that
/// is the form `fuse-quantized-ops` writes: `op` applied to `_make_*` operands, and the
/// accumulator's scale `x_scale·w_scale` (per channel: along the output's channel axis)
/// with zero point 0. Anything else is not fused, and runs step by step.
fn fused_accumulator<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let acc = quantized(dq.operand(0).ok()?)?;
    let int_repr = named(acc.int, "torch.aten.int_repr")?;
    let op = defining(int_repr.operand(0).ok()?)?;
    let name = op.name().as_string_ref().as_str().ok()?.to_string();
    if !matches!(
        name.as_str(),
        "torch.aten.convolution" | "torch.aten.matmul" | "torch.aten.mm"
    ) {
        return None;
    }
    let x = quantized(op.operand(0).ok()?)?;
    let w = quantized(op.operand(1).ok()?)?;
    let same = |a: MlirValue, b: MlirValue| a == b;
    match (w.axis, acc.axis) {
        (None, None) => {
            let mul = named(acc.scale, "torch.aten.mul.float")?;
            let scale_ok =
                same(mul.operand(0).ok()?, x.scale) && same(mul.operand(1).ok()?, w.scale);
            (scale_ok && constant_int(acc.zero_point)? == 0).then_some(())?;
        }
        (Some(_), Some(axis)) => {
            let mul = named(acc.scale, "torch.aten.mul.Scalar")?;
            let scale_ok =
                same(mul.operand(0).ok()?, w.scale) && same(mul.operand(1).ok()?, x.scale);
            let rank = rank_of(op.result(0).ok()?.into())? as i64;
            let channel_axis = if name == "torch.aten.convolution" {
                1
            } else {
                rank - 1
            };
            (scale_ok && axis == channel_axis && zeros_literal(acc.zero_point)).then_some(())?;
        }
        _ => return None,
    }
    Some(op)
}

/// Whether `v` is a literal of zeros.
fn zeros_literal(v: MlirValue) -> bool {
    let Some(op) = named(v, "torch.vtensor.literal") else {
        return false;
    };
    let (Ok(attr), Some(ty)) = (
        op.attribute("value"),
        crate::dialect::types::TensorType::parse(&v.r#type().to_string()),
    ) else {
        return false;
    };
    crate::dialect::ops::dense_attribute_data(attr, &ty)
        .is_some_and(|d| d.bytes.iter().all(|&b| b == 0))
}

fn conv<'c: 'a, 'a>(
    conv: OperationRef<'c, 'a>,
    resolve: Resolve<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fused<'c, 'a>> {
    let operand = |i| conv.operand(i).ok();
    if constant_bool(operand(6)?)? {
        return None;
    }
    // An asymmetric padding appears as constant_pad_nd(x, pads, 0.0) before the conv.
    let (input, pads) = match named(operand(0)?, "torch.aten.constant_pad_nd") {
        Some(pad) => {
            if constant_float(pad.operand(2).ok()?)? != 0.0 {
                return None;
            }
            (pad.operand(0).ok()?, Operand::Ir(pad.operand(1).ok()?))
        }
        None => (operand(0)?, Operand::Const(Value::None)),
    };
    let x = resolve(input)?;
    let w = resolve(operand(1)?)?;
    if x.axis.is_some() || w.axis.is_some_and(|a| a != 0) {
        return None;
    }
    let bias = operand(2)?;
    let (bias_int, bias_zero_point) = if is_none(bias) {
        (Operand::Const(Value::None), Operand::Const(Value::None))
    } else {
        let b = resolve(bias)?;
        (Operand::Ir(b.int), Operand::Ir(b.zero_point))
    };
    Some(Fused {
        kernel: qlinear::qlinear_conv,
        prepare: Some(qlinear::prepare_conv),
        operands: vec![
            Operand::Ir(x.int),
            Operand::Ir(x.scale),
            Operand::Ir(x.zero_point),
            Operand::Ir(w.int),
            Operand::Ir(w.scale),
            Operand::Ir(w.zero_point),
            bias_int,
            bias_zero_point,
            Operand::Ir(operand(3)?),
            Operand::Ir(operand(4)?),
            Operand::Ir(operand(5)?),
            Operand::Ir(operand(8)?),
            pads,
            Operand::Ir(y_scale),
            Operand::Ir(y_zero_point),
        ],
    })
}

fn matmul<'c: 'a, 'a>(
    matmul: OperationRef<'c, 'a>,
    resolve: Resolve<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fused<'c, 'a>> {
    let a = resolve(matmul.operand(0).ok()?)?;
    let b = resolve(matmul.operand(1).ok()?)?;
    if a.axis.is_some() {
        return None;
    }
    // Per-column parameters of b run along its last axis.
    let b_rank = rank_of(b.int)?;
    if b.axis.is_some_and(|axis| axis != b_rank as i64 - 1) {
        return None;
    }
    Some(Fused {
        kernel: qlinear::qlinear_matmul,
        prepare: Some(qlinear::prepare_matmul),
        operands: vec![
            Operand::Ir(a.int),
            Operand::Ir(a.scale),
            Operand::Ir(a.zero_point),
            Operand::Ir(b.int),
            Operand::Ir(b.scale),
            Operand::Ir(b.zero_point),
            Operand::Ir(y_scale),
            Operand::Ir(y_zero_point),
        ],
    })
}

fn rank_of(v: MlirValue) -> Option<usize> {
    crate::dialect::types::TensorType::parse(&v.r#type().to_string())?.rank()
}

#[cfg(test)]
mod tests {
    use crate::ir::context::new_context;
    use crate::ir::parse::parse_module;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::runtime::plan::Plan;
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

    /// The plan's steps by op name, and its outputs on `input`, unfused and fused.
    fn plans(source: &str, input: &Tensor) -> [(Vec<String>, Vec<Tensor>); 2] {
        [false, true].map(|fuse| {
            let context = new_context();
            let mut module = parse_module(&context, source, "test").unwrap();
            if fuse {
                fuse_quantized_ops(&context, &mut module).unwrap();
            }
            let plan = Plan::new(&module).unwrap();
            let ops = plan.steps.iter().map(|s| s.op.clone()).collect();
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
        assert_eq!(unfused_ops, ["torch.aten.quantize_per_tensor"]);
        assert_eq!(fused_ops, ["torch.aten.quantize_per_tensor"]);
        assert_eq!(fused, unfused);
    }

    #[test]
    fn a_fused_convolution_used_as_floats_matches_the_unfused_float_path() {
        let x = Tensor::new(vec![1, 1, 2, 2], Data::U8(vec![0, 100, 128, 255])).unwrap();
        let [(_, unfused), (fused_ops, fused)] = plans(&lit_case("conv_per_channel_bias"), &x);
        // The float convolution of the dequantized operands is one step, rooted at the
        // accumulator's dequantize; the qint32 convolution is dead.
        assert_eq!(
            fused_ops,
            [
                "torch.aten._make_per_tensor_quantized_tensor",
                "torch.aten.dequantize.self"
            ]
        );
        assert_eq!(fused, unfused);
    }

    #[test]
    fn a_per_channel_qlinearconv_runs_as_one_fused_step_after_fusion() {
        let path = format!("{ROOT}/test/Import/Inputs/qlinearconv_per_channel.onnx");
        let plan = crate::runtime::model::plan_model(std::path::Path::new(&path)).unwrap();
        let ops: Vec<&str> = plan.steps.iter().map(|s| s.op.as_str()).collect();
        // The int_repr step runs the fused kernel; the quantize it read is dead.
        assert_eq!(ops, ["torch.aten.int_repr"]);
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
}
