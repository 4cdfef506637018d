//! MatMul as `torch.aten.matmul` (numpy semantics: 1-D operands and broadcast batch
//! dimensions), and Gemm as `torch.aten.mm` of the (transposed) operands, scaled by
//! alpha, plus beta·C broadcast onto [M, N].

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("MatMul", 1, matmul);
    r.on_op("Gemm", 1, gemm);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// An error unless `x` and `y` have the same known element type.
fn same_dtype(x: &TensorType, x_name: &str, y: &TensorType, y_name: &str) -> Result<()> {
    match (x.dtype, y.dtype) {
        (Some(a), Some(b)) if a == b => Ok(()),
        _ => bail!("{x_name} is {x} and {y_name} is {y}: they must have the same element type"),
    }
}

fn matmul<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    let bm = b.input(1, "B")?;
    let b_type = b.input_type(1, "B")?;
    same_dtype(&a_type, "A", &b_type, "B")?;
    for (ty, name) in [(&a_type, "A"), (&b_type, "B")] {
        if ty.rank() == Some(0) {
            bail!("{name} is a scalar, but matrix multiplication needs rank 1 or more");
        }
    }
    // A 1-D A is a row, a 1-D B a column: the contracted sizes are A's last and B's
    // first (1-D) or second-to-last.
    let inner_a = a_type
        .shape
        .as_ref()
        .and_then(|s| s.last().copied().flatten());
    let inner_b = b_type.shape.as_ref().and_then(|s| match s.len() {
        1 => s[0],
        r => s[r - 2],
    });
    if let (Some(k1), Some(k2)) = (inner_a, inner_b)
        && k1 != k2
    {
        bail!("A is {a_type} and B is {b_type}: the contracted dimensions {k1} and {k2} differ");
    }
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("matmul", &[a, bm], &result)?])
}

/// (rows, columns) of a 2-D operand after an optional transpose.
fn matrix(ty: &TensorType, name: &str, transposed: bool) -> Result<(Dim, Dim)> {
    match ty.shape.as_deref() {
        Some([r, c]) if transposed => Ok((*c, *r)),
        Some([r, c]) => Ok((*r, *c)),
        _ => bail!("{name} must be 2-D, but is {ty}"),
    }
}

fn gemm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    let bm = b.input(1, "B")?;
    let b_type = b.input_type(1, "B")?;
    same_dtype(&a_type, "A", &b_type, "B")?;
    let Some(dtype) = a_type.dtype else {
        bail!("A has an unknown element type");
    };
    let trans_a = b.int("transA", 0)? != 0;
    let trans_b = b.int("transB", 0)? != 0;
    let (m, k1) = matrix(&a_type, "A", trans_a)?;
    let (k2, n) = matrix(&b_type, "B", trans_b)?;
    if let (Some(k1), Some(k2)) = (k1, k2)
        && k1 != k2
    {
        bail!(
            "A is {a_type} (transA = {}) and B is {b_type} (transB = {}): the contracted dimensions {k1} and {k2} differ",
            trans_a as i64,
            trans_b as i64
        );
    }
    let alpha = b.float("alpha", 1.0)?;
    let beta = b.float("beta", 1.0)?;
    // The reference adds beta·C only when beta is not 0, so an infinite or NaN C
    // cannot leak into the result through 0·C.
    let c = match b.optional_input(2) {
        Some(v) if beta != 0.0 => {
            let c_type = b.input_type(2, "C")?;
            same_dtype(&c_type, "C", &a_type, "A")?;
            check_c(b, &c_type, m, n)?;
            Some(v)
        }
        _ => None,
    };
    // Integer Gemm scales by integers: a fractional alpha or beta has no exact meaning.
    let scalar = |v: f64, name: &str| -> Result<()> {
        if !dtype.is_float() && v.fract() != 0.0 {
            bail!("attribute '{name}' is {v}, but A is {a_type}: integer Gemm needs whole numbers");
        }
        Ok(())
    };
    scalar(alpha, "alpha")?;
    scalar(beta, "beta")?;
    let result = b.result_type(0)?;

    let transpose = |v: Value<'c, 'a>, ty: &TensorType| -> Result<Value<'c, 'a>> {
        let reversed = TensorType {
            dtype: ty.dtype,
            shape: ty.shape.as_ref().map(|s| s.iter().rev().copied().collect()),
        };
        let zero = t.int(0)?;
        let one = t.int(1)?;
        t.aten_tensor("transpose.int", &[v, zero, one], &reversed)
    };
    let a = if trans_a { transpose(a, &a_type)? } else { a };
    let bm = if trans_b { transpose(bm, &b_type)? } else { bm };
    let product_type = TensorType::new(dtype, vec![m, n]);
    let last = alpha == 1.0 && c.is_none();
    let mm_type = if last { &result } else { &product_type };
    let mut y = t.aten_tensor("mm", &[a, bm], mm_type)?;
    let number = |v: f64| {
        if dtype.is_float() {
            t.float(v)
        } else {
            t.int(v as i64)
        }
    };
    if alpha != 1.0 {
        let scaled_type = if c.is_none() { &result } else { &product_type };
        y = t.aten_tensor("mul.Scalar", &[y, number(alpha)?], scaled_type)?;
    }
    if let Some(c) = c {
        // add.Tensor's alpha scales its second operand: y + beta·C.
        let beta = if beta == 1.0 {
            t.int(1)?
        } else {
            number(beta)?
        };
        y = t.aten_tensor("add.Tensor", &[y, c, beta], &result)?;
    }
    Ok(vec![y])
}

/// C must broadcast onto [M, N] without growing it; before opset 7 it has to be
/// [M, N] itself unless the `broadcast` attribute is 1.
fn check_c(b: &Binder, c: &TensorType, m: Dim, n: Dim) -> Result<()> {
    let Some(dims) = &c.shape else {
        return Ok(());
    };
    if b.opset < 7 && b.int("broadcast", 0)? == 0 {
        let exact = dims.len() == 2
            && [m, n]
                .iter()
                .zip(dims)
                .all(|(want, got)| !matches!((want, got), (Some(w), Some(g)) if w != g));
        if !exact {
            bail!(
                "C is {c}, but without 'broadcast' it must be [M, N] = [{}, {}]",
                show(m),
                show(n)
            );
        }
        return Ok(());
    }
    if dims.len() > 2 {
        bail!("C is {c}, but must broadcast onto [M, N], so have rank 2 or less");
    }
    let target = [m, n];
    for (got, want) in dims.iter().rev().zip(target.iter().rev()) {
        if let (Some(g), Some(w)) = (got, want)
            && *g != 1
            && g != w
        {
            bail!(
                "C is {c}, which does not broadcast onto [M, N] = [{}, {}]",
                show(m),
                show(n)
            );
        }
    }
    Ok(())
}

fn show(d: Dim) -> String {
    d.map_or("?".to_string(), |d| d.to_string())
}
