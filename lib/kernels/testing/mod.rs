//! Test-only code, kept apart from the kernels: helpers for the kernels' unit tests
//! (building operands, running a kernel by its op name as the plan does), and the
//! tests that span many kernels or check a fast path against its reference.

mod coverage;
pub(crate) mod layering;
mod qconv;
mod qmatmul;
mod robustness;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;

use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, ResultType, lookup};

pub fn tensor(shape: &[usize], data: Data) -> Value {
    Value::tensor(Tensor::new(shape.to_vec(), data).unwrap())
}

pub fn f32s(shape: &[usize], v: &[f32]) -> Value {
    tensor(shape, Data::F32(v.to_vec()))
}

pub fn i32s(shape: &[usize], v: &[i32]) -> Value {
    tensor(shape, Data::I32(v.to_vec()))
}

pub fn ints(v: &[i64]) -> Value {
    Value::IntList(v.to_vec())
}

/// A result of `dtype` and unknown shape.
pub fn of(dtype: DType) -> ResultType {
    ResultType::Tensor(TensorType {
        dtype: Some(dtype),
        shape: None,
    })
}

/// A result of unknown type.
pub fn unknown() -> ResultType {
    ResultType::Tensor(TensorType::unknown())
}

/// Runs `torch.<op>` on `args`, declaring `results`.
pub fn run(op: &str, args: &[Value], results: &[ResultType]) -> Result<Vec<Value>> {
    let kernel =
        lookup(&format!("torch.{op}")).ok_or_else(|| anyhow::anyhow!("no kernel for {op}"))?;
    kernel(&Call { args, results })
}

/// Runs `op` with one tensor result declared as `result` and returns that tensor.
pub fn run1(op: &str, args: &[Value], result: ResultType) -> Result<Arc<Tensor>> {
    let out = run(op, args, &[result])?;
    match out.into_iter().next() {
        Some(Value::Tensor(t)) => Ok(t),
        other => anyhow::bail!("expected one tensor result, got {other:?}"),
    }
}

/// The f32 values of a tensor result.
pub fn f32_values(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F32(v) => v.clone(),
        other => panic!("expected f32 data, got {:?}", other.dtype()),
    }
}

/// Every op name the kernel files register (the quoted names in their `lookup`s).
pub fn registered_ops() -> Vec<String> {
    let mut names = Vec::new();
    for path in library_sources() {
        let text = std::fs::read_to_string(&path).expect("source is readable");
        for piece in text.split('"').skip(1).step_by(2) {
            let plausible = piece.starts_with("aten.")
                || piece.starts_with("prim.")
                || piece == "tensor_static_info_cast";
            if plausible && lookup(&format!("torch.{piece}")).is_some() {
                names.push(piece.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Every `.rs` file of the kernel library, in every folder, sorted.
pub fn library_sources() -> Vec<PathBuf> {
    layering::sources_under("kernels")
}

/// A small deterministic generator for the kernels' tests, so failures reproduce.
pub fn test_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// `test_bytes` as u8 or i8 data.
pub fn test_data(seed: u64, n: usize, signed: bool) -> Data {
    let b = test_bytes(seed, n);
    if signed {
        Data::I8(b.into_iter().map(|v| v as i8).collect())
    } else {
        Data::U8(b)
    }
}

/// Deterministic f32 test values that exercise rounding: normal numbers of mixed
/// magnitudes and signs, subnormals, ±0.0 and, with `specials`, NaNs (with payloads and
/// either sign), infinities and values near f32::MAX.
pub fn awkward_f32s(seed: u64, n: usize, specials: bool) -> Vec<f32> {
    const SPECIAL: [f32; 8] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -f32::NAN,
        // A quiet NaN with a payload.
        f32::from_bits(0x7fc1_2345),
    ];
    let b = test_bytes(seed, n * 5);
    b.chunks_exact(5)
        .map(|c| {
            let bits = u32::from_le_bytes([c[1], c[2], c[3], c[4]]);
            let sign = bits & 0x8000_0000;
            match c[0] {
                0..=11 if specials => SPECIAL[usize::from(c[0]) % SPECIAL.len()],
                0..=23 => f32::from_bits(sign | (bits & 0x007f_ffff)),
                24..=29 => f32::from_bits(sign),
                _ => {
                    // Exponents from 2^-12 to 2^11, full mantissas.
                    let exp = 115 + (c[0] as u32 % 24);
                    f32::from_bits(sign | (exp << 23) | (bits & 0x007f_ffff))
                }
            }
        })
        .collect()
}

/// Asserts that `fast` and `slow` hold the same f32 bit patterns (NaN payloads and the
/// sign of zero included), naming the first element that differs.
#[track_caller]
pub fn assert_same_f32_bits(fast: &[f32], slow: &[f32], what: &str) {
    assert_eq!(fast.len(), slow.len(), "{what}: lengths");
    if let Some(i) = (0..fast.len()).find(|&i| fast[i].to_bits() != slow[i].to_bits()) {
        panic!(
            "{what}: element {i} is {:#010x} ({}), expected {:#010x} ({})",
            fast[i].to_bits(),
            fast[i],
            slow[i].to_bits(),
            slow[i]
        );
    }
}
