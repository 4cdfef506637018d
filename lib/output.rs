//! Writes results so that a failure never leaves a partial file behind: the text goes to
//! a temporary file in the destination's directory, which is then renamed into place.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `text` to `dest`, or to standard output when `dest` is `-`.
pub fn write_output(dest: &Path, text: &str) -> Result<()> {
    write_bytes(dest, text.as_bytes())
}

/// Writes `bytes` to `dest` (standard output for `-`) through a temporary file.
pub fn write_bytes(dest: &Path, text: &[u8]) -> Result<()> {
    if dest.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(text)
            .and_then(|_| out.flush())
            .context("writing to standard output")?;
        return Ok(());
    }
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a file in '{}'", dir.display()))?;
    tmp.write_all(text)
        .and_then(|_| tmp.flush())
        .with_context(|| format!("writing '{}'", dest.display()))?;
    tmp.persist(dest)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write '{}'", dest.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_destination_whole() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.mlir");
        std::fs::write(&dest, "old contents that are longer").unwrap();
        write_output(&dest, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_is_an_error_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("no/such/dir/out.mlir");
        assert!(write_output(&dest, "x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
