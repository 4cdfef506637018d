//! Arithmetic on partly known shapes, and how messages print them.

use anyhow::{Result, bail};

use crate::dialect::types::Dim;

/// `[3,?,4]`: the spelling messages use for a shape.
pub(super) fn fmt_shape(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| d.map_or_else(|| "?".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(","))
}

pub(super) fn known(dims: &[Dim]) -> Option<Vec<i64>> {
    dims.iter().copied().collect()
}

pub(super) fn static_dims(dims: &[i64]) -> Vec<Dim> {
    dims.iter().map(|&d| Some(d)).collect()
}

/// Number of elements, unknown when a dimension is unknown or the count overflows.
pub(super) fn product(dims: &[Dim]) -> Dim {
    dims.iter()
        .try_fold(1i64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
}

/// Ranks beyond this are taken for malformed input rather than allocated.
const MAX_RANK: i64 = 4096;

/// The declared length `n` of a 1-D shape-like input `[n]`: when its values are
/// unknown, still the rank of the shape it describes.
pub(super) fn vector_len(shape: Option<Vec<Dim>>) -> Option<usize> {
    match shape?[..] {
        [Some(n)] if n <= MAX_RANK => usize::try_from(n).ok(),
        _ => None,
    }
}

pub(super) fn rank_i64(rank: usize) -> i64 {
    i64::try_from(rank).unwrap_or(i64::MAX)
}

/// Resolves a possibly negative axis against `rank`. `what` names where the axis came
/// from, e.g. "attribute 'axis'".
pub(super) fn axis(value: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank_i64(rank);
    let resolved = if value < 0 {
        value.checked_add(r)
    } else {
        Some(value)
    };
    match resolved {
        Some(a) if (0..r).contains(&a) => Ok(usize::try_from(a).unwrap_or(usize::MAX)),
        _ => bail!(
            "{what} is {value}, outside the range [{}, {}] for rank {rank}",
            -r,
            r - 1
        ),
    }
}

/// Resolves a list of axes, refusing repeats, which ONNX leaves undefined.
pub(super) fn axes(values: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(values.len());
    for &v in values {
        let a = axis(v, rank, what)?;
        if out.contains(&a) {
            bail!("{what} names axis {a} more than once");
        }
        out.push(a);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_multiplies_partial_shapes() {
        assert_eq!(fmt_shape(&[Some(3), None]), "[3,?]");
        assert_eq!(product(&[Some(3), Some(4)]), Some(12));
        assert_eq!(product(&[Some(3), None]), None);
        assert_eq!(
            product(&[Some(1_000_000_000_000), Some(1_000_000_000_000)]),
            None
        );
    }

    #[test]
    fn axes_resolve_negative_and_refuse_out_of_range() {
        assert_eq!(axis(-1, 3, "attribute 'axis'").unwrap(), 2);
        let e = axis(3, 3, "attribute 'axis'").unwrap_err().to_string();
        assert_eq!(
            e,
            "attribute 'axis' is 3, outside the range [-3, 2] for rank 3"
        );
        assert!(axis(i64::MIN, 3, "x").is_err());
        assert!(axes(&[0, -3], 3, "x").is_err());
    }
}
