//! Translates LLVM FileCheck check files into directives for the `filecheck`
//! crate.
//!
//! The two pattern languages differ in ways that would silently weaken a test:
//! the crate anchors literal text at word boundaries and matches whitespace
//! exactly, while LLVM matches substrings and folds runs of blanks. So every
//! literal is emitted as an escaped regex (see `filecheck_pattern`), and
//! constructs the crate cannot express faithfully are refused with an error
//! naming the check line.

use crate::filecheck_pattern::{self as pattern, Piece};
use regex::{Regex, RegexBuilder};
use std::collections::HashSet;

/// An LLVM directive kind, named after its suffix (`CHECK-NEXT:` is `Next`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Check,
    Next,
    Same,
    Dag,
    Not,
    Label,
    Empty,
}

impl Kind {
    fn suffix(self) -> &'static str {
        match self {
            Kind::Check => ":",
            Kind::Next => "-NEXT:",
            Kind::Same => "-SAME:",
            Kind::Dag => "-DAG:",
            Kind::Not => "-NOT:",
            Kind::Label => "-LABEL:",
            Kind::Empty => "-EMPTY:",
        }
    }

    fn crate_keyword(self) -> &'static str {
        match self {
            // A label is checked as the first plain check of its own block.
            Kind::Check | Kind::Label => "check",
            Kind::Next | Kind::Empty => "nextln",
            Kind::Same => "sameln",
            Kind::Dag => "unordered",
            Kind::Not => "not",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Directive {
    pub kind: Kind,
    /// 1-based line in the check file.
    pub line: usize,
    pub prefix: String,
    /// The pattern as written (after whitespace canonicalization).
    pub text: String,
    pub pieces: Vec<Piece>,
}

impl Directive {
    pub fn describe(&self) -> String {
        format!(
            "line {}: {}{} {}",
            self.line,
            self.prefix,
            self.kind.suffix(),
            self.text
        )
    }
}

pub struct Options {
    pub prefixes: Vec<String>,
    pub strict_whitespace: bool,
    pub allow_unused_prefixes: bool,
}

/// Directives grouped the way `CHECK-LABEL` splits the input.
pub struct Plan {
    /// Directives before the first label; they see the text before it.
    pub prologue: Vec<Directive>,
    pub blocks: Vec<Block>,
}

pub struct Block {
    pub label: Directive,
    pub body: Vec<Directive>,
}

/// Collapses runs of blanks to one space and drops `\r` before `\n`, as LLVM
/// does to both the check file and the input unless `--strict-whitespace`.
/// Doing it to the input too keeps `{{...}}` regexes behaving as under LLVM.
pub fn canonicalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            ' ' | '\t' => {
                out.push(' ');
                while matches!(chars.peek(), Some(' ' | '\t')) {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

pub fn parse_check_file(text: &str, opts: &Options) -> Result<Vec<Directive>, String> {
    validate_prefixes(&opts.prefixes)?;
    let text = if opts.strict_whitespace {
        text.to_string()
    } else {
        canonicalize(text)
    };
    let mut directives = Vec::new();
    let mut used = vec![false; opts.prefixes.len()];
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let Some(found) = find_directive(line, &opts.prefixes) else {
            continue;
        };
        used[found.prefix] = true;
        let prefix = opts.prefixes[found.prefix].clone();
        let spelled = format!("{prefix}{}", found.kind.suffix());
        let text = found.rest.trim_matches([' ', '\t']).to_string();
        let pieces = if found.kind == Kind::Empty {
            if !text.is_empty() {
                return Err(format!(
                    "line {line_no}: found non-empty check string for empty check with prefix '{spelled}'"
                ));
            }
            Vec::new()
        } else if text.is_empty() {
            return Err(format!(
                "line {line_no}: found empty check string with prefix '{spelled}'"
            ));
        } else {
            pattern::parse(&text, line_no).map_err(|e| format!("line {line_no}: {e}"))?
        };
        if found.count == 0 {
            return Err(format!(
                "line {line_no}: invalid count in -COUNT specification on prefix '{prefix}'"
            ));
        }
        for _ in 0..found.count {
            directives.push(Directive {
                kind: found.kind,
                line: line_no,
                prefix: prefix.clone(),
                text: text.clone(),
                pieces: pieces.clone(),
            });
        }
    }
    if directives.is_empty() {
        // The crate's empty checker accepts any input, which would turn a
        // mistyped prefix into a silently passing test.
        let names: Vec<String> = opts.prefixes.iter().map(|p| format!("'{p}:'")).collect();
        return Err(format!(
            "no check strings found with prefix{} {}",
            if names.len() > 1 { "es" } else { "" },
            names.join(", ")
        ));
    }
    if !opts.allow_unused_prefixes
        && let Some(index) = used.iter().position(|u| !u)
    {
        return Err(format!(
            "no check strings found with prefix '{}:' (pass --allow-unused-prefixes to allow this)",
            opts.prefixes[index]
        ));
    }
    Ok(directives)
}

fn validate_prefixes(prefixes: &[String]) -> Result<(), String> {
    let mut seen = HashSet::new();
    for prefix in prefixes {
        let valid = prefix.starts_with(|c: char| c.is_ascii_alphabetic())
            && prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(format!(
                "invalid check prefix '{prefix}': it must start with a letter and contain only alphanumerics, '-' and '_'"
            ));
        }
        if COMMENT_PREFIXES.contains(&prefix.as_str()) {
            return Err(format!(
                "check prefix '{prefix}' is also a comment prefix; choose another"
            ));
        }
        if !seen.insert(prefix) {
            return Err(format!("duplicate check prefix '{prefix}'"));
        }
    }
    if prefixes.is_empty() {
        return Err("no check prefix given".to_string());
    }
    Ok(())
}

struct Found<'a> {
    prefix: usize,
    kind: Kind,
    count: usize,
    rest: &'a str,
}

/// LLVM FileCheck's default `--comment-prefixes`. `RUN` is one so that RUN
/// lines mentioning a check prefix are not taken as directives.
const COMMENT_PREFIXES: [&str; 2] = ["COM", "RUN"];

/// Finds the earliest directive on a line, as LLVM does; a comment prefix
/// before it makes the whole line a comment.
fn find_directive<'a>(line: &'a str, prefixes: &[String]) -> Option<Found<'a>> {
    const COMMENT: usize = usize::MAX;
    let mut best: Option<(usize, usize, Found<'a>)> = None;
    let candidates = prefixes
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.as_str()))
        .chain(COMMENT_PREFIXES.map(|c| (COMMENT, c)));
    for (index, keyword) in candidates {
        for (pos, _) in line.match_indices(keyword) {
            let word_before = line[..pos]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
            if word_before {
                continue;
            }
            let after = &line[pos + keyword.len()..];
            let parsed = if index == COMMENT {
                after.strip_prefix(':').map(|rest| (Kind::Check, 1, rest))
            } else {
                parse_suffix(after)
            };
            if let Some((kind, count, rest)) = parsed {
                let better = best.as_ref().is_none_or(|(best_pos, best_len, _)| {
                    pos < *best_pos || (pos == *best_pos && keyword.len() > *best_len)
                });
                if better {
                    let found = Found {
                        prefix: index,
                        kind,
                        count,
                        rest,
                    };
                    best = Some((pos, keyword.len(), found));
                }
                break;
            }
        }
    }
    best.map(|(_, _, found)| found)
        .filter(|found| found.prefix != COMMENT)
}

fn parse_suffix(after: &str) -> Option<(Kind, usize, &str)> {
    if let Some(rest) = after.strip_prefix(':') {
        return Some((Kind::Check, 1, rest));
    }
    let after = after.strip_prefix('-')?;
    let named = [
        ("NEXT:", Kind::Next),
        ("SAME:", Kind::Same),
        ("DAG:", Kind::Dag),
        ("NOT:", Kind::Not),
        ("LABEL:", Kind::Label),
        ("EMPTY:", Kind::Empty),
    ];
    for (name, kind) in named {
        if let Some(rest) = after.strip_prefix(name) {
            return Some((kind, 1, rest));
        }
    }
    let counted = after.strip_prefix("COUNT-")?;
    let digits = counted.len()
        - counted
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    let rest = counted[digits..].strip_prefix(':')?;
    Some((Kind::Check, counted[..digits].parse().ok()?, rest))
}

/// The directive as lines for `filecheck::CheckerBuilder::directive`, each
/// with a note for diagnostics.
pub fn crate_directives(
    directive: &Directive,
    strict_whitespace: bool,
) -> Vec<(String, &'static str)> {
    let mut rendered = pattern::crate_pattern(&directive.pieces, strict_whitespace);
    if directive.kind == Kind::Empty {
        // `nextln` searches the next line; `\A` pins the match to its start.
        rendered.push_str("$(=\\A$)");
    }
    let main = (
        format!("{}: {rendered}", directive.kind.crate_keyword()),
        "",
    );
    if directive.kind != Kind::Next {
        return vec![main];
    }
    // LLVM fails CHECK-NEXT when the first match after the previous one is
    // still on that line; the crate only searches the next line, so a `not:`
    // over the gap restores LLVM's verdict. `not:` cannot define variables.
    let anonymous: Vec<Piece> = directive
        .pieces
        .iter()
        .map(|piece| match piece {
            Piece::Def(_, regex) => Piece::Regex(regex.clone()),
            other => other.clone(),
        })
        .collect();
    let guard = format!(
        "not: {}",
        pattern::crate_pattern(&anonymous, strict_whitespace)
    );
    vec![(guard, " (must not match before the next line)"), main]
}

/// The regex used to locate a label in the input.
pub fn label_regex(label: &Directive, strict_whitespace: bool) -> Result<Regex, String> {
    let regex = pattern::plain_regex(&label.pieces, strict_whitespace).ok_or_else(|| {
        format!(
            "{}: CHECK-LABEL patterns cannot define or use variables",
            label.describe()
        )
    })?;
    RegexBuilder::new(&regex)
        .multi_line(true)
        .build()
        .map_err(|e| format!("{}: {e}", label.describe()))
}

/// Groups directives by label and rejects what the crate would mis-check.
pub fn build_plan(directives: Vec<Directive>) -> Result<Plan, String> {
    let mut prologue = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    for directive in directives {
        if directive.kind == Kind::Label {
            blocks.push(Block {
                label: directive,
                body: Vec::new(),
            });
        } else if let Some(block) = blocks.last_mut() {
            block.body.push(directive);
        } else {
            prologue.push(directive);
        }
    }
    check_scope(&prologue, false)?;
    for block in &blocks {
        if block
            .label
            .pieces
            .iter()
            .any(|p| matches!(p, Piece::Def(..) | Piece::Use(..)))
        {
            return Err(format!(
                "{}: CHECK-LABEL patterns cannot define or use variables",
                block.label.describe()
            ));
        }
        check_scope(&block.body, true)?;
    }
    Ok(Plan { prologue, blocks })
}

fn check_scope(directives: &[Directive], after_label: bool) -> Result<(), String> {
    let mut matched_before = after_label;
    let mut defined: HashSet<&str> = HashSet::new();
    let mut dag_group: Vec<&str> = Vec::new();
    for directive in directives {
        let here = directive.describe();
        match directive.kind {
            Kind::Next | Kind::Same | Kind::Empty if !matched_before => {
                return Err(format!(
                    "{here}: found '{}{}' without a previous '{}:' line",
                    directive.prefix,
                    directive.kind.suffix().trim_end_matches(':'),
                    directive.prefix
                ));
            }
            Kind::Check | Kind::Next | Kind::Same | Kind::Empty => matched_before = true,
            _ => {}
        }
        if directive.kind == Kind::Dag {
            // The crate lets unordered matches overlap, so two identical
            // CHECK-DAG lines would both match one occurrence.
            if dag_group.contains(&directive.text.as_str()) {
                return Err(format!(
                    "{here}: duplicate CHECK-DAG pattern in one group; the filecheck crate would match both to the same text, use CHECK lines instead"
                ));
            }
            dag_group.push(&directive.text);
        } else {
            dag_group.clear();
        }
        let mut line_defs: Vec<&str> = Vec::new();
        for piece in &directive.pieces {
            match piece {
                Piece::Def(name, _) => {
                    if directive.kind == Kind::Not {
                        return Err(format!("{here}: CHECK-NOT cannot define variable '{name}'"));
                    }
                    if line_defs.contains(&name.as_str()) {
                        return Err(format!("{here}: variable '{name}' is defined twice"));
                    }
                    line_defs.push(name);
                }
                Piece::Use(name) if line_defs.contains(&name.as_str()) => {
                    return Err(format!(
                        "{here}: variable '{name}' is defined and used on the same line, which the filecheck crate refuses; split the line with CHECK-SAME"
                    ));
                }
                Piece::Use(name) if !defined.contains(name.as_str()) => {
                    return Err(format!(
                        "{here}: use of undefined variable '{name}' (variables are scoped to their CHECK-LABEL block)"
                    ));
                }
                _ => {}
            }
        }
        defined.extend(line_defs);
    }
    Ok(())
}
