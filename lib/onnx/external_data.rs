//! Tensor data stored outside the model file (`data_location = EXTERNAL`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path};

use anyhow::{Context, Result, bail, ensure};
use bytes::Bytes;

use super::proto::TensorProto;

/// Reads the `expected` bytes that `t` keeps in an external file below `model_dir`.
pub fn read(t: &TensorProto, model_dir: &Path, expected: usize) -> Result<Bytes> {
    let mut location = None;
    let mut offset: u64 = 0;
    let mut length: Option<u64> = None;
    for entry in &t.external_data {
        match entry.key.as_str() {
            "location" => location = Some(entry.value.as_str()),
            "offset" => offset = parse_number("offset", &entry.value)?,
            "length" => length = Some(parse_number("length", &entry.value)?),
            _ => {}
        }
    }
    let location = location.context("external data has no 'location'")?;
    check_stays_inside(location)?;
    let path = model_dir.join(location);
    let canonical_dir = model_dir
        .canonicalize()
        .with_context(|| format!("model directory {}", model_dir.display()))?;
    let canonical = path
        .canonicalize()
        .with_context(|| format!("external data file '{location}' cannot be opened"))?;
    // Symbolic links may still lead outside the model's directory.
    ensure!(
        canonical.starts_with(&canonical_dir),
        "external data location '{location}' escapes the model's directory"
    );

    if let Some(length) = length {
        ensure!(
            length == expected as u64,
            "external data length {length} disagrees with the shape, which needs {expected} bytes"
        );
    }
    let mut file = File::open(&canonical)
        .with_context(|| format!("external data file '{location}' cannot be opened"))?;
    let size = file.metadata()?.len();
    let end = offset
        .checked_add(expected as u64)
        .context("offset overflows")?;
    ensure!(
        end <= size,
        "external data file '{location}' has {size} bytes, but offset {offset} + {expected} bytes are needed"
    );
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = vec![0u8; expected];
    file.read_exact(&mut buf)
        .with_context(|| format!("reading external data file '{location}'"))?;
    Ok(Bytes::from(buf))
}

/// Refuses absolute paths and `..` components before touching the file system.
fn check_stays_inside(location: &str) -> Result<()> {
    let p = Path::new(location);
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::CurDir => {}
            _ => bail!("external data location '{location}' escapes the model's directory"),
        }
    }
    Ok(())
}

fn parse_number(key: &str, value: &str) -> Result<u64> {
    value
        .parse()
        .with_context(|| format!("external data '{key}' is not a number: '{value}'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::StringStringEntryProto;

    fn external(location: &str, length: Option<usize>) -> TensorProto {
        let mut entries = vec![StringStringEntryProto {
            key: "location".into(),
            value: location.into(),
        }];
        if let Some(l) = length {
            entries.push(StringStringEntryProto {
                key: "length".into(),
                value: l.to_string(),
            });
        }
        TensorProto {
            data_type: 1,
            dims: vec![2],
            data_location: 1,
            external_data: entries,
            ..Default::default()
        }
    }

    #[test]
    fn reads_data_next_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("w.bin"), [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let b = read(&external("w.bin", Some(8)), dir.path(), 8).unwrap();
        assert_eq!(&b[..], &[1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn refuses_paths_that_escape() {
        let dir = tempfile::tempdir().unwrap();
        for loc in ["../secret", "/etc/passwd", "a/../../b"] {
            let e = read(&external(loc, None), dir.path(), 8)
                .unwrap_err()
                .to_string();
            assert!(e.contains("escapes the model's directory"), "{loc}: {e}");
        }
    }

    #[test]
    fn refuses_a_length_that_disagrees_with_the_shape() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("w.bin"), [0u8; 16]).unwrap();
        let e = read(&external("w.bin", Some(16)), dir.path(), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("length 16 disagrees"), "{e}");
    }

    #[test]
    fn refuses_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let e = read(&external("nope.bin", None), dir.path(), 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'nope.bin' cannot be opened"), "{e}");
    }
}
