//! Value types of the torch-like dialect, kept as plain data until they become MLIR
//! types. The data lives in the kernel library (`TensorType`, which the backend's
//! kernels read too); the torch spelling of it lives here, with the dialect.

use std::fmt;

pub use crate::kernels::tensor::tensor_type::{Dim, TensorType};
use crate::onnx::dtype::DType;

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
}
