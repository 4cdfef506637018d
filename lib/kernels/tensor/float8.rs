//! The four 8-bit float formats of ONNX (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
//! FLOAT8E5M2FNUZ) and their conversions to and from f64.
//!
//! Elements are kept as their raw bytes: no Rust type holds them, and the bits are
//! what files, literals and ONNX Runtime exchange. Conversion to float8 rounds to
//! nearest, ties to even, over the format's whole range (subnormals included). What
//! happens past the largest finite value is ONNX's `saturate` attribute:
//! `to_bits(.., saturate = true)` clamps to ±max (infinities too), and
//! `saturate = false` gives what the format has for an overflow: infinity for E5M2,
//! NaN for the others (the FN formats have no infinity, the FNUZ ones neither a
//! negative zero, their 0x80 is the one NaN). The non-saturating conversion is also
//! what torch's own float8 casts do, so `torch.aten.to.dtype` means it.

use super::dtype::DType;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Float8 {
    E4M3FN,
    E4M3FNUZ,
    E5M2,
    E5M2FNUZ,
}

impl Float8 {
    pub fn dtype(self) -> DType {
        match self {
            Float8::E4M3FN => DType::F8E4M3FN,
            Float8::E4M3FNUZ => DType::F8E4M3FNUZ,
            Float8::E5M2 => DType::F8E5M2,
            Float8::E5M2FNUZ => DType::F8E5M2FNUZ,
        }
    }

    pub fn of(dtype: DType) -> Option<Float8> {
        Some(match dtype {
            DType::F8E4M3FN => Float8::E4M3FN,
            DType::F8E4M3FNUZ => Float8::E4M3FNUZ,
            DType::F8E5M2 => Float8::E5M2,
            DType::F8E5M2FNUZ => Float8::E5M2FNUZ,
            _ => return None,
        })
    }

    fn mantissa_bits(self) -> u32 {
        match self {
            Float8::E4M3FN | Float8::E4M3FNUZ => 3,
            Float8::E5M2 | Float8::E5M2FNUZ => 2,
        }
    }

    fn bias(self) -> i32 {
        match self {
            Float8::E4M3FN => 7,
            Float8::E4M3FNUZ => 8,
            Float8::E5M2 => 15,
            Float8::E5M2FNUZ => 16,
        }
    }

    fn unsigned_zero(self) -> bool {
        matches!(self, Float8::E4M3FNUZ | Float8::E5M2FNUZ)
    }

    /// The bits of the largest finite value (positive).
    fn max_bits(self) -> u8 {
        match self {
            Float8::E4M3FN => 0x7E,
            Float8::E5M2 => 0x7B,
            Float8::E4M3FNUZ | Float8::E5M2FNUZ => 0x7F,
        }
    }

    /// The largest finite value: 448, 240, 57344, 57344.
    pub fn max(self) -> f64 {
        self.to_f64(self.max_bits())
    }

    fn nan_bits(self, sign: u8) -> u8 {
        match self {
            Float8::E4M3FN => 0x7F | sign,
            Float8::E5M2 => 0x7E | sign,
            Float8::E4M3FNUZ | Float8::E5M2FNUZ => 0x80,
        }
    }

    /// What a finite value too large for the format becomes without saturation.
    fn overflow_bits(self, sign: u8) -> u8 {
        match self {
            Float8::E5M2 => 0x7C | sign,
            other => other.nan_bits(sign),
        }
    }

    /// The value of `bits` (exact: every float8 value is an f64, and an f32). A NaN
    /// keeps the sign bit, as ONNX Runtime's conversion does (FNUZ's NaN, 0x80, is
    /// negative).
    pub fn to_f64(self, bits: u8) -> f64 {
        let negative = bits & 0x80 != 0;
        let magnitude = bits & 0x7F;
        let nan = if negative { -f64::NAN } else { f64::NAN };
        match self {
            Float8::E4M3FNUZ | Float8::E5M2FNUZ if bits == 0x80 => return nan,
            Float8::E4M3FN if magnitude == 0x7F => return nan,
            Float8::E5M2 if magnitude >= 0x7C => {
                return match (magnitude, negative) {
                    (0x7C, false) => f64::INFINITY,
                    (0x7C, true) => f64::NEG_INFINITY,
                    _ => nan,
                };
            }
            _ => {}
        }
        let m = self.mantissa_bits();
        let exponent = i32::from(magnitude >> m);
        let mantissa = f64::from(magnitude & ((1 << m) - 1));
        let value = if exponent == 0 {
            mantissa * pow2(1 - self.bias() - m as i32)
        } else {
            (1.0 + mantissa / f64::from(1u32 << m)) * pow2(exponent - self.bias())
        };
        if negative { -value } else { value }
    }

    /// `x` rounded to nearest (ties to even) in this format; see the module comment for
    /// `saturate`.
    pub fn to_bits(self, x: f64, saturate: bool) -> u8 {
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        if x.is_nan() {
            return self.nan_bits(sign);
        }
        let a = x.abs();
        if a > self.max() {
            if saturate {
                return self.max_bits() | sign;
            }
            if a.is_infinite() {
                return self.overflow_bits(sign);
            }
        }
        let m = self.mantissa_bits() as i32;
        let min_normal_exp = 1 - self.bias();
        let magnitude: u32 = if a < pow2(min_normal_exp) {
            // Subnormal: a whole number of the smallest step; 1 << m is the smallest
            // normal, whose bits continue the subnormals' (exponent 1, mantissa 0).
            (a * pow2(m - min_normal_exp)).round_ties_even() as u32
        } else {
            let exp = exponent_of(a);
            let mantissa = ((a * pow2(-exp) - 1.0) * pow2(m)).round_ties_even() as u32;
            // A mantissa that rounds up to 2^m carries into the exponent, which the
            // bits do by themselves.
            (((exp + self.bias()) as u32) << m) + mantissa
        };
        if magnitude > u32::from(self.max_bits()) {
            // Only reached when rounding went past max: saturation was handled above.
            return if saturate {
                self.max_bits() | sign
            } else {
                self.overflow_bits(sign)
            };
        }
        let magnitude = magnitude as u8;
        if magnitude == 0 && self.unsigned_zero() {
            return 0;
        }
        magnitude | sign
    }
}

/// 2^e, exactly, for the exponents float8 needs (far inside f64's range).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e as i64) as u64) << 52)
}

/// floor(log2(a)) of a positive normal f64.
fn exponent_of(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023
}

/// `v` converted to `format` bits.
pub fn from_f64_slice(format: Float8, v: &[f64], saturate: bool) -> Vec<u8> {
    v.iter().map(|&x| format.to_bits(x, saturate)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Float8::*;

    const ALL: [Float8; 4] = [E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ];

    fn bits(f: Float8, x: f64) -> u8 {
        f.to_bits(x, false)
    }

    #[test]
    fn every_finite_value_round_trips() {
        for f in ALL {
            for b in 0..=255u8 {
                let v = f.to_f64(b);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(f.to_bits(v, false), b, "{f:?} {b:#x} = {v}");
            }
        }
    }

    #[test]
    fn largest_and_smallest_values() {
        assert_eq!([E4M3FN.max(), E4M3FNUZ.max()], [448.0, 240.0]);
        assert_eq!([E5M2.max(), E5M2FNUZ.max()], [57344.0, 57344.0]);
        // Smallest subnormals: 2^-9, 2^-10, 2^-16, 2^-17.
        assert_eq!(E4M3FN.to_f64(1), pow2(-9));
        assert_eq!(E4M3FNUZ.to_f64(1), pow2(-10));
        assert_eq!(E5M2.to_f64(1), pow2(-16));
        assert_eq!(E5M2FNUZ.to_f64(1), pow2(-17));
    }

    // Expected bits from ml_dtypes, the ONNX reference implementation's float8 types.
    #[test]
    fn overflow_without_saturation() {
        // E4M3FN: 464 is the tie between 448 (mantissa 110) and the missing 480 (111):
        // it rounds to even, 448; anything above is NaN.
        assert_eq!(bits(E4M3FN, 449.0), 0x7E);
        assert_eq!(bits(E4M3FN, 464.0), 0x7E);
        assert_eq!(bits(E4M3FN, 465.0), 0x7F);
        assert_eq!(bits(E4M3FN, -1e9), 0xFF);
        assert_eq!(bits(E4M3FN, f64::INFINITY), 0x7F);
        // E4M3FNUZ: 248 ties to even, which is 256, past max: NaN (0x80).
        assert_eq!(bits(E4M3FNUZ, 247.9), 0x7F);
        assert_eq!(bits(E4M3FNUZ, 248.0), 0x80);
        assert_eq!(bits(E4M3FNUZ, f64::NEG_INFINITY), 0x80);
        // E5M2: 61440 ties to even, 65536, which is infinity.
        assert_eq!(bits(E5M2, 61439.0), 0x7B);
        assert_eq!(bits(E5M2, 61440.0), 0x7C);
        assert_eq!(bits(E5M2, f64::NEG_INFINITY), 0xFC);
        assert_eq!(bits(E5M2FNUZ, 61440.0), 0x80);
        assert_eq!(bits(E5M2FNUZ, f64::INFINITY), 0x80);
    }

    #[test]
    fn saturation_clamps_to_max() {
        for f in ALL {
            let max = f.max_bits();
            assert_eq!(f.to_bits(1e9, true), max, "{f:?}");
            assert_eq!(f.to_bits(f64::INFINITY, true), max, "{f:?}");
            assert_eq!(f.to_bits(f64::NEG_INFINITY, true), max | 0x80, "{f:?}");
            assert!(f.to_f64(f.to_bits(f64::NAN, true)).is_nan(), "{f:?}");
        }
        assert_eq!(E4M3FN.to_bits(465.0, true), 0x7E);
        assert_eq!(E5M2.to_bits(61440.0, true), 0x7B);
    }

    #[test]
    fn subnormals_and_zeros() {
        // Half the smallest subnormal ties to even, zero; a bit more rounds up.
        assert_eq!(bits(E4M3FN, pow2(-10)), 0x00);
        assert_eq!(bits(E4M3FN, 1.5 * pow2(-10)), 0x01);
        assert_eq!(bits(E4M3FN, 3.0 * pow2(-10)), 0x02);
        assert_eq!(bits(E5M2, pow2(-17)), 0x00);
        assert_eq!(bits(E5M2, 1.5 * pow2(-17)), 0x01);
        assert_eq!(bits(E4M3FNUZ, 1.5 * pow2(-10)), 0x02);
        assert_eq!(bits(E5M2FNUZ, pow2(-16)), 0x02);
        // The largest subnormal rounds up into the smallest normal.
        assert_eq!(bits(E4M3FN, 7.75 * pow2(-9)), 0x08);
        // Negative zero: kept by the FN formats, which have one; not by FNUZ.
        assert_eq!(bits(E4M3FN, -0.0), 0x80);
        assert_eq!(bits(E5M2, -0.0), 0x80);
        assert_eq!(bits(E4M3FNUZ, -0.0), 0x00);
        assert_eq!(bits(E5M2FNUZ, -pow2(-20)), 0x00);
    }

    #[test]
    fn normals_round_half_to_even() {
        // 1 + 1/16 lies halfway between 1 (mantissa 000) and 1.125 (001).
        assert_eq!(bits(E4M3FN, 1.0625), 0x38);
        assert_eq!(bits(E4M3FN, 1.1875), 0x3A);
        assert_eq!(bits(E4M3FN, 1.0626), 0x39);
        assert_eq!(bits(E5M2, 1.125), 0x3C);
        assert_eq!(bits(E5M2, 1.375), 0x3E);
        assert_eq!(bits(E5M2, -3.0), 0xC2);
        assert_eq!(bits(E4M3FNUZ, 1.0), 0x40);
        assert_eq!(bits(E5M2FNUZ, 1.0), 0x40);
    }

    #[test]
    fn specials_decode() {
        assert!(E4M3FN.to_f64(0x7F).is_nan() && E4M3FN.to_f64(0xFF).is_nan());
        assert_eq!(E5M2.to_f64(0x7C), f64::INFINITY);
        assert_eq!(E5M2.to_f64(0xFC), f64::NEG_INFINITY);
        assert!(E5M2.to_f64(0x7D).is_nan());
        assert!(E4M3FNUZ.to_f64(0x80).is_nan() && E5M2FNUZ.to_f64(0x80).is_nan());
        assert_eq!(E4M3FNUZ.to_f64(0xFF), -240.0);
        assert!(E4M3FN.to_f64(0x80).is_sign_negative());
        // NaNs keep their sign bit, as ONNX Runtime's conversion does.
        assert!(E4M3FN.to_f64(0xFF).is_sign_negative());
        assert!(E4M3FN.to_f64(0x7F).is_sign_positive());
        assert!(E5M2FNUZ.to_f64(0x80).is_sign_negative());
    }
}
