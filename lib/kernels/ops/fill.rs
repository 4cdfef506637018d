//! Tensors of one repeated value: `ones_like`, `zeros_like`, `full_like`, and `ones`,
//! `zeros`, `full` of a given size. The layout, device and memory-format operands mean
//! nothing on this backend; the dtype operand (else the declared type, else the
//! input's type or f32) picks the element type.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::from_f64;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.ones_like" => |c| like(c, Some(1.0)),
        "aten.zeros_like" => |c| like(c, Some(0.0)),
        "aten.full_like" => |c| like(c, None),
        "aten.ones" => |c| sized(c, Some(1.0)),
        "aten.zeros" => |c| sized(c, Some(0.0)),
        "aten.full" => |c| sized(c, None),
        _ => return None,
    })
}

/// The element type: operand `at` when it names one, else as declared, else `default`.
fn element_type(c: &Call, at: usize, default: DType) -> Result<DType> {
    let dtype = match args::opt(c, at) {
        Some(_) => args::dtype_code(c, at)?,
        None => args::declared_dtype(c).unwrap_or(default),
    };
    if dtype.is_quantized() {
        bail!("cannot fill a quantized {dtype} tensor with plain values");
    }
    Ok(dtype)
}

fn filled(c: &Call, shape: Vec<usize>, value: f64, dtype: DType) -> Result<Vec<Value>> {
    let n = result_count(&shape)?;
    args::ret(c, Tensor::new(shape, from_f64(dtype, &vec![value; n]))?)
}

/// `ones_like(self, dtype?, ...)`, or `full_like(self, fill_value, dtype?, ...)` when
/// `value` is `None`.
fn like(c: &Call, value: Option<f64>) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let (value, dtype_at) = match value {
        Some(v) => (v, 1),
        None => (args::float(c, 1)?, 2),
    };
    let dtype = element_type(c, dtype_at, x.data.dtype())?;
    filled(c, x.shape.clone(), value, dtype)
}

/// `ones(size, dtype?, ...)`, or `full(size, fill_value, dtype?, ...)` when `value`
/// is `None`.
fn sized(c: &Call, value: Option<f64>) -> Result<Vec<Value>> {
    let shape = args::ints(c, 0)?
        .iter()
        .map(|&s| args::size(s, "a size"))
        .collect::<Result<Vec<_>>>()?;
    let (value, dtype_at) = match value {
        Some(v) => (v, 1),
        None => (args::float(c, 1)?, 2),
    };
    let default = match c.arg(1)? {
        Value::Int(_) if dtype_at == 2 => DType::I64,
        _ => DType::F32,
    };
    let dtype = element_type(c, dtype_at, default)?;
    filled(c, shape, value, dtype)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn like_keeps_the_shape_and_type() {
        let none = Value::None;
        let args = [
            i32s(&[2], &[5, 6]),
            none.clone(),
            none.clone(),
            none.clone(),
            none.clone(),
            none,
        ];
        let t = run1("aten.ones_like", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![1, 1]));
        let args = [
            f32s(&[1, 2], &[0.0, 0.0]),
            Value::Int(DType::U8.torch_scalar_type()),
        ];
        let t = run1("aten.zeros_like", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), t.data.clone()),
            (vec![1, 2], Data::U8(vec![0, 0]))
        );
        let args = [f32s(&[2], &[0.0, 0.0]), Value::Float(2.5), Value::None];
        let t = run1("aten.full_like", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![2.5, 2.5]);
    }

    #[test]
    fn sized_fills() {
        let t = run1("aten.zeros", &[ints(&[2, 1]), Value::None], unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![2, 1], vec![0.0, 0.0])
        );
        let t = run1(
            "aten.full",
            &[ints(&[2]), Value::Int(7), Value::None],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I64(vec![7, 7]));
        assert!(run("aten.ones", &[ints(&[-1]), Value::None], &[unknown()]).is_err());
    }
}
