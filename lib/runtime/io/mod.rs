//! Tensor files: NumPy `.npy` (read and write) and ONNX `TensorProto` `.pb` (read), as
//! used by ONNX's test data.

pub mod npy;
pub mod pb;

use std::path::Path;

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::dtype::DType;

/// The file `qlower run` writes output `name` to, below its output directory: path
/// separators and special names would escape the directory, so they are replaced.
pub fn output_file_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '\0') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let stem = if s.is_empty() || s == "." || s == ".." || Path::new(&s).components().count() != 1 {
        format!("output_{}", s.replace('.', "_"))
    } else {
        s
    };
    format!("{stem}.npy")
}

/// The file for output `name` of type `dtype`: `.npy` (`output_file_name`), except
/// for float8, which NumPy has no dtype for; those are ONNX `TensorProto` `.pb` files,
/// the format of ONNX's own test data.
pub fn output_file_name_for(name: &str, dtype: DType) -> String {
    let npy = output_file_name(name);
    if dtype.is_float8() {
        format!("{}.pb", npy.trim_end_matches(".npy"))
    } else {
        npy
    }
}

/// Writes `t`, output `name`, in the format `output_file_name_for` names.
pub fn encode_output(t: &Tensor, name: &str) -> Result<Vec<u8>> {
    if t.dtype().is_float8() {
        Ok(pb::encode(t, name))
    } else {
        npy::encode(t)
    }
}

/// Reads a tensor from `path`, choosing the format by extension.
pub fn read_tensor(path: &Path) -> Result<Tensor> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => npy::read(path),
        Some("pb") => pb::read(path),
        _ => bail!("'{}' is neither .npy nor .pb", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::output_file_name;

    #[test]
    fn output_names_stay_inside_the_directory() {
        assert_eq!(output_file_name("y"), "y.npy");
        assert_eq!(output_file_name("a/b"), "a_b.npy");
        assert_eq!(output_file_name(".."), "output___.npy");
        assert_eq!(output_file_name(""), "output_.npy");
    }
}
