//! Every torch op the lowering can emit has a kernel: this test reads the lowering's
//! source (`lib/conversion/**/*.rs` and the builder's helpers) and looks up every op name
//! it finds, so a new lowering without a kernel fails the tests.
//!
//! Names are found at `aten_tensor(…)` / `.aten(…)` calls, `.op("torch.…")`, and the
//! calls of `conversion::typed_ops`' helpers (`.make`, `.binary`, `.scalar`,
//! `.compare_scalar`, `.unary`):
//! - a string literal is the name;
//! - `format!("max_pool{n}d")` stands for its placeholders replaced by 1, 2 and 3 (the
//!   spatial ranks torch ops come in), each of which must have a kernel;
//! - a parameter of the enclosing function is traced to the literals its callers in
//!   the same file pass.
//!
//! Anything else (a name computed into a local, say) fails the test with the place it
//! was found, so that the scan is taught the new form rather than silently skipping it.

use std::path::Path;

use super::registered_ops;
use crate::kernels::{FAMILIES, lookup};

/// Ops the plan runs itself (constants and literals), not kernels, and
/// `torch.operator` runs the kernel its `name` attribute names (qlower's recurrent
/// layers); `dialect::qlower`'s test checks that each of those has one.
fn handled_by_plan(name: &str) -> bool {
    name.starts_with("torch.constant.")
        || name == "torch.vtensor.literal"
        || name == "torch.operator"
        // Its message is an attribute; the plan builds the step (runtime/plan.rs).
        || name == "torch.runtime.assert"
}

/// One place an op name comes from, for messages.
struct Site<'a> {
    file: &'a str,
    line: usize,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The text with `//` comments blanked to spaces, so byte offsets still hold.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let cut = match body.find("//") {
            // A `//` after an odd number of quotes is inside a string literal.
            Some(i) if body[..i].matches('"').count() % 2 == 0 => i,
            _ => body.len(),
        };
        out.push_str(&body[..cut]);
        out.extend(std::iter::repeat_n(' ', body.len() - cut));
        if line.len() > body.len() {
            out.push('\n');
        }
    }
    out
}

/// The top-level, comma-separated items between the parenthesis at `open` and its
/// match, each trimmed; `<`/`>` nest too (generic arguments), but not in `->`.
fn items_at(text: &str, open: usize) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'(') {
        return None;
    }
    let (mut depth, mut start, mut in_str) = (0i32, open + 1, false);
    let mut items = Vec::new();
    for i in open..bytes.len() {
        let b = bytes[i];
        if in_str {
            in_str = b != b'"' || bytes[i - 1] == b'\\';
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => {
                depth -= 1;
                if depth == 0 {
                    let last = text[start..i].trim();
                    if !last.is_empty() {
                        items.push(last);
                    }
                    return Some(items);
                }
            }
            b',' if depth == 1 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Offsets of calls `name(` (the offset of the parenthesis), excluding definitions
/// and longer names that end in `name`.
fn calls_of(text: &str, name: &str) -> Vec<usize> {
    let pattern = format!("{name}(");
    text.match_indices(&pattern)
        .filter(|&(i, _)| {
            let before = text[..i].trim_end();
            let prev = text[..i].chars().next_back();
            !before.ends_with("fn") && !prev.is_some_and(is_ident_char)
        })
        .map(|(i, _)| i + name.len())
        .collect()
}

/// The function whose body holds offset `at`: its name and the offset of its
/// parameter list.
fn enclosing_fn(text: &str, at: usize) -> Option<(&str, usize)> {
    let start = text[..at].rfind("fn ")? + 3;
    let name_len = text[start..].find(|c: char| !is_ident_char(c))?;
    let name = &text[start..start + name_len];
    let open = start + text[start..].find('(')?;
    Some((name, open))
}

/// The op names that the expression `expr`, found at `at` in `text`, stands for.
fn names_of(text: &str, expr: &str, at: usize, depth: usize) -> Result<Vec<String>, String> {
    let expr = expr.trim_start_matches('&');
    if let Some(lit) = expr.strip_prefix('"').and_then(|e| e.strip_suffix('"')) {
        return Ok(vec![lit.to_string()]);
    }
    if let Some(inner) = expr.strip_prefix("format!(") {
        let lit = inner
            .split(',')
            .next()
            .and_then(|l| l.trim().trim_end_matches(')').strip_prefix('"'))
            .and_then(|l| l.strip_suffix('"'))
            .ok_or_else(|| format!("a format! without a literal: {expr}"))?;
        return Ok((1..=3).map(|n| expand(lit, n)).collect());
    }
    if depth > 4 || expr.is_empty() || !expr.chars().all(is_ident_char) {
        return Err(format!("an op name the scan cannot read: `{expr}`"));
    }
    // A parameter of the enclosing function: the literals its callers pass.
    let (func, open) = enclosing_fn(text, at).ok_or("no enclosing function")?;
    let params = items_at(text, open).ok_or("unreadable parameters")?;
    // A method's receiver is not among its calls' arguments.
    let params: Vec<&str> = params
        .into_iter()
        .filter(|p| !matches!(*p, "self" | "&self" | "&mut self" | "mut self"))
        .collect();
    let index = params
        .iter()
        .position(|p| p.split(':').next().map(str::trim) == Some(expr))
        .ok_or_else(|| format!("`{expr}` is not a parameter of `{func}`"))?;
    let mut names = Vec::new();
    let calls = calls_of(text, func);
    for open in &calls {
        let args = items_at(text, *open).ok_or("unreadable call")?;
        let arg = args
            .get(index)
            .ok_or_else(|| format!("a call of `{func}` without argument {index}"))?;
        names.extend(names_of(text, arg, *open, depth + 1)?);
    }
    if calls.is_empty() {
        return Err(format!(
            "`{func}` (which passes `{expr}` on) has no callers"
        ));
    }
    Ok(names)
}

/// `lit` with every `{…}` placeholder replaced by `n`.
fn expand(lit: &str, n: usize) -> String {
    let mut out = String::new();
    let mut rest = lit;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                out.push_str(&n.to_string());
                rest = &rest[open + close + 1..];
            }
            None => {
                rest = &rest[open..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every torch op name emitted in `text`, with where it was found, and the places the
/// scan could not read.
fn scan(file: &str, text: &str) -> (Vec<(String, usize)>, Vec<String>) {
    let text = &without_comments(text);
    let mut found = Vec::new();
    let mut unreadable = Vec::new();
    let site = |at: usize| Site {
        file,
        line: line_of(text, at),
    };
    // `conversion::typed_ops`'s helpers take the aten op name first too.
    let helpers = [
        ("aten_tensor(", "torch.aten."),
        (".aten(", "torch.aten."),
        (".op(", ""),
        (".make(", "torch.aten."),
        (".binary(", "torch.aten."),
        (".scalar(", "torch.aten."),
        (".compare_scalar(", "torch.aten."),
        (".unary(", "torch.aten."),
    ];
    for (helper, prefix) in helpers {
        for (i, _) in text.match_indices(helper) {
            let open = i + helper.len() - 1;
            if helper == "aten_tensor(" && text[..i].trim_end().ends_with("fn") {
                continue;
            }
            let Some(first) = items_at(text, open).and_then(|a| a.first().copied()) else {
                continue;
            };
            // The builder's own helpers pass their caller's name on, and so do
            // typed_ops' public ones, whose callers are scanned themselves.
            let forwarded = match enclosing_fn(text, i) {
                Some(("aten" | "aten_tensor", _)) => true,
                Some(("make" | "binary" | "scalar" | "compare_scalar" | "unary", _)) => {
                    file.ends_with("typed_ops.rs")
                }
                _ => false,
            };
            if forwarded {
                continue;
            }
            // Of the `.op` calls, only those that build torch ops concern kernels.
            if helper == ".op(" && first.starts_with('"') && !first.starts_with("\"torch.") {
                continue;
            }
            match names_of(text, first, i, 0) {
                Ok(names) => found.extend(
                    names
                        .into_iter()
                        .map(|n| (format!("{prefix}{n}"), site(i).line)),
                ),
                Err(e) => {
                    let s = site(i);
                    unreadable.push(format!("{}:{}: {e}", s.file, s.line));
                }
            }
        }
    }
    (found, unreadable)
}

#[test]
fn every_op_the_lowering_emits_has_a_kernel() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("lib/conversion")];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir)
            .expect("lib/conversion is readable")
            .filter_map(|e| e.ok().map(|e| e.path()))
        {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files.push(root.join("lib/dialect/builder.rs"));
    let mut missing = Vec::new();
    let mut unreadable = Vec::new();
    let mut seen = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("source is readable");
        let file = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let (found, bad) = scan(&file, &text);
        unreadable.extend(bad);
        for (name, line) in found {
            seen += 1;
            if !handled_by_plan(&name) && lookup(&name).is_none() {
                missing.push(format!("{file}:{line}: {name}"));
            }
        }
    }
    assert!(
        seen > 20,
        "the scan found only {seen} op names; is it still reading the sources?"
    );
    assert!(
        unreadable.is_empty(),
        "op names the coverage scan cannot read (teach coverage.rs the form):\n{}",
        unreadable.join("\n")
    );
    assert!(
        missing.is_empty(),
        "ops the lowering emits without a runtime kernel:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_reads_literals_formats_and_forwarded_parameters() {
    let text = r#"
fn unary<'c, 'a>(b: &Binder<'c, 'a>, t: &T, input: &str, aten: &str) -> Lowered<'c, 'a> {
    t.aten_tensor(aten, &[x], &result)
}
fn relu(b: &B, t: &T) -> L { unary(b, t, "X", "relu") }
fn pool(t: &T, n: usize) { t.aten_tensor(&format!("max_pool{n}d"), &ops, r) }
fn size(t: &T) { t.aten("size.int", &[x, d], t.torch_type("int")?) }
// t.aten_tensor("commented_out", &[x], r)
fn cast(t: &T) { t.op(
    "torch.tensor_static_info_cast", &[v], &[ty], &[]) }
"#;
    let (found, bad) = scan("test.rs", text);
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(
        names,
        [
            "torch.aten.relu",
            "torch.aten.max_pool1d",
            "torch.aten.max_pool2d",
            "torch.aten.max_pool3d",
            "torch.aten.size.int",
            "torch.tensor_static_info_cast",
        ]
    );
    // A name computed into a local, and one passed on by a function nobody calls.
    let text = "fn f(t: &T) { let n = pick(); t.aten_tensor(n, &[], r) }
                fn build(t: &T, n: &str) { t.op(n, &[], &[], &[]) }";
    let (_, bad) = scan("test.rs", text);
    assert_eq!(bad.len(), 2, "{bad:?}");
}

#[test]
fn no_op_has_two_kernels() {
    for op in registered_ops() {
        let owners = FAMILIES.iter().filter(|f| f(&op).is_some()).count();
        assert_eq!(owners, 1, "{op} is registered by {owners} op families");
    }
}
