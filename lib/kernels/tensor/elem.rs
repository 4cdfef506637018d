//! Typed access to element storage for the kernels that loop over elements in their
//! own type (convolution, matmul, pools): f32 and f64 accumulate in their own
//! precision without fused multiply-adds, integers accumulate wrapping, like the
//! int32 accumulators of quantized kernels.

use crate::kernels::tensor::Data;

pub trait Elem: Copy + Default + Send + Sync + 'static {
    /// The storage as a slice of this type, if it holds this type.
    fn slice(d: &Data) -> Option<&[Self]>;
    fn wrap(v: Vec<Self>) -> Data;
    /// `self + a·b`, rounded after each step (floats) or wrapping (integers).
    fn add_product(self, a: Self, b: Self) -> Self;
    fn plus(self, b: Self) -> Self;
}

macro_rules! float_elem {
    ($t:ty, $variant:ident) => {
        impl Elem for $t {
            fn slice(d: &Data) -> Option<&[Self]> {
                match d {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
            fn add_product(self, a: Self, b: Self) -> Self {
                self + a * b
            }
            fn plus(self, b: Self) -> Self {
                self + b
            }
        }
    };
}

macro_rules! int_elem {
    ($t:ty, $variant:ident) => {
        impl Elem for $t {
            fn slice(d: &Data) -> Option<&[Self]> {
                match d {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
            fn add_product(self, a: Self, b: Self) -> Self {
                self.wrapping_add(a.wrapping_mul(b))
            }
            fn plus(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
        }
    };
}

float_elem!(f32, F32);
float_elem!(f64, F64);
int_elem!(i8, I8);
int_elem!(u8, U8);
int_elem!(i16, I16);
int_elem!(i32, I32);
int_elem!(i64, I64);

/// Calls `$f::<T>($args)` with `T` the element type of `$data`, for f32, f64, i32 and
/// i64 storage; evaluates `$otherwise` for any other.
macro_rules! dispatch_numeric {
    ($data:expr, $f:ident($($args:expr),*), $otherwise:expr) => {
        match $data {
            Data::F32(_) => $f::<f32>($($args),*),
            Data::F64(_) => $f::<f64>($($args),*),
            Data::I32(_) => $f::<i32>($($args),*),
            Data::I64(_) => $f::<i64>($($args),*),
            _ => $otherwise,
        }
    };
}
pub(crate) use dispatch_numeric;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_accumulate_wrapping() {
        assert_eq!(i32::MAX.add_product(2, 1), i32::MIN + 1);
        assert_eq!(1.0f32.add_product(2.0, 3.0), 7.0);
        let d = Data::I32(vec![1]);
        assert_eq!(i32::slice(&d), Some(&[1][..]));
        assert_eq!(f32::slice(&d), None);
    }
}
