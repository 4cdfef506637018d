//! Model inputs from the command line: `-i NAME=FILE` pairs matched to the plan's
//! declared inputs, or random tensors of the declared types for benchmarks.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use half::{bf16, f16};

use qlower::kernels::tensor::{Data, Tensor, bounded_bytes};
use qlower::onnx::dtype::DType;
use qlower::runtime::inputs::bind_inputs;
use qlower::runtime::io::read_tensor;
use qlower::runtime::plan::{Plan, Port};

/// Parses `NAME=FILE`.
pub fn parse_binding(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            Ok((name.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!("'{s}' is not NAME=FILE")),
    }
}

/// The tensors for `plan`'s inputs, in its order, read from the given files.
pub fn bound_inputs(plan: &Plan, bindings: &[(String, PathBuf)]) -> Result<Vec<Tensor>> {
    bind_inputs(
        plan,
        bindings.to_vec(),
        |_, file| read_tensor(&file),
        |port| format!("give it with -i {}=FILE", port.name),
    )
}

/// A deterministic pseudo-random tensor of `port`'s declared type.
pub fn random_input(port: &Port, seed: u64) -> Result<Tensor> {
    let Some(dims) = port.ty.static_dims() else {
        bail!(
            "input '{}' has type {}, whose dynamic size cannot be made up; give it with -i {}=FILE",
            port.name,
            port.ty,
            port.name
        );
    };
    let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let dtype = port.ty.dtype.unwrap_or(DType::F32);
    // The size comes from the model, so it is bounded before anything is allocated.
    let n = bounded_bytes(&shape, dtype).with_context(|| format!("input '{}'", port.name))?;
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut unit = move || (next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    let data = match dtype {
        DType::F32 => Data::F32((0..n).map(|_| unit() as f32).collect()),
        DType::F64 => Data::F64((0..n).map(|_| unit()).collect()),
        DType::F16 => Data::F16((0..n).map(|_| f16::from_f64(unit())).collect()),
        DType::BF16 => Data::BF16((0..n).map(|_| bf16::from_f64(unit())).collect()),
        DType::U8 => Data::U8((0..n).map(|_| ((unit() + 1.0) * 127.5) as u8).collect()),
        DType::I8 => Data::I8((0..n).map(|_| (unit() * 127.0) as i8).collect()),
        // 4-bit values in their 8-bit storage, within their range.
        DType::U4 => Data::U8((0..n).map(|_| ((unit() + 1.0) * 8.0) as u8).collect()),
        DType::I4 => Data::I8((0..n).map(|_| (unit() * 7.5).floor() as i8).collect()),
        DType::Bool => Data::Bool((0..n).map(|_| unit() > 0.0).collect()),
        other => {
            let mut d = Data::zeros(other, n);
            if let Data::I64(v) = &mut d {
                v.iter_mut().for_each(|x| *x = (unit() * 100.0) as i64);
            } else if let Data::I32(v) = &mut d {
                v.iter_mut().for_each(|x| *x = (unit() * 100.0) as i32);
            }
            d
        }
    };
    Tensor::new(shape, data)
}
