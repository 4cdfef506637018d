//! `to.dtype`: element type conversion, as C casts convert (floats to integers
//! truncate toward zero; out-of-range values saturate, which is what x86 gives for the
//! cases C leaves undefined only in part, and is never a panic).

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::cast;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.to.dtype" => to_dtype,
        _ => return None,
    })
}

/// `to.dtype(self, dtype, non_blocking, copy, memory_format)`; only the first two
/// matter on a CPU with value semantics.
fn to_dtype(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dtype = args::dtype_code(c, 1)?;
    if x.quant.is_some() || dtype.is_quantized() {
        bail!(
            "to.dtype converts plain values, not {} to {dtype}",
            x.dtype()
        );
    }
    args::ret(c, Tensor::new(x.shape.clone(), cast(&x.data, dtype))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn to(
        x: Value,
        dtype: DType,
    ) -> anyhow::Result<std::sync::Arc<crate::kernels::tensor::Tensor>> {
        let code = Value::Int(dtype.torch_scalar_type());
        let no = Value::Bool(false);
        run1(
            "aten.to.dtype",
            &[x, code, no.clone(), no, Value::None],
            of(dtype),
        )
    }

    #[test]
    fn floats_truncate_to_integers_and_saturate() {
        let x = f32s(&[4], &[2.9, -2.9, 1e10, -1e10]);
        assert_eq!(
            to(x.clone(), DType::I32).unwrap().data,
            Data::I32(vec![2, -2, i32::MAX, i32::MIN])
        );
        assert_eq!(to(x, DType::U8).unwrap().data, Data::U8(vec![2, 0, 255, 0]));
        let u = tensor(&[2], Data::U8(vec![0, 255]));
        assert_eq!(to(u, DType::F32).unwrap().data, Data::F32(vec![0.0, 255.0]));
    }

    #[test]
    fn quantized_targets_are_refused() {
        assert!(to(f32s(&[1], &[1.0]), DType::QUInt8).is_err());
        let code = Value::Int(99);
        let args = [
            f32s(&[1], &[1.0]),
            code,
            Value::Bool(false),
            Value::Bool(false),
            Value::None,
        ];
        assert!(run("aten.to.dtype", &args, &[unknown()]).is_err());
    }
}
