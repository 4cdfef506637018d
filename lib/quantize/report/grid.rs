//! A per-tensor QuantizeLinear's grid, applied to the float model's tensor: the error
//! that quantizing that tensor alone adds when everything upstream is exact.
//!
//! Measuring the same thing inside the quantized model (its QuantizeLinear input
//! against its DequantizeLinear output) mixes in the upstream error: deep in a model
//! the drifted values leave the calibrated range and are clipped, so a tensor looks
//! bad however many bits it gets (PP-OCR det: 16 bits moved such a tensor from 32.8 to
//! 34.7 dB), and the suggestions would point at victims instead of causes.

use std::path::Path;

use anyhow::Result;

use crate::onnx::dtype::DType;
use crate::onnx::proto::GraphProto;
use crate::onnx::tensor;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    scale: f32,
    zero_point: i32,
    lo: i32,
    hi: i32,
}

impl Grid {
    /// The grid of a QuantizeLinear whose scale (and zero point, when given) are
    /// one-element initializers; `None` for anything else (per-axis, blocked, run-time
    /// or float8 parameters), which the caller measures another way.
    pub fn of(
        graph: &GraphProto,
        dir: Option<&Path>,
        scale: &str,
        zero_point: Option<&str>,
    ) -> Result<Option<Grid>> {
        let find = |name: &str| graph.initializer.iter().find(|t| t.name == name);
        let Some(s) = find(scale) else {
            return Ok(None);
        };
        let s = tensor::decode(s, dir)?;
        if s.dtype != DType::F32 || s.bytes.len() != 4 {
            return Ok(None);
        }
        let scale = f32::from_le_bytes([s.bytes[0], s.bytes[1], s.bytes[2], s.bytes[3]]);
        // Without a zero point, QuantizeLinear is to uint8 with zero point 0.
        let (dtype, bytes) = match zero_point.filter(|z| !z.is_empty()) {
            None => (DType::U8, vec![0]),
            Some(z) => {
                let Some(z) = find(z) else {
                    return Ok(None);
                };
                let z = tensor::decode(z, dir)?;
                (z.dtype, z.bytes.to_vec())
            }
        };
        let (zero_point, lo, hi) = match (dtype, bytes.as_slice()) {
            (DType::U8, [b]) => (i32::from(*b), 0, 255),
            (DType::I8, [b]) => (i32::from(*b as i8), -128, 127),
            (DType::U16, [a, b]) => (i32::from(u16::from_le_bytes([*a, *b])), 0, 65535),
            (DType::I16, [a, b]) => (i32::from(i16::from_le_bytes([*a, *b])), -32768, 32767),
            _ => return Ok(None),
        };
        if !(scale.is_finite() && scale > 0.0) {
            return Ok(None);
        }
        Ok(Some(Grid {
            scale,
            zero_point,
            lo,
            hi,
        }))
    }

    /// QuantizeLinear then DequantizeLinear, as ONNX defines them (round half to even,
    /// saturate to the type's range).
    pub fn round_trip(&self, x: &[f32]) -> Vec<f32> {
        let (lo, hi) = (self.lo as f32, self.hi as f32);
        let z = self.zero_point as f32;
        x.iter()
            .map(|&v| {
                let q = ((v / self.scale).round_ties_even() + z).clamp(lo, hi);
                (q - z) * self.scale
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::TensorProto;

    fn graph(zp: TensorProto) -> GraphProto {
        GraphProto {
            initializer: vec![
                TensorProto {
                    name: "s".into(),
                    data_type: 1,
                    raw_data: 0.5f32.to_le_bytes().to_vec().into(),
                    ..Default::default()
                },
                zp,
            ],
            ..Default::default()
        }
    }

    #[test]
    fn uint8_grid_rounds_half_to_even_and_saturates() {
        let zp = TensorProto {
            name: "z".into(),
            data_type: 2,
            raw_data: vec![10].into(),
            ..Default::default()
        };
        let g = Grid::of(&graph(zp), None, "s", Some("z")).unwrap().unwrap();
        // 0.25 / 0.5 = 0.5 rounds to 0; -10 is below the range (zero point 10 → -5).
        assert_eq!(
            g.round_trip(&[0.25, 0.75, -10.0, 1000.0]),
            [0.0, 1.0, -5.0, 122.5]
        );
    }

    #[test]
    fn per_axis_scales_are_not_a_grid() {
        let mut g = graph(TensorProto::default());
        g.initializer[0].raw_data = vec![0; 8].into();
        g.initializer[0].dims = vec![2];
        assert_eq!(Grid::of(&g, None, "s", None).unwrap(), None);
    }
}
