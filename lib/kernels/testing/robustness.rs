//! No kernel panics, whatever its operands: every registered op is called with many
//! pseudo-random operand lists (wrong kinds, wrong ranks, empty and huge sizes, NaNs,
//! extreme integers, quantized tensors) and must return a value or an error.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use super::registered_ops;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, ResultType, lookup};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

const SHAPES: &[&[usize]] = &[
    &[],
    &[0],
    &[1],
    &[3],
    &[2, 3],
    &[3, 0],
    &[1, 2, 3],
    &[2, 2, 2],
    &[1, 2, 3, 3],
    &[1, 1, 2, 2, 2],
];

const INTS: &[i64] = &[
    -3,
    -1,
    0,
    1,
    2,
    3,
    6,
    13,
    i64::MAX,
    i64::MIN,
    1 << 40,
    1 << 62,
];

fn tensor(rng: &mut Rng) -> Tensor {
    let shape = rng.pick(SHAPES).to_vec();
    let n: usize = shape.iter().product();
    let floats = [0.0, -1.5, 2.5, f32::NAN, f32::INFINITY, 1e30, -0.0];
    let data = match rng.below(7) {
        0 | 1 => Data::F32((0..n).map(|_| rng.pick(&floats)).collect()),
        2 => Data::I32(
            (0..n)
                .map(|_| rng.pick(&[0, 1, -1, i32::MAX, i32::MIN]))
                .collect(),
        ),
        3 => Data::U8((0..n).map(|_| rng.pick(&[0, 1, 255])).collect()),
        4 => Data::I8((0..n).map(|_| rng.pick(&[0, -128, 127])).collect()),
        5 => Data::I64((0..n).map(|_| rng.pick(&[0, 2, -1, i64::MAX])).collect()),
        _ => Data::Bool((0..n).map(|_| rng.below(2) == 1).collect()),
    };
    let mut t = Tensor::new(shape, data).expect("consistent test tensor");
    if matches!(t.data, Data::U8(_) | Data::I8(_) | Data::I32(_)) && rng.below(3) == 0 {
        t.quant = Some(match rng.below(2) {
            0 => Quant::PerTensor {
                scale: rng.pick(&[0.5, 0.0, f64::NAN]),
                zero_point: rng.pick(&[0, 3, 300]),
            },
            _ => Quant::PerChannel {
                scales: vec![1.0; rng.below(4)],
                zero_points: vec![0; rng.below(4)],
                axis: rng.below(5),
            },
        });
    }
    t
}

fn value(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0..=3 => Value::tensor(tensor(rng)),
        4 => Value::Int(rng.pick(INTS)),
        5 => Value::Float(rng.pick(&[0.0, -1.5, 0.5, f64::NAN, f64::INFINITY, 1e300])),
        6 => Value::Bool(rng.below(2) == 1),
        7 => Value::Str(
            rng.pick(&[
                "floor", "trunc", "reflect", "circular", "nearest", "bilinear", "x",
            ])
            .to_string(),
        ),
        8 => Value::None,
        9 => Value::IntList((0..rng.below(6)).map(|_| rng.pick(INTS)).collect()),
        10 => Value::FloatList(
            (0..rng.below(4))
                .map(|_| rng.pick(&[0.5, 2.0, 0.0, -1.0]))
                .collect(),
        ),
        _ => Value::TensorList((0..rng.below(4)).map(|_| Arc::new(tensor(rng))).collect()),
    }
}

fn result_type(rng: &mut Rng) -> ResultType {
    match rng.below(6) {
        0 => ResultType::Tensor(TensorType::unknown()),
        1 => ResultType::Int,
        2 => ResultType::List("vtensor".into()),
        _ => {
            let dtype = rng.pick(&[
                DType::F32,
                DType::I32,
                DType::U8,
                DType::QUInt8,
                DType::Bool,
            ]);
            ResultType::Tensor(TensorType {
                dtype: Some(dtype),
                shape: None,
            })
        }
    }
}

/// Operand kinds of the ops with long signatures, so that calls get past the first
/// operand checks: `t` tensor, `n` tensor or none, `i` int, `o` int or none, `f`
/// float, `b` bool, `s` str, `l` int list, `p` int list or none, `q` float list or
/// none, `T` tensor list.
const SIGNATURES: &[(&str, &str)] = &[
    ("aten.convolution", "ttnlllbli"),
    ("aten.conv2d", "ttnllli"),
    ("aten.max_pool1d", "tllllb"),
    ("aten.max_pool2d", "tllllb"),
    ("aten.max_pool3d", "tllllb"),
    ("aten.avg_pool1d", "tlllbb"),
    ("aten.avg_pool2d", "tlllbbo"),
    ("aten.avg_pool3d", "tlllbbo"),
    ("aten.adaptive_avg_pool2d", "tl"),
    ("aten.__interpolate.size_list_scale_list", "tpqsbnb"),
    ("aten.slice.Tensor", "tiooi"),
    ("aten.select.int", "tii"),
    ("aten.index_select", "tit"),
    ("aten.narrow", "tiii"),
    ("aten.flip", "tl"),
    ("aten.expand", "tlb"),
    ("aten.constant_pad_nd", "tlf"),
    ("aten.pad", "tlsn"),
    ("aten.batch_norm", "tnnnnbffb"),
    ("aten.quantize_per_tensor", "tfii"),
    ("aten.quantize_per_channel", "tttii"),
    ("aten._make_per_tensor_quantized_tensor", "tfi"),
    ("aten._make_per_channel_quantized_tensor", "ttti"),
    ("aten.matmul", "tt"),
    ("aten.mm", "tt"),
    ("aten.bmm", "tt"),
    ("aten.cat", "Ti"),
    ("aten.stack", "Ti"),
    ("aten.split_with_sizes", "tli"),
    ("aten.split.Tensor", "tii"),
    ("aten.reshape", "tl"),
    ("aten.permute", "tl"),
    ("aten.transpose.int", "tii"),
    ("aten.flatten.using_ints", "tii"),
    ("aten.unflatten.int", "til"),
    ("aten.squeeze.dim", "ti"),
    ("aten.unsqueeze", "ti"),
    ("aten.softmax.int", "tio"),
    ("aten.log_softmax.int", "tio"),
    ("aten.add.Tensor", "tti"),
    ("aten.sub.Tensor", "tti"),
    ("aten.div.Tensor_mode", "tts"),
    ("aten.clamp", "tff"),
    ("aten.clamp.Tensor", "tnn"),
    ("aten.where.self", "ttt"),
    ("aten.to.dtype", "tibbn"),
    ("aten.mean.dim", "tpbo"),
    ("aten.sum.dim_IntList", "tpbo"),
    ("aten.amax", "tlb"),
    ("aten.max.dim", "tib"),
    ("aten.argmax", "tob"),
    ("aten.full", "lfo"),
    ("aten.ones_like", "to"),
    ("aten.leaky_relu", "tf"),
    ("aten.hardtanh", "tff"),
];

/// A value of the given kind; now and then any value, to test the checks too.
fn value_of(rng: &mut Rng, kind: char) -> Value {
    if rng.below(10) == 0 {
        return value(rng);
    }
    let small = [-1, 0, 1, 2, 3];
    match kind {
        't' => Value::tensor(tensor(rng)),
        'n' if rng.below(3) == 0 => Value::None,
        'n' => Value::tensor(tensor(rng)),
        'i' => Value::Int(rng.pick(&small)),
        'o' if rng.below(3) == 0 => Value::None,
        'o' => Value::Int(rng.pick(&small)),
        'f' => Value::Float(rng.pick(&[0.0, 0.5, -1.0, 6.0])),
        'b' => Value::Bool(rng.below(2) == 1),
        's' => Value::Str(
            rng.pick(&[
                "floor",
                "trunc",
                "reflect",
                "replicate",
                "nearest",
                "bilinear_asymmetric",
                "nearest_half_pixel,round_prefer_floor",
            ])
            .to_string(),
        ),
        'l' => Value::IntList((0..rng.below(5)).map(|_| rng.pick(&small)).collect()),
        'p' if rng.below(3) == 0 => Value::None,
        'p' => Value::IntList((0..rng.below(5)).map(|_| rng.pick(&small)).collect()),
        'q' if rng.below(2) == 0 => Value::None,
        'q' => Value::FloatList(
            (0..rng.below(4))
                .map(|_| rng.pick(&[0.5, 1.0, 2.0]))
                .collect(),
        ),
        _ => Value::TensorList((0..rng.below(4)).map(|_| Arc::new(tensor(rng))).collect()),
    }
}

#[test]
fn no_kernel_panics_on_operands_of_the_right_kinds() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut panics = Vec::new();
    for (op, signature) in SIGNATURES {
        let kernel = lookup(&format!("torch.{op}")).expect("the signature names a kernel");
        for _ in 0..3000 {
            let args: Vec<Value> = signature.chars().map(|k| value_of(&mut rng, k)).collect();
            let results = [result_type(&mut rng)];
            let call = Call {
                args: &args,
                results: &results,
            };
            if catch_unwind(AssertUnwindSafe(|| kernel(&call))).is_err() {
                panics.push(format!("{op} with {args:?} -> {results:?}"));
                break;
            }
        }
    }
    assert!(
        panics.is_empty(),
        "kernels panicked:\n{}",
        panics.join("\n")
    );
}

#[test]
fn no_kernel_panics_on_any_operands() {
    let ops = registered_ops();
    assert!(ops.len() > 80, "found only {} registered ops", ops.len());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut panics = Vec::new();
    for op in &ops {
        let kernel = lookup(&format!("torch.{op}")).expect("registered");
        for _ in 0..400 {
            let args: Vec<Value> = (0..rng.below(10)).map(|_| value(&mut rng)).collect();
            let results: Vec<ResultType> =
                (0..rng.below(3)).map(|_| result_type(&mut rng)).collect();
            let call = Call {
                args: &args,
                results: &results,
            };
            if catch_unwind(AssertUnwindSafe(|| kernel(&call))).is_err() {
                panics.push(format!("{op} with {args:?} -> {results:?}"));
                break;
            }
        }
    }
    assert!(
        panics.is_empty(),
        "kernels panicked:\n{}",
        panics.join("\n")
    );
}
