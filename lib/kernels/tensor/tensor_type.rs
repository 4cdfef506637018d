//! The declared type of a tensor, as plain data: element type and shape, each possibly
//! unknown. The torch dialect spells it `!torch.vtensor<...>` (`crate::dialect::types`
//! prints and parses that); kernels read it to learn their results' dtypes.

use super::dtype::DType;

/// One dimension: a known size, or `None` for a dynamic one (printed `?`).
pub type Dim = Option<i64>;

/// A value tensor's type (`!torch.vtensor` in the IR): element type and shape, each
/// possibly unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub dtype: Option<DType>,
    /// `None` for an unranked tensor.
    pub shape: Option<Vec<Dim>>,
}

impl TensorType {
    pub fn new(dtype: DType, shape: Vec<Dim>) -> Self {
        TensorType {
            dtype: Some(dtype),
            shape: Some(shape),
        }
    }

    /// A tensor whose every dimension is known.
    pub fn known(dtype: DType, dims: &[i64]) -> Self {
        Self::new(dtype, dims.iter().map(|&d| Some(d)).collect())
    }

    pub fn unknown() -> Self {
        TensorType::default()
    }

    pub fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }

    /// The most refined type that both describe, or a message saying how they conflict.
    pub fn merge(&self, other: &TensorType) -> Result<TensorType, String> {
        let dtype = match (self.dtype, other.dtype) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!("element type {a} disagrees with {b}"));
            }
            (a, b) => a.or(b),
        };
        let shape = match (&self.shape, &other.shape) {
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return Err(format!("rank {} disagrees with rank {}", a.len(), b.len()));
                }
                let mut dims = Vec::with_capacity(a.len());
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    dims.push(match (x, y) {
                        (Some(x), Some(y)) if x != y => {
                            return Err(format!(
                                "dimension {i} is {x} in one and {y} in the other"
                            ));
                        }
                        (x, y) => x.or(*y),
                    });
                }
                Some(dims)
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Ok(TensorType { dtype, shape })
    }

    /// The sizes when every one is known.
    pub fn static_dims(&self) -> Option<Vec<i64>> {
        self.shape.as_ref()?.iter().copied().collect()
    }

    pub fn with_dtype(&self, dtype: DType) -> TensorType {
        TensorType {
            dtype: Some(dtype),
            shape: self.shape.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_refines_and_reports_conflicts() {
        let a = TensorType::new(DType::F32, vec![None, Some(3)]);
        let b = TensorType::new(DType::F32, vec![Some(2), None]);
        assert_eq!(a.merge(&b).unwrap(), TensorType::known(DType::F32, &[2, 3]));
        let c = TensorType::known(DType::F32, &[2, 4]);
        assert_eq!(
            a.merge(&c).unwrap_err(),
            "dimension 1 is 3 in one and 4 in the other"
        );
        let d = TensorType::known(DType::U8, &[2, 3]);
        assert!(a.merge(&d).unwrap_err().contains("element type"));
    }
}
