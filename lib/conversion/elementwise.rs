//! Add, Sub, Mul and Div. From opset 7 both operands broadcast numpy-style; before it
//! B broadcasts onto A only when `broadcast` is 1, aligned at `axis` or at the end.

use anyhow::{Result, anyhow, bail};
use melior::ir::Value;
use melior::ir::attribute::StringAttribute;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Add", 1, add_legacy);
    r.on_op("Add", 7, add);
    r.on_op("Sub", 1, sub_legacy);
    r.on_op("Sub", 7, sub);
    r.on_op("Mul", 1, mul_legacy);
    r.on_op("Mul", 7, mul);
    r.on_op("Div", 1, div_legacy);
    r.on_op("Div", 7, div);
}

#[derive(Clone, Copy)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn add<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Add, false)
}

fn add_legacy<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Add, true)
}

fn sub<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Sub, false)
}

fn sub_legacy<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Sub, true)
}

fn mul<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Mul, false)
}

fn mul_legacy<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Mul, true)
}

fn div<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Div, false)
}

fn div_legacy<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    binary(b, t, Arith::Div, true)
}

fn binary<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    arith: Arith,
    legacy: bool,
) -> Lowered<'c, 'a> {
    let lhs = b.input(0, "A")?;
    let rhs = b.input(1, "B")?;
    let a_type = b.input_type(0, "A")?;
    let b_type = b.input_type(1, "B")?;
    let result = b.result_type(0)?;
    if let (Some(x), Some(y)) = (a_type.dtype, b_type.dtype)
        && x != y
    {
        bail!("A is {x} but B is {y}");
    }
    let trailing = if legacy {
        legacy_trailing_ones(b, &a_type, &b_type)?
    } else {
        0
    };
    let unsqueezed = with_trailing_ones(&b_type, trailing);
    check_broadcast(&a_type, &unsqueezed)?;
    // ONNX Div of integers truncates toward zero; torch's plain div.Tensor is true division.
    let integer_div = match arith {
        Arith::Div => {
            let dtype = result.dtype.or(a_type.dtype).or(b_type.dtype).ok_or_else(|| {
                anyhow!("the element type is unknown, so float and integer division cannot be told apart")
            })?;
            if dtype == DType::Bool {
                bail!("Div of BOOL tensors is not defined");
            }
            dtype.is_integer()
        }
        _ => false,
    };

    let mut rhs = rhs;
    let mut rhs_type = b_type.clone();
    for _ in 0..trailing {
        rhs_type = with_trailing_ones(&rhs_type, 1);
        let last = t.int(-1)?;
        rhs = t.aten_tensor("unsqueeze", &[rhs, last], &rhs_type)?;
    }
    let y = match arith {
        Arith::Add => t.aten_tensor("add.Tensor", &[lhs, rhs, t.int(1)?], &result)?,
        Arith::Sub => t.aten_tensor("sub.Tensor", &[lhs, rhs, t.int(1)?], &result)?,
        Arith::Mul => t.aten_tensor("mul.Tensor", &[lhs, rhs], &result)?,
        Arith::Div if integer_div => {
            let mode = string_constant(t, "trunc")?;
            t.aten_tensor("div.Tensor_mode", &[lhs, rhs, mode], &result)?
        }
        Arith::Div => t.aten_tensor("div.Tensor", &[lhs, rhs], &result)?,
    };
    Ok(vec![y])
}

/// How many size-1 dimensions B needs appended so that numpy-style broadcasting lines
/// it up with A the way the pre-7 `broadcast`/`axis` attributes say.
fn legacy_trailing_ones(b: &Binder, a_type: &TensorType, b_type: &TensorType) -> Result<usize> {
    let broadcast = b.int("broadcast", 0)?;
    let axis = b.optional_int("axis")?;
    match broadcast {
        0 => {
            if axis.is_some() {
                bail!("attribute 'axis' is set but 'broadcast' is 0");
            }
            if let (Some(x), Some(y)) = (&a_type.shape, &b_type.shape) {
                let same = x.len() == y.len()
                    && x.iter().zip(y).all(|(p, q)| match (p, q) {
                        (Some(p), Some(q)) => p == q,
                        _ => true,
                    });
                if !same {
                    bail!(
                        "A is {a_type} and B is {b_type}: without 'broadcast' = 1 their shapes must be equal"
                    );
                }
            }
            Ok(0)
        }
        1 => {
            if let (Some(a_rank), Some(b_rank)) = (a_type.rank(), b_type.rank())
                && b_rank > a_rank
            {
                bail!("B has rank {b_rank}, more than A's {a_rank}: B can only broadcast onto A");
            }
            let Some(axis) = axis else {
                return Ok(0);
            };
            let (Some(a_rank), Some(b_rank)) = (a_type.rank(), b_type.rank()) else {
                bail!("attribute 'axis' needs A and B of known rank");
            };
            let rank = a_rank as i64;
            if axis < -rank || axis >= rank.max(1) {
                bail!("attribute 'axis' is {axis}, outside the rank {rank} of A");
            }
            let axis = if axis < 0 { axis + rank } else { axis };
            let end = axis + b_rank as i64;
            if end > rank {
                bail!(
                    "attribute 'axis' is {axis} but B has rank {b_rank}: B would extend past the rank {rank} of A"
                );
            }
            Ok((rank - end) as usize)
        }
        other => bail!("attribute 'broadcast' is {other}, expected 0 or 1"),
    }
}

fn with_trailing_ones(t: &TensorType, n: usize) -> TensorType {
    TensorType {
        dtype: t.dtype,
        shape: t.shape.as_ref().map(|dims| {
            let mut dims = dims.clone();
            dims.extend(std::iter::repeat_n(Some(1), n));
            dims
        }),
    }
}

/// Refuses operands whose known sizes cannot broadcast numpy-style.
fn check_broadcast(a: &TensorType, b: &TensorType) -> Result<()> {
    let (Some(x), Some(y)) = (&a.shape, &b.shape) else {
        return Ok(());
    };
    for (p, q) in x.iter().rev().zip(y.iter().rev()) {
        if let (Some(p), Some(q)) = (p, q)
            && p != q
            && *p != 1
            && *q != 1
        {
            bail!("A is {a} and B is {b}: sizes {p} and {q} do not broadcast");
        }
    }
    Ok(())
}

/// `torch.constant.str`, which the builder has no helper for.
fn string_constant<'c, 'a>(t: &TorchBuilder<'c, 'a>, value: &str) -> Result<Value<'c, 'a>> {
    let attr = StringAttribute::new(t.context(), value).into();
    let op = t.op(
        "torch.constant.str",
        &[],
        &[t.torch_type("str")?],
        &[("value", attr)],
    )?;
    Ok(op.result(0)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: &[Option<i64>]) -> TensorType {
        TensorType::new(DType::F32, dims.to_vec())
    }

    #[test]
    fn broadcasting_allows_ones_and_unknown_sizes() {
        let a = shape(&[Some(3), Some(1), None]);
        assert!(check_broadcast(&a, &shape(&[Some(4), Some(7)])).is_ok());
        assert!(check_broadcast(&a, &shape(&[])).is_ok());
        assert!(check_broadcast(&a, &TensorType::unknown()).is_ok());
        let err = check_broadcast(&shape(&[Some(2), Some(3)]), &shape(&[Some(2)])).unwrap_err();
        assert!(err.to_string().contains("sizes 3 and 2 do not broadcast"));
    }

    #[test]
    fn trailing_ones_extend_known_shapes_only() {
        let b = with_trailing_ones(&shape(&[Some(3)]), 2);
        assert_eq!(b, shape(&[Some(3), Some(1), Some(1)]));
        assert_eq!(
            with_trailing_ones(&TensorType::unknown(), 2),
            TensorType::unknown()
        );
    }
}
