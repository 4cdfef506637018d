//! `arange.start_step(start, end, step, dtype?, layout, device, pin_memory)`: the
//! values `start + i * step` for `i` in `0..ceil((end - start) / step)` (none when that
//! is not positive, as ONNX Range has it). The bounds are torch ints or floats; the
//! dtype operand (else the declared type, else i64 for ints and f32 for floats) picks
//! the element type.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{from_f64, from_i64};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.arange.start_step" => arange,
        _ => return None,
    })
}

fn arange(c: &Call) -> Result<Vec<Value>> {
    let bounds = [c.arg(0)?, c.arg(1)?, c.arg(2)?];
    let all_ints = bounds.iter().all(|v| matches!(v, Value::Int(_)));
    let dtype = match args::opt(c, 3) {
        Some(_) => args::dtype_code(c, 3)?,
        None => args::declared_dtype(c).unwrap_or(if all_ints { DType::I64 } else { DType::F32 }),
    };
    if dtype.is_quantized() || dtype == DType::Bool {
        bail!("arange cannot make a {dtype} tensor");
    }
    let data = if all_ints && !dtype.is_float() {
        let [start, end, step] = [args::int(c, 0)?, args::int(c, 1)?, args::int(c, 2)?];
        if step == 0 {
            bail!("the step of the range is 0, so it never reaches its end ({start} to {end})");
        }
        // Ceiling division in i128, so that no bound can overflow it.
        let (span, step_w) = (end as i128 - start as i128, step as i128);
        let n = (span + step_w - step_w.signum()) / step_w;
        let n = count(n.max(0) as f64)?;
        from_i64(
            dtype,
            &(0..n as i64)
                .map(|i| start.wrapping_add(i.wrapping_mul(step)))
                .collect::<Vec<_>>(),
        )
    } else {
        let [start, end, step] = [args::float(c, 0)?, args::float(c, 1)?, args::float(c, 2)?];
        if step == 0.0 {
            bail!("the step of the range is 0, so it never reaches its end ({start} to {end})");
        }
        let n = count(((end - start) / step).ceil().max(0.0))?;
        from_f64(
            dtype,
            &(0..n).map(|i| start + i as f64 * step).collect::<Vec<_>>(),
        )
    };
    let n = data.len();
    args::ret(c, Tensor::new(vec![n], data)?)
}

/// The element count, refused when it is not a number or beyond the tensor budget.
fn count(n: f64) -> Result<usize> {
    if !n.is_finite() || n >= usize::MAX as f64 {
        bail!("the range has {n} elements");
    }
    let n = n as usize;
    result_count(&[n])?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn arange(start: Value, end: Value, step: Value, dtype: DType) -> anyhow::Result<Data> {
        let code = Value::Int(dtype.torch_scalar_type());
        let args = [
            start,
            end,
            step,
            code,
            Value::None,
            Value::None,
            Value::None,
        ];
        run1("aten.arange.start_step", &args, unknown()).map(|t| t.data.clone())
    }

    #[test]
    fn integer_ranges_count_up_and_down() {
        let r = arange(Value::Int(1), Value::Int(8), Value::Int(3), DType::I64).unwrap();
        assert_eq!(r, Data::I64(vec![1, 4, 7]));
        let r = arange(Value::Int(5), Value::Int(1), Value::Int(-2), DType::I32).unwrap();
        assert_eq!(r, Data::I32(vec![5, 3]));
        let r = arange(Value::Int(5), Value::Int(1), Value::Int(1), DType::I64).unwrap();
        assert_eq!(r, Data::I64(vec![]));
    }

    #[test]
    fn float_ranges_take_the_ceiling_of_the_count() {
        let r = arange(
            Value::Float(0.5),
            Value::Float(3.0),
            Value::Float(1.0),
            DType::F32,
        );
        assert_eq!(r.unwrap(), Data::F32(vec![0.5, 1.5, 2.5]));
        let r = arange(
            Value::Float(0.0),
            Value::Int(1),
            Value::Float(0.25),
            DType::F64,
        );
        assert_eq!(r.unwrap(), Data::F64(vec![0.0, 0.25, 0.5, 0.75]));
    }

    #[test]
    fn zero_steps_and_huge_ranges_are_refused() {
        let e = arange(Value::Int(0), Value::Int(4), Value::Int(0), DType::I64).unwrap_err();
        assert!(e.to_string().contains("step of the range is 0"), "{e}");
        let e = arange(
            Value::Float(0.0),
            Value::Float(1e300),
            Value::Float(1e-300),
            DType::F32,
        );
        assert!(e.is_err());
        let e = arange(
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Int(1),
            DType::I64,
        );
        assert!(e.is_err());
    }
}
