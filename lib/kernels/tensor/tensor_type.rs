//! The declared type of a tensor, as plain data: element type and shape, each possibly
//! unknown. The IR spells it `!torch.vtensor<...>`; it is printed and read that way
//! here, because kernels name declared types in their errors as the IR does, and the
//! torch dialect (`crate::dialect::types`) re-uses this type as its value type.

use std::fmt;

use super::dtype::DType;

/// One dimension: a known size, or `None` for a dynamic one (printed `?`).
pub type Dim = Option<i64>;

/// A `!torch.vtensor`: element type and shape, each possibly unknown.
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
}

impl TensorType {
    /// Reads the spelling `Display` prints (`!torch.vtensor<[1,?],!torch.quint8>`, ...);
    /// `None` for anything that is not a value tensor type.
    pub fn parse(text: &str) -> Option<TensorType> {
        let text = text.trim();
        if text == "!torch.vtensor" {
            return Some(TensorType::unknown());
        }
        let body = text.strip_prefix("!torch.vtensor<")?.strip_suffix('>')?;
        let (shape_text, dtype_text) = if let Some(rest) = body.strip_prefix('*') {
            (None, rest.strip_prefix(',')?)
        } else {
            let rest = body.strip_prefix('[')?;
            let (dims, rest) = rest.split_once(']')?;
            (Some(dims), rest.strip_prefix(',')?)
        };
        let shape = match shape_text {
            None => None,
            Some("") => Some(Vec::new()),
            Some(dims) => Some(
                dims.split(',')
                    .map(|d| match d.trim() {
                        "?" => Some(None),
                        n => n.parse::<i64>().ok().map(Some),
                    })
                    .collect::<Option<Vec<Dim>>>()?,
            ),
        };
        let dtype = match dtype_text.trim() {
            "unk" => None,
            name => Some(DType::from_torch_name(name)?),
        };
        Some(TensorType { dtype, shape })
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

/// Prints the type as torch-mlir spells it: `!torch.vtensor<[1,?,3],f32>`,
/// `!torch.vtensor<*,f32>`, or `!torch.vtensor` when nothing is known.
impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dtype.is_none() && self.shape.is_none() {
            return f.write_str("!torch.vtensor");
        }
        f.write_str("!torch.vtensor<")?;
        match &self.shape {
            None => f.write_str("*")?,
            Some(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    match d {
                        Some(n) => write!(f, "{n}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")?;
            }
        }
        match self.dtype {
            Some(d) => write!(f, ",{}>", d.torch_name()),
            None => f.write_str(",unk>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_torch_mlir() {
        let t = TensorType::new(DType::U8, vec![Some(1), None, Some(3)]);
        assert_eq!(t.to_string(), "!torch.vtensor<[1,?,3],ui8>");
        let s = TensorType::known(DType::F32, &[]);
        assert_eq!(s.to_string(), "!torch.vtensor<[],f32>");
        let u = TensorType {
            dtype: Some(DType::I8),
            shape: None,
        };
        assert_eq!(u.to_string(), "!torch.vtensor<*,si8>");
        assert_eq!(TensorType::unknown().to_string(), "!torch.vtensor");
    }

    #[test]
    fn parse_reads_what_display_prints() {
        for text in [
            "!torch.vtensor<[1,?,3],ui8>",
            "!torch.vtensor<[],f32>",
            "!torch.vtensor<*,si8>",
            "!torch.vtensor<[2,3],!torch.quint8>",
            "!torch.vtensor<[4],unk>",
            "!torch.vtensor",
        ] {
            assert_eq!(TensorType::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(TensorType::parse("!torch.int"), None);
        assert_eq!(TensorType::parse("!torch.vtensor<[x],f32>"), None);
    }

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
