//! Which tensors to keep in 16 bits or in float.
//!
//! The rule reads each tensor's own error (the float model's tensor against itself
//! quantized with the tensor's scale and zero point; for a weight, the float
//! initializer against its dequantized value), not its error against the float model:
//! the latter
//! adds up everything upstream, so it is worst at the end of the graph whatever
//! caused it, while the own error points at the tensors whose range the 8-bit grid
//! covers badly (outliers, a channel far larger than the rest).
//!
//! A tensor whose own SQNR is more than `MARGIN_DB` (one bit, 6.02 dB) below the median
//! of all quantized weights and activations is suggested for 16 bits, which gain about
//! 48 dB (8 bits of 6.02 dB); one whose own SQNR would still be below that median with
//! those 48 dB added is suggested to stay float. Biases are int32 already and never
//! suggested.

use super::pairs::Kind;

/// How far below the median a tensor's own SQNR must be to be suggested: one bit.
pub const MARGIN_DB: f64 = 6.02;

/// What 8 more bits give a tensor's SQNR.
pub const SIXTEEN_BIT_GAIN_DB: f64 = 8.0 * 6.02;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    Keep16Bit,
    KeepFloat,
}

impl Advice {
    /// The `qlower quantize` flag that acts on it.
    pub fn flag(self) -> &'static str {
        match self {
            Advice::Keep16Bit => "keep-16bit",
            Advice::KeepFloat => "keep-float",
        }
    }
}

/// The rule in one sentence, printed with the report.
pub fn rule() -> String {
    format!(
        "keep-16bit: own SQNR more than {MARGIN_DB:.2} dB (one bit) below the median own \
         SQNR of the quantized weights and activations; keep-float: below that median even \
         with the {SIXTEEN_BIT_GAIN_DB:.1} dB that 16 bits add"
    )
}

/// The median own SQNR of `tensors` ((kind, own dB) each; biases and NaN left out), and
/// the advice for each, in order.
pub fn advise(tensors: &[(Kind, f64)]) -> (Option<f64>, Vec<Option<Advice>>) {
    let mut values: Vec<f64> = tensors
        .iter()
        .filter(|(k, db)| *k != Kind::Bias && !db.is_nan())
        .map(|&(_, db)| db)
        .collect();
    values.sort_by(f64::total_cmp);
    let median = match values.len() {
        0 => None,
        n if n % 2 == 1 => Some(values[n / 2]),
        n => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    };
    let advice = tensors
        .iter()
        .map(|&(kind, db)| {
            let m = median?;
            if kind == Kind::Bias || db.is_nan() || !m.is_finite() {
                return None;
            }
            if db + SIXTEEN_BIT_GAIN_DB < m {
                Some(Advice::KeepFloat)
            } else if db < m - MARGIN_DB {
                Some(Advice::Keep16Bit)
            } else {
                None
            }
        })
        .collect();
    (median, advice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_below_the_median_is_suggested() {
        let t = [
            (Kind::Activation, 40.0),
            (Kind::Weight, 42.0),
            (Kind::Activation, 38.0),
            (Kind::Activation, 30.0),
            (Kind::Activation, -20.0),
            (Kind::Bias, 0.0),
        ];
        let (median, advice) = advise(&t);
        assert_eq!(median, Some(38.0));
        assert_eq!(
            advice,
            [
                None,
                None,
                None,
                Some(Advice::Keep16Bit),
                Some(Advice::KeepFloat),
                None
            ]
        );
    }

    #[test]
    fn nothing_to_rank() {
        assert_eq!(advise(&[(Kind::Bias, 1.0)]), (None, vec![None]));
    }
}
