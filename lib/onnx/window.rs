//! ONNX's sliding-window geometry, shared by convolutions and pools in shape inference
//! and in conversion: auto_pad, per-axis lists (kernel_shape, strides, dilations,
//! pads, output_padding), SAME padding, and the output sizes explicit padding and
//! ceil_mode give. Arithmetic is in i128 so that hostile attribute values cannot
//! overflow; a result that does not fit an i64 is `None`.

use anyhow::{Result, bail};

use super::attributes::Attributes;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

impl AutoPad {
    pub fn read(attrs: &dyn Attributes) -> Result<AutoPad> {
        Ok(match attrs.string("auto_pad", "NOTSET")?.as_str() {
            // Some exporters write an empty string for the default.
            "NOTSET" | "" => AutoPad::NotSet,
            "SAME_UPPER" => AutoPad::SameUpper,
            "SAME_LOWER" => AutoPad::SameLower,
            "VALID" => AutoPad::Valid,
            other => bail!(
                "attribute 'auto_pad' is '{other}', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"
            ),
        })
    }

    pub fn is_same(self) -> bool {
        matches!(self, AutoPad::SameUpper | AutoPad::SameLower)
    }
}

/// Why a per-axis list was refused. Each stage words it for its reader: shape
/// inference in terms of the input's spatial dimensions, conversion as a count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisListError {
    /// The list has `got` values where `want` were needed.
    Length { got: usize, want: usize },
    /// The list holds `value`, below the attribute's minimum.
    Below { value: i64, min: i64 },
}

/// The per-axis list attribute `name`: `None` when absent, else its `want` values,
/// each at least `min`. The outer error is the attribute's own (wrong kind).
pub fn axis_list(
    attrs: &dyn Attributes,
    name: &str,
    want: usize,
    min: i64,
) -> Result<Option<std::result::Result<Vec<i64>, AxisListError>>> {
    let Some(v) = attrs.optional_ints(name)? else {
        return Ok(None);
    };
    if v.len() != want {
        return Ok(Some(Err(AxisListError::Length { got: v.len(), want })));
    }
    if let Some(&value) = v.iter().find(|&&x| x < min) {
        return Ok(Some(Err(AxisListError::Below { value, min })));
    }
    Ok(Some(Ok(v)))
}

/// The extent of a kernel of size `k` dilated by `d`.
pub fn extent(k: i64, d: i64) -> i128 {
    i128::from(d) * (i128::from(k) - 1) + 1
}

/// `total` padding split around an axis: SAME_UPPER puts the odd element at the end,
/// SAME_LOWER at the beginning.
pub fn split_total(total: i128, upper: bool) -> (i128, i128) {
    let small = total / 2;
    if upper {
        (small, total - small)
    } else {
        (total - small, small)
    }
}

/// SAME output size of an axis of `size` with stride `s`: ceil(size / s).
pub fn same_output(size: i64, s: i64) -> i128 {
    let (d, s) = (i128::from(size), i128::from(s));
    (d + s - 1) / s
}

/// SAME padding (begin, end) of an axis of `size`: enough for `same_output` windows.
pub fn same_pads(size: i64, s: i64, extent: i128, upper: bool) -> (i128, i128) {
    let out = same_output(size, s);
    let total = ((out - 1) * i128::from(s) + extent - i128::from(size)).max(0);
    split_total(total, upper)
}

/// The number of windows of `extent` with stride `s` over an axis of `size` padded by
/// `begin` and `end`; `None` when the padded axis is shorter than the window. With
/// `ceil`, a partial last window counts, unless it would start in the end padding
/// (ONNX Runtime's rule, and torch's).
pub fn windows(
    size: i64,
    begin: i128,
    end: i128,
    extent: i128,
    s: i64,
    ceil: bool,
) -> Option<i128> {
    let (d, s) = (i128::from(size), i128::from(s));
    let span = d + begin + end - extent;
    if span < 0 {
        return None;
    }
    let mut n = if ceil { (span + s - 1) / s } else { span / s } + 1;
    if ceil && (n - 1) * s >= d + begin {
        n -= 1;
    }
    Some(n)
}

/// The full length of a transposed convolution's axis of `size`, before cropping by
/// pads: s·(size − 1) + output_padding + extent.
pub fn transposed_full(size: i64, s: i64, extent: i128, output_padding: i64) -> i128 {
    i128::from(s) * (i128::from(size) - 1) + i128::from(output_padding) + extent
}

/// `n` as an i64 size, when it is one.
pub fn to_size(n: i128) -> Option<i64> {
    i64::try_from(n).ok().filter(|&n| n >= 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_padding_puts_the_odd_element_where_its_mode_says() {
        // 5 wide, kernel 2, stride 1: 5 windows need one element of padding.
        assert_eq!(same_pads(5, 1, extent(2, 1), true), (0, 1));
        assert_eq!(same_pads(5, 1, extent(2, 1), false), (1, 0));
        // Stride 2 over 6 needs 3 windows, which fit without padding when k = 2.
        assert_eq!(same_pads(6, 2, extent(2, 1), true), (0, 0));
        assert_eq!(same_output(7, 2), 4);
    }

    #[test]
    fn ceil_mode_drops_a_window_that_would_start_in_the_end_padding() {
        // 6 wide, kernel 3, stride 2, no padding: floor gives 2, ceil 3.
        assert_eq!(windows(6, 0, 0, 3, 2, false), Some(2));
        assert_eq!(windows(6, 0, 0, 3, 2, true), Some(3));
        // 4 wide padded 1 at the end, kernel 2, stride 2: ceil's third window would
        // start at 4, inside the end padding.
        assert_eq!(windows(4, 0, 1, 2, 2, true), Some(2));
        assert_eq!(windows(5, 0, 1, 2, 2, true), Some(3));
        assert_eq!(windows(2, 0, 0, 3, 1, false), None);
    }

    #[test]
    fn hostile_sizes_do_not_overflow() {
        assert_eq!(to_size(extent(i64::MAX, i64::MAX)), None);
        assert!(windows(i64::MAX, i128::from(i64::MAX), 0, 1, 1, true).is_some());
        assert_eq!(to_size(transposed_full(i64::MAX, i64::MAX, 1, 0)), None);
    }
}
