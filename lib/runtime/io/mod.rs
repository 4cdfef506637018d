//! Tensor files: NumPy `.npy` (read and write) and ONNX `TensorProto` `.pb` (read), as
//! used by ONNX's test data.

pub mod npy;
pub mod pb;

use std::path::Path;

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;

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
