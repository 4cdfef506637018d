//! NumPy arrays to qlower tensors and back.
//!
//! An input is copied once, from the array's buffer into the tensor the plan owns (the
//! kernels take their inputs by value); a C-contiguous array is read in place for that
//! copy, any other layout element by element. An output tensor's buffer becomes the
//! NumPy array's without a copy: the array keeps the Rust vector alive.

use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    Element, PyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods, dtype,
};
use pyo3::prelude::*;

use qlower_core::kernels::tensor::{Data, Tensor};

/// `value` as a tensor: anything `numpy.asarray` accepts (an array, a list, a scalar).
pub fn tensor_of(value: &Bound<'_, PyAny>) -> anyhow::Result<Tensor> {
    let py = value.py();
    let array = numpy::get_array_module(py)?.call_method1("asarray", (value,))?;
    let array = array
        .cast::<PyUntypedArray>()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let descr = array.dtype();
    let shape = array.shape().to_vec();
    macro_rules! read_as {
        ($($t:ty => $variant:ident),* $(,)?) => {
            $(
                if descr.is_equiv_to(&dtype::<$t>(py)) {
                    let data = elements::<$t>(array)?;
                    return Tensor::new(shape, Data::$variant(data));
                }
            )*
        };
    }
    read_as!(
        f32 => F32, f64 => F64, half::f16 => F16,
        i8 => I8, u8 => U8, i16 => I16, u16 => U16,
        i32 => I32, u32 => U32, i64 => I64, u64 => U64, bool => Bool,
    );
    anyhow::bail!("NumPy dtype {descr} is not supported")
}

/// The elements of an array of `T`, in C order.
fn elements<T: Element + Copy>(array: &Bound<'_, PyUntypedArray>) -> anyhow::Result<Vec<T>> {
    let typed = array
        .cast::<PyArrayDyn<T>>()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let view = typed.readonly();
    Ok(match view.as_slice() {
        Ok(slice) => slice.to_vec(),
        Err(_) => view.as_array().iter().copied().collect(),
    })
}

/// `tensor` as a NumPy array that owns its buffer. bfloat16 and float8 have no NumPy
/// dtype: their bits come back as uint16 / uint8, as ONNX stores them.
pub fn array_of(py: Python<'_>, tensor: Tensor) -> anyhow::Result<Bound<'_, PyAny>> {
    fn owned<'py, T: Element>(
        py: Python<'py>,
        shape: &[usize],
        data: Vec<T>,
    ) -> anyhow::Result<Bound<'py, PyAny>> {
        let array = ArrayD::from_shape_vec(IxDyn(shape), data)?;
        Ok(PyArray::from_owned_array(py, array).into_any())
    }
    let shape = tensor.shape;
    match tensor.data {
        Data::F32(v) => owned(py, &shape, v),
        Data::F64(v) => owned(py, &shape, v),
        Data::F16(v) => owned(py, &shape, v),
        Data::BF16(v) => owned(py, &shape, v.into_iter().map(|x| x.to_bits()).collect()),
        Data::I8(v) => owned(py, &shape, v),
        Data::U8(v) => owned(py, &shape, v),
        Data::I16(v) => owned(py, &shape, v),
        Data::U16(v) => owned(py, &shape, v),
        Data::I32(v) => owned(py, &shape, v),
        Data::U32(v) => owned(py, &shape, v),
        Data::I64(v) => owned(py, &shape, v),
        Data::U64(v) => owned(py, &shape, v),
        Data::Bool(v) => owned(py, &shape, v),
        Data::F8(_, v) => owned(py, &shape, v),
    }
}
