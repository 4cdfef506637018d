//! Scale and zero point from a real range, with ONNX Runtime's formulas, so that the
//! same calibration ranges give the same parameters: the range is widened to hold 0,
//! made symmetric on request, `scale = (rmax - rmin) / (qmax - qmin)` and
//! `zero_point = round(qmin - rmin / scale)`, all in f32 (as ORT computes them).

/// The integer type of a quantized tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QType {
    U8,
    I8,
    U16,
    I16,
}

impl QType {
    /// The ONNX `TensorProto.DataType` code.
    pub fn onnx_code(self) -> i32 {
        match self {
            QType::U8 => 2,
            QType::I8 => 3,
            QType::U16 => 4,
            QType::I16 => 5,
        }
    }

    /// 16-bit types need QuantizeLinear-21 (or com.microsoft's, before opset 21).
    pub fn is_16_bit(self) -> bool {
        matches!(self, QType::U16 | QType::I16)
    }

    /// The integer range. Symmetric signed types drop their lowest value so that the
    /// range is balanced around 0, as ORT does.
    pub fn range(self, symmetric: bool) -> (i32, i32) {
        match (self, symmetric) {
            (QType::U8, _) => (0, 255),
            (QType::I8, true) => (-127, 127),
            (QType::I8, false) => (-128, 127),
            (QType::U16, _) => (0, 65535),
            (QType::I16, true) => (-32767, 32767),
            (QType::I16, false) => (-32768, 32767),
        }
    }

    /// The codes a weight may take: `range`, or with `reduce_range` one bit fewer, as
    /// ONNX Runtime's `reduce_range` (whatever the symmetry: int8 [-64, 64], uint8
    /// [0, 127]), for CPUs whose u8·s8 pair sums must not saturate 16 bits.
    pub fn codes(self, symmetric: bool, reduce_range: bool) -> (i32, i32) {
        match (self, reduce_range) {
            (_, false) => self.range(symmetric),
            (QType::U8, true) => (0, 127),
            (QType::I8, true) => (-64, 64),
            (QType::U16, true) => (0, 32767),
            (QType::I16, true) => (-16384, 16384),
        }
    }

    /// Appends the little-endian bytes of `q` (as `raw_data` stores it), which the
    /// caller has clamped to this type's range.
    pub fn push_bytes(self, q: i32, out: &mut Vec<u8>) {
        match self {
            QType::U8 => out.push(q as u8),
            QType::I8 => out.push((q as i8) as u8),
            QType::U16 => out.extend((q as u16).to_le_bytes()),
            QType::I16 => out.extend((q as i16).to_le_bytes()),
        }
    }

    /// The bytes of the values `qs`.
    pub fn bytes(self, qs: impl IntoIterator<Item = i32>) -> Vec<u8> {
        let mut out = Vec::new();
        for q in qs {
            self.push_bytes(q, &mut out);
        }
        out
    }
}

/// Scale and zero point of one tensor or channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub scale: f32,
    pub zero_point: i32,
}

/// ORT's `compute_scale_zp`. A range too small for a normal f32 scale (an all-zero
/// tensor) gets scale 1 and zero point 0, as in ORT, so nothing divides by zero.
pub fn compute(rmin: f32, rmax: f32, qtype: QType, symmetric: bool) -> Params {
    compute_in(rmin, rmax, qtype.range(symmetric), symmetric)
}

/// `compute` onto the codes `(qmin, qmax)` (a reduced range).
pub fn compute_in(rmin: f32, rmax: f32, (qmin, qmax): (i32, i32), symmetric: bool) -> Params {
    let mut rmin = rmin.min(0.0);
    let mut rmax = rmax.max(0.0);
    if symmetric {
        let absmax = rmin.abs().max(rmax.abs());
        rmin = -absmax;
        rmax = absmax;
    }
    let scale = (rmax - rmin) / (qmax - qmin) as f32;
    if scale.is_nan() || scale < f32::MIN_POSITIVE {
        return Params {
            scale: 1.0,
            zero_point: 0,
        };
    }
    let zero_point = if symmetric {
        ((qmin + qmax) as f32 / 2.0).round_ties_even() as i32
    } else {
        (qmin as f32 - rmin / scale).round_ties_even() as i32
    };
    Params {
        scale,
        zero_point: zero_point.clamp(qmin, qmax),
    }
}

/// Restricted asymmetric uint8: the zero point may only be 0 or 128 (what some
/// accelerators accept), and the scale is chosen so that [rmin, rmax] is covered
/// without clipping.
pub fn restricted_u8(rmin: f32, rmax: f32) -> Params {
    let rmax = rmax.max(0.0);
    let (zero_point, scale) = if rmin >= 0.0 {
        (0, rmax / 255.0)
    } else {
        (128, (rmax / 127.0).max(-rmin / 128.0))
    };
    if scale.is_nan() || scale < f32::MIN_POSITIVE {
        return Params {
            scale: 1.0,
            zero_point,
        };
    }
    Params { scale, zero_point }
}

/// `clamp(round(x / scale) + zero_point)`, rounding half to even as ONNX does.
pub fn quantize_value(x: f32, p: Params, qtype: QType) -> i32 {
    let (lo, hi) = qtype.range(false);
    let q = (x / p.scale).round_ties_even() + p.zero_point as f32;
    q.clamp(lo as f32, hi as f32) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asymmetric_u8_widens_the_range_to_hold_zero() {
        let p = compute(0.5, 2.55, QType::U8, false);
        assert_eq!(p.scale, 2.55f32 / 255.0);
        assert_eq!(p.zero_point, 0);
        let p = compute(-1.0, 3.0, QType::U8, false);
        assert_eq!(p.scale, 4.0f32 / 255.0);
        assert_eq!(
            p.zero_point,
            (1.0f32 / (4.0f32 / 255.0)).round_ties_even() as i32
        );
        assert_eq!(p.zero_point, 64);
    }

    #[test]
    fn sixteen_bit_types_have_their_range_and_little_endian_bytes() {
        assert_eq!(QType::U16.range(false), (0, 65535));
        assert_eq!(QType::I16.range(true), (-32767, 32767));
        assert_eq!(QType::I16.bytes([-2, 258]), vec![0xfe, 0xff, 0x02, 0x01]);
        assert_eq!(QType::U16.bytes([65535]), vec![0xff, 0xff]);
        assert_eq!(QType::I8.bytes([-1, 1]), vec![0xff, 0x01]);
        let p = compute(-1.0, 1.0, QType::I16, true);
        assert_eq!(p.zero_point, 0);
        assert_eq!(quantize_value(1.0, p, QType::I16), 32767);
        assert_eq!(quantize_value(-2.0, p, QType::I16), -32768);
    }

    #[test]
    fn symmetric_i8_uses_127_both_ways() {
        let p = compute(-0.5, 2.54, QType::I8, true);
        assert_eq!(p.scale, 5.08f32 / 254.0);
        assert_eq!(p.zero_point, 0);
    }

    #[test]
    fn reduced_range_halves_the_codes() {
        assert_eq!(QType::I8.codes(true, true), (-64, 64));
        assert_eq!(QType::U8.codes(false, true), (0, 127));
        assert_eq!(QType::I8.codes(true, false), (-127, 127));
        let p = compute_in(-0.5, 2.56, QType::I8.codes(true, true), true);
        assert_eq!((p.scale, p.zero_point), (2.56f32 / 64.0, 0));
        let p = compute_in(-1.0, 3.0, QType::U8.codes(false, true), false);
        assert_eq!(p.scale, 4.0f32 / 127.0);
        assert_eq!(p.zero_point, (1.0f32 / p.scale).round_ties_even() as i32);
    }

    #[test]
    fn symmetric_u8_centres_at_128() {
        // round(127.5) is 128 with ties to even, as numpy rounds.
        assert_eq!(compute(-1.0, 1.0, QType::U8, true).zero_point, 128);
    }

    #[test]
    fn an_all_zero_range_gets_scale_one() {
        assert_eq!(
            compute(0.0, 0.0, QType::I8, false),
            Params {
                scale: 1.0,
                zero_point: 0
            }
        );
    }

    #[test]
    fn restricted_snaps_to_0_or_128_and_covers_the_range() {
        let p = restricted_u8(0.0, 6.0);
        assert_eq!((p.zero_point, p.scale), (0, 6.0 / 255.0));
        let p = restricted_u8(-3.0, 1.0);
        assert_eq!(p.zero_point, 128);
        assert_eq!(p.scale, 3.0 / 128.0);
        assert_eq!(quantize_value(-3.0, p, QType::U8), 0);
        let p = restricted_u8(-1.0, 4.0);
        assert_eq!(p.scale, 4.0 / 127.0);
        assert_eq!(quantize_value(4.0, p, QType::U8), 255);
    }

    #[test]
    fn quantize_rounds_half_to_even_and_saturates() {
        let p = Params {
            scale: 1.0,
            zero_point: 0,
        };
        assert_eq!(quantize_value(2.5, p, QType::I8), 2);
        assert_eq!(quantize_value(-300.0, p, QType::I8), -128);
        assert_eq!(quantize_value(300.0, p, QType::U8), 255);
    }
}
