//! The quantization operands of the fused convolution and matmul, read once for the
//! reference kernels (`quantized::qlinear`) and the fast paths (`qconv`, `qmatmul`)
//! alike, and the output forms those steps write.

use anyhow::{Result, bail};

use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;

/// One operand's quantization as the fused step receives it.
pub(crate) struct Params {
    pub(crate) scales: Vec<f32>,
    pub(crate) zero_points: Vec<i64>,
}

impl Params {
    /// From a scale (`!torch.float` or a 1-D tensor) and a zero point (`!torch.int` or a
    /// tensor of the same length).
    pub(crate) fn read(scale: &Value, zero_point: &Value) -> Result<Params> {
        let scales: Vec<f32> = match scale {
            Value::Tensor(t) => t.data.to_f64().into_iter().map(|s| s as f32).collect(),
            v => vec![v.as_float()? as f32],
        };
        let zero_points = match zero_point {
            Value::Tensor(t) => t.data.to_i64(),
            Value::None => vec![0; scales.len()],
            v => vec![v.as_int()?],
        };
        if scales.len() != zero_points.len() || scales.is_empty() {
            bail!(
                "{} scales but {} zero points",
                scales.len(),
                zero_points.len()
            );
        }
        Ok(Params {
            scales,
            zero_points,
        })
    }

    /// How many channels the parameters describe (1 for per tensor).
    pub(crate) fn len(&self) -> usize {
        self.scales.len()
    }

    pub(crate) fn scale(&self, c: usize) -> f32 {
        self.scales[if self.scales.len() == 1 { 0 } else { c }]
    }

    pub(crate) fn zero_point(&self, c: usize) -> i64 {
        self.zero_points[if self.zero_points.len() == 1 { 0 } else { c }]
    }
}

/// Whether a fused step's declared output is signed, and whether it is a quantized
/// tensor (`quantize_per_tensor`) or its integers (`int_repr` of one, fused too).
pub(crate) fn output_kind(dtype: Option<DType>) -> Option<(bool, bool)> {
    match dtype? {
        DType::QUInt8 => Some((false, true)),
        DType::QInt8 => Some((true, true)),
        DType::U8 => Some((false, false)),
        DType::I8 => Some((true, false)),
        _ => None,
    }
}
