//! The in-process `FileCheck` command: parses LLVM-style options, splits the
//! input at `CHECK-LABEL` matches and runs one `filecheck` crate checker per
//! block.

use crate::filecheck_translate::{self as translate, Directive, Options};
use filecheck::{CheckerBuilder, NO_VARIABLES};
use std::fs;
use std::path::Path;

pub struct Invocation {
    pub check_file: String,
    pub input_file: Option<String>,
    pub options: Options,
    pub allow_empty: bool,
}

pub fn parse_args(args: &[String]) -> Result<Invocation, String> {
    let mut check_file = None;
    let mut input_file = None;
    let mut prefixes = Vec::new();
    let mut strict_whitespace = false;
    let mut allow_unused_prefixes = false;
    let mut allow_empty = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(option) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            if check_file.replace(arg.clone()).is_some() {
                return Err(format!("FileCheck: unexpected extra argument '{arg}'"));
            }
            continue;
        };
        let (name, inline) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (option, None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next().cloned())
                .ok_or(format!("FileCheck: option '{arg}' needs a value"))
        };
        let flag = |value: &Option<String>| match value.as_deref() {
            None | Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(format!("FileCheck: bad value '{other}' for '{name}'")),
        };
        match name {
            "check-prefix" | "check-prefixes" => {
                prefixes.extend(value()?.split(',').map(str::to_string));
            }
            "input-file" => input_file = Some(value()?),
            "strict-whitespace" => strict_whitespace = flag(&inline)?,
            "allow-unused-prefixes" => allow_unused_prefixes = flag(&inline)?,
            "allow-empty" => allow_empty = flag(&inline)?,
            // Block-scoped variables are the only behaviour here, so the
            // flag that asks for it changes nothing.
            "enable-var-scope" => {
                flag(&inline)?;
            }
            // Diagnostics formatting only.
            "dump-input" | "dump-input-filter" | "dump-input-context" => {
                value()?;
            }
            _ => return Err(format!("FileCheck: unsupported option '{arg}'")),
        }
    }
    if prefixes.is_empty() {
        prefixes.push("CHECK".to_string());
    }
    Ok(Invocation {
        check_file: check_file.ok_or("FileCheck: no check file given")?,
        input_file,
        options: Options {
            prefixes,
            strict_whitespace,
            allow_unused_prefixes,
        },
        allow_empty,
    })
}

/// Runs `FileCheck args...` with `stdin` as its standard input; relative
/// paths are resolved against `cwd`. The error is the full diagnostic.
pub fn run(args: &[String], stdin: &[u8], cwd: &Path) -> Result<(), String> {
    let invocation = parse_args(args)?;
    let check_path = cwd.join(&invocation.check_file);
    let check_text = fs::read_to_string(&check_path)
        .map_err(|e| format!("FileCheck: cannot read {}: {e}", check_path.display()))?;
    let input = match invocation.input_file.as_deref() {
        None | Some("-") => stdin.to_vec(),
        Some(file) => {
            fs::read(cwd.join(file)).map_err(|e| format!("FileCheck: cannot read {file}: {e}"))?
        }
    };
    check(&check_text, &String::from_utf8_lossy(&input), &invocation)
}

/// Checks `input` against the directives in `check_text`.
pub fn check(check_text: &str, input: &str, invocation: &Invocation) -> Result<(), String> {
    let options = &invocation.options;
    let strict = options.strict_whitespace;
    let directives = translate::parse_check_file(check_text, options)?;
    let plan = translate::build_plan(directives)?;
    let input = if strict {
        input.to_string()
    } else {
        translate::canonicalize(input)
    };
    if input.is_empty() && !invocation.allow_empty {
        return Err(
            "FileCheck: the input is empty (pass --allow-empty to accept that)".to_string(),
        );
    }

    // Block i runs from label i's match to label i+1's; each label is
    // searched for after the previous one, as LLVM does.
    let mut starts = Vec::new();
    let mut from = 0;
    for block in &plan.blocks {
        let regex = translate::label_regex(&block.label, strict)?;
        let found = regex.find_at(&input, from).ok_or_else(|| {
            format!(
                "{}: label not found in the input after input line {}\n{}",
                block.label.describe(),
                line_of(&input, from),
                show_input(&input)
            )
        })?;
        starts.push(found.start());
        from = found.end();
    }

    let prologue_end = starts.first().copied().unwrap_or(input.len());
    let prologue: Vec<&Directive> = plan.prologue.iter().collect();
    let region = if plan.blocks.is_empty() {
        "the input".to_string()
    } else {
        format!(
            "the input before the first label (lines 1-{})",
            line_of(&input, prologue_end)
        )
    };
    check_region(&region, &prologue, &input[..prologue_end], strict)?;

    for (index, block) in plan.blocks.iter().enumerate() {
        let start = starts[index];
        let end = starts.get(index + 1).copied().unwrap_or(input.len());
        let directives: Vec<&Directive> =
            std::iter::once(&block.label).chain(&block.body).collect();
        let region = format!(
            "the block of CHECK-LABEL at check line {} (input lines {}-{})",
            block.label.line,
            line_of(&input, start),
            line_of(&input, end)
        );
        check_region(&region, &directives, &input[start..end], strict)?;
    }
    Ok(())
}

fn check_region(
    region: &str,
    directives: &[&Directive],
    text: &str,
    strict: bool,
) -> Result<(), String> {
    if directives.is_empty() {
        return Ok(());
    }
    let mut builder = CheckerBuilder::new();
    let mut legend = String::new();
    let mut index = 0;
    for directive in directives {
        for (line, note) in translate::crate_directives(directive, strict) {
            match builder.directive(&line) {
                Ok(true) => {}
                Ok(false) => {
                    return Err(format!(
                        "{}: internal error: crate rejected '{line}'",
                        directive.describe()
                    ));
                }
                Err(e) => return Err(format!("{}: {e}", directive.describe())),
            }
            legend.push_str(&format!("  #{index} {}{note}\n", directive.describe()));
            index += 1;
        }
    }
    let checker = builder.finish();
    let failure =
        |detail: String| format!("FileCheck failed in {region}\ndirectives:\n{legend}{detail}");
    match checker.check(text, NO_VARIABLES) {
        Ok(true) => Ok(()),
        Err(e) => Err(failure(format!("error: {e}\n"))),
        Ok(false) => {
            // The crate's explainer slices the last line one byte short and
            // would panic on a multi-byte final character or empty text.
            let explainable =
                text.ends_with('\n') || text.as_bytes().last().is_some_and(u8::is_ascii);
            let detail = match explainable.then(|| checker.explain(text, NO_VARIABLES)) {
                Some(Ok((_, explanation))) => format!("explanation:\n{explanation}"),
                _ => format!("input:\n{}", show_input(text)),
            };
            Err(failure(detail))
        }
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

fn show_input(text: &str) -> String {
    text.lines().map(|line| format!("> {line}\n")).collect()
}
