//! Writes results so that a failure never leaves a partial file behind: the text goes to
//! a temporary file in the destination's directory, which is then renamed into place.
//! The temporary file is created with mode 0666 less the user's umask, as `open(2)` gives
//! any new file, so the renamed result has the permissions the user expects (0644 under
//! umask 022) rather than a temporary file's private 0600.

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `text` to `dest`, or to standard output when `dest` is `-`.
pub fn write_output(dest: &Path, text: &str) -> Result<()> {
    write_bytes(dest, text.as_bytes())
}

/// Writes `bytes` to `dest` (standard output for `-`) through a temporary file.
pub fn write_bytes(dest: &Path, bytes: &[u8]) -> Result<()> {
    write_with(dest, |w| w.write_all(bytes))
}

/// Prints `value` straight into `dest` (standard output for `-`), never holding the
/// whole text: a module with large constants prints to twice their size in hex, so
/// building the string first would double the compiler's peak memory.
pub fn write_display(dest: &Path, value: &impl fmt::Display) -> Result<()> {
    write_with(dest, |w| {
        let mut buffered = BufWriter::with_capacity(1 << 20, w);
        let mut adapter = IoAdapter {
            out: &mut buffered,
            error: None,
        };
        if fmt::write(&mut adapter, format_args!("{value}")).is_err() {
            return Err(adapter
                .error
                .unwrap_or_else(|| io::Error::other("formatting failed")));
        }
        buffered.flush()
    })
}

/// Forwards formatted text to an `io::Write`, keeping the I/O error that `fmt::Error`
/// cannot carry.
struct IoAdapter<'a, W: Write> {
    out: &'a mut W,
    error: Option<io::Error>,
}

impl<W: Write> fmt::Write for IoAdapter<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

/// Runs `write` on `dest`: standard output for `-`, else a temporary file in the same
/// directory, renamed over `dest` only when everything was written.
fn write_with(dest: &Path, write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    if dest.as_os_str() == "-" {
        let mut out = io::stdout().lock();
        write(&mut out)
            .and_then(|_| out.flush())
            .context("writing to standard output")?;
        return Ok(());
    }
    if writes_in_place(dest) {
        // A device or pipe (`-o /dev/null`, a FIFO): renaming a temporary file over it
        // would replace the device with a regular file, so it is written as it stands.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(dest)
            .with_context(|| format!("cannot write '{}'", dest.display()))?;
        write(&mut file)
            .and_then(|_| file.flush())
            .with_context(|| format!("writing '{}'", dest.display()))?;
        return Ok(());
    }
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp =
        new_file_in(dir).with_context(|| format!("cannot create a file in '{}'", dir.display()))?;
    write(tmp.as_file_mut())
        .and_then(|_| tmp.flush())
        .with_context(|| format!("writing '{}'", dest.display()))?;
    tmp.persist(dest)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write '{}'", dest.display()))?;
    Ok(())
}

/// Whether `dest` exists and is neither a regular file nor a directory (a character
/// device such as /dev/null, or a pipe): such a destination is written directly.
fn writes_in_place(dest: &Path) -> bool {
    std::fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// A temporary file in `dir` whose mode is what a newly created file gets (0666 & !umask).
fn new_file_in(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".qlower-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
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
    fn displayed_values_stream_into_place() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.mlir");
        write_display(&dest, &format_args!("{}-{}", "a", 7)).unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "a-7");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// The mode a file created now gets: 0666 less the umask, read back from a file made
    /// with `std::fs::File::create`, which applies the umask as `open(2)` does.
    #[cfg(unix)]
    fn mode_of_a_new_file(dir: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        let probe = dir.join("probe");
        std::fs::File::create(&probe).unwrap();
        let mode = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
        std::fs::remove_file(&probe).unwrap();
        mode
    }

    #[cfg(unix)]
    #[test]
    fn outputs_get_the_mode_of_a_newly_created_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let expected = mode_of_a_new_file(dir.path());
        let dest = dir.path().join("out.mlir");
        write_output(&dest, "x").unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, expected, "{mode:o} != {expected:o}");
        // Replacing an existing file gives the same mode.
        write_bytes(&dest, b"y").unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, expected, "{mode:o} != {expected:o}");
    }

    #[test]
    fn devices_are_written_in_place_and_files_through_a_rename() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.mlir");
        std::fs::write(&file, "old").unwrap();
        assert!(!writes_in_place(&file));
        assert!(!writes_in_place(&dir.path().join("missing")));
        assert!(!writes_in_place(dir.path()));
        #[cfg(unix)]
        assert!(writes_in_place(Path::new("/dev/null")));
    }

    #[test]
    fn a_missing_directory_is_an_error_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("no/such/dir/out.mlir");
        assert!(write_output(&dest, "x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
