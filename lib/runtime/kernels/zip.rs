//! Element-wise evaluation over broadcast operands: tensors and torch scalars, read
//! into the f64 or i64 domain (see `data.rs`), combined element by element.

use anyhow::{Result, bail};

use super::Call;
use super::args;
use super::data::{Prec, from_f64, from_i64};
use super::layout::{broadcast_map, broadcast_shapes, result_count};
use super::promote::{Operand, result_type};
use crate::onnx::dtype::DType;
use crate::runtime::tensor::Tensor;
use crate::runtime::value::Value;

/// The most operands one element-wise op takes (`where`, `clamp.Tensor`).
const MAX_ARITY: usize = 3;

/// One operand of an element-wise op.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Tensor(&'a Tensor),
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// Operand `i` of `c`: a tensor (never a quantized one: those are dequantized before
/// arithmetic) or a scalar.
pub fn arg<'c>(c: &'c Call, i: usize) -> Result<Arg<'c>> {
    Ok(match c.arg(i)? {
        Value::Tensor(_) => {
            let t = args::tensor(c, i)?;
            if t.quant.is_some() {
                bail!(
                    "operand {i} is a quantized {} tensor; this op takes plain values",
                    t.dtype()
                );
            }
            Arg::Tensor(t)
        }
        Value::Int(v) => Arg::Int(*v),
        Value::Float(v) => Arg::Float(*v),
        Value::Bool(v) => Arg::Bool(*v),
        other => bail!(
            "operand {i}: expected a tensor or a scalar, got {}",
            other.kind()
        ),
    })
}

/// Operand `i`, or `None` for `!torch.none` or a missing trailing operand.
pub fn opt_arg<'c>(c: &'c Call, i: usize) -> Result<Option<Arg<'c>>> {
    match args::opt(c, i) {
        None => Ok(None),
        Some(_) => arg(c, i).map(Some),
    }
}

impl Arg<'_> {
    pub fn operand(&self) -> Operand {
        match self {
            Arg::Tensor(t) => Operand::Tensor(t.dtype(), t.rank()),
            Arg::Int(_) => Operand::Int,
            Arg::Float(_) => Operand::Float,
            Arg::Bool(_) => Operand::Bool,
        }
    }

    pub fn shape(&self) -> &[usize] {
        match self {
            Arg::Tensor(t) => &t.shape,
            _ => &[],
        }
    }

    /// The values as the given float precision holds them: a scalar or an integer
    /// becomes that dtype first, as torch converts operands to the computation type.
    pub fn floats(&self, prec: Prec) -> Vec<f64> {
        let raw = match self {
            Arg::Tensor(t) => t.data.to_f64(),
            Arg::Int(v) => vec![*v as f64],
            Arg::Float(v) => vec![*v],
            Arg::Bool(v) => vec![f64::from(u8::from(*v))],
        };
        raw.into_iter().map(|x| prec.round(x)).collect()
    }

    /// The values as integers; float values truncate toward zero.
    pub fn ints(&self) -> Vec<i64> {
        match self {
            Arg::Tensor(t) => t.data.to_i64(),
            Arg::Int(v) => vec![*v],
            Arg::Float(v) => vec![*v as i64],
            Arg::Bool(v) => vec![i64::from(*v)],
        }
    }
}

/// `f` applied to the broadcast elements of `inputs` (each a shape and its values):
/// the broadcast shape and one result per element, in row-major order.
pub fn zip<T: Copy + Default, R>(
    inputs: &[(&[usize], Vec<T>)],
    mut f: impl FnMut(&[T]) -> Result<R>,
) -> Result<(Vec<usize>, Vec<R>)> {
    if inputs.len() > MAX_ARITY {
        bail!(
            "internal error: {} operands to an element-wise op",
            inputs.len()
        );
    }
    let mut shape = Vec::new();
    for (s, _) in inputs {
        shape = broadcast_shapes(&shape, s)?;
    }
    let n = result_count(&shape)?;
    let maps = inputs
        .iter()
        .map(|(s, _)| broadcast_map(s, &shape))
        .collect::<Result<Vec<_>>>()?;
    let mut buf = [T::default(); MAX_ARITY];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        for (k, ((_, values), map)) in inputs.iter().zip(&maps).enumerate() {
            buf[k] = values[map.as_ref().map_or(i, |m| m[i])];
        }
        out.push(f(&buf[..inputs.len()])?);
    }
    Ok((shape, out))
}

/// `f` over `args` in the f64 domain at precision `prec`, each result rounded to it.
pub fn zip_float(
    args: &[Arg],
    prec: Prec,
    f: impl Fn(&[f64]) -> f64,
) -> Result<(Vec<usize>, Vec<f64>)> {
    let inputs: Vec<(&[usize], Vec<f64>)> =
        args.iter().map(|a| (a.shape(), a.floats(prec))).collect();
    zip(&inputs, |x| Ok(prec.round(f(x))))
}

/// `f` over `args` in the i64 domain.
pub fn zip_int(args: &[Arg], f: impl Fn(&[i64]) -> Result<i64>) -> Result<(Vec<usize>, Vec<i64>)> {
    let inputs: Vec<(&[usize], Vec<i64>)> = args.iter().map(|a| (a.shape(), a.ints())).collect();
    zip(&inputs, f)
}

/// The result's element type: as declared, else as torch promotes `operands`.
pub fn out_dtype(c: &Call, operands: &[Arg]) -> Result<DType> {
    let ops: Vec<Operand> = operands.iter().map(Arg::operand).collect();
    let dtype = args::declared_dtype(c)
        .or_else(|| result_type(&ops))
        .ok_or_else(|| anyhow::anyhow!("the result type cannot be determined"))?;
    if dtype.is_quantized() {
        bail!("the IR declares a quantized {dtype} result for plain values");
    }
    Ok(dtype)
}

/// The one result, of `dtype`, from values in the f64 domain.
pub fn float_result(c: &Call, shape: Vec<usize>, v: &[f64], dtype: DType) -> Result<Vec<Value>> {
    args::ret(c, Tensor::new(shape, from_f64(dtype, v))?)
}

/// The one result, of `dtype`, from values in the i64 domain.
pub fn int_result(c: &Call, shape: Vec<usize>, v: &[i64], dtype: DType) -> Result<Vec<Value>> {
    args::ret(c, Tensor::new(shape, from_i64(dtype, v))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::tensor::Data;

    #[test]
    fn operands_broadcast_against_each_other_and_scalars() {
        let a = Tensor::new(vec![2, 1], Data::F32(vec![1.0, 2.0])).unwrap();
        let b = Tensor::new(vec![3], Data::F32(vec![10.0, 20.0, 30.0])).unwrap();
        let (shape, v) = zip_float(
            &[Arg::Tensor(&a), Arg::Tensor(&b), Arg::Int(100)],
            Prec(DType::F32),
            |x| x[0] + x[1] + x[2],
        )
        .unwrap();
        assert_eq!(shape, vec![2, 3]);
        assert_eq!(v, vec![111.0, 121.0, 131.0, 112.0, 122.0, 132.0]);
    }

    #[test]
    fn scalars_take_the_computation_precision() {
        let (_, v) = zip_float(&[Arg::Float(0.1)], Prec(DType::F32), |x| x[0]).unwrap();
        assert_eq!(v, vec![0.1f32 as f64]);
    }
}
