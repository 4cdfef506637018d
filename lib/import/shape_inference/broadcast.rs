//! Multidirectional (numpy) broadcasting of partly known shapes.

use anyhow::{Result, bail};

use super::dims::fmt_shape;
use crate::dialect::types::Dim;

/// One output dimension from two aligned input dimensions, or `Err` when they
/// cannot broadcast.
fn dim(a: Dim, b: Dim) -> Result<Dim, ()> {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Ok(Some(x)),
        (Some(1), y) | (y, Some(1)) => Ok(y),
        (Some(_), Some(_)) => Err(()),
        // A dynamic size against n != 1 must be 1 or n at run time; either way the
        // result is n.
        (None, y) | (y, None) => Ok(y),
    }
}

/// The broadcast of two shapes, or `None` when they conflict.
pub(super) fn pair(a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    let rank = a.len().max(b.len());
    let pad = |s: &[Dim], i: usize| {
        let lead = rank - s.len();
        if i < lead {
            Some(1)
        } else {
            s.get(i - lead).copied().flatten()
        }
    };
    (0..rank).map(|i| dim(pad(a, i), pad(b, i)).ok()).collect()
}

/// Whether `from` can broadcast onto `target` without changing it (unidirectional
/// broadcasting, as for Gemm's C or PRelu's slope). Unknown dimensions are given the
/// benefit of the doubt.
pub(super) fn onto(from: &[Dim], target: &[Dim]) -> bool {
    match pair(target, from) {
        Some(s) => {
            s.len() == target.len()
                && s.iter()
                    .zip(target)
                    .all(|(r, t)| r.zip(*t).is_none_or(|(r, t)| r == t))
        }
        None => false,
    }
}

/// The broadcast of several inputs' shapes, each given with the name messages use.
/// Unknown when any shape is unknown, though the known ones are still checked.
pub(super) fn shapes(inputs: &[(String, Option<Vec<Dim>>)]) -> Result<Option<Vec<Dim>>> {
    let mut acc: Option<Vec<Dim>> = None;
    let mut all_known = true;
    for (name, shape) in inputs {
        let Some(shape) = shape else {
            all_known = false;
            continue;
        };
        acc = Some(match acc {
            None => shape.clone(),
            Some(prev) => match pair(&prev, shape) {
                Some(s) => s,
                None => bail!(
                    "{name} has shape {}, which does not broadcast with {}",
                    fmt_shape(shape),
                    fmt_shape(&prev)
                ),
            },
        });
    }
    Ok(acc.filter(|_| all_known))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_follow_numpy_rules_with_dynamic_dims() {
        let s = pair(&[Some(2), Some(1), Some(3)], &[Some(4), Some(1)]).unwrap();
        assert_eq!(s, vec![Some(2), Some(4), Some(3)]);
        let d = pair(&[None, Some(3)], &[Some(5), Some(1)]).unwrap();
        assert_eq!(d, vec![Some(5), Some(3)]);
        assert_eq!(pair(&[None], &[Some(1)]).unwrap(), vec![None]);
        assert!(pair(&[Some(2)], &[Some(3)]).is_none());
    }

    #[test]
    fn onto_is_one_way() {
        assert!(onto(&[Some(3)], &[Some(2), Some(3)]));
        assert!(!onto(&[Some(2), Some(3)], &[Some(3)]));
        assert!(!onto(&[Some(3)], &[Some(1)]));
        assert!(onto(&[None], &[Some(4)]));
    }

    #[test]
    fn conflicts_name_the_input() {
        let e = shapes(&[
            ("input 'A'".into(), Some(vec![Some(2), Some(3)])),
            ("input 'B'".into(), Some(vec![Some(3), Some(4)])),
        ])
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "input 'B' has shape [3,4], which does not broadcast with [2,3]"
        );
    }
}
