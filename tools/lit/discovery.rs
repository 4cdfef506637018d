//! Finds test files under the test root, like lit's discovery with this
//! suite's `lit.cfg.py`.

use crate::run_line::Test;
use std::fs;
use std::io;
use std::path::Path;

const SUFFIXES: [&str; 2] = [".mlir", ".test"];
/// `Inputs` holds data for tests; `Output` is where lit puts its temp files.
const SKIPPED_DIRS: [&str; 2] = ["Inputs", "Output"];

pub fn find_tests(root: &Path) -> io::Result<Vec<Test>> {
    let mut tests = Vec::new();
    walk(root, "", &mut tests)?;
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tests)
}

fn walk(dir: &Path, prefix: &str, tests: &mut Vec<Test>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let relative = format!("{prefix}{name}");
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_str()) {
                walk(&path, &format!("{relative}/"), tests)?;
            }
        } else if SUFFIXES.iter().any(|suffix| name.ends_with(suffix)) {
            tests.push(Test {
                path,
                name: relative,
            });
        }
    }
    Ok(())
}
