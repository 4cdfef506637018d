//! LLVM FileCheck pattern syntax (`{{re}}`, `[[V:re]]`, `[[V]]`, literal
//! text) and its rendering as `filecheck` crate patterns and plain regexes.

use regex::Regex;
use std::fmt::Write;

/// One part of an LLVM pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Literal(String),
    /// `{{re}}`
    Regex(String),
    /// `[[NAME:re]]`
    Def(String, String),
    /// `[[NAME]]`
    Use(String),
}

pub fn parse(pattern: &str, line_no: usize) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        let piece = if let Some(after) = rest.strip_prefix("{{") {
            let end = after
                .find("}}")
                .ok_or("found start of regex string with no end '}}'")?;
            check_user_regex(&after[..end])?;
            rest = &after[end + 2..];
            Piece::Regex(after[..end].to_string())
        } else if let Some(after) = rest.strip_prefix("[[") {
            let end = variable_end(after)
                .ok_or("invalid variable reference: no matching ']]' (write a literal '[[' as '{{\\[\\[}}')")?;
            rest = &after[end + 2..];
            parse_variable(&after[..end], line_no)?
        } else {
            let end = [rest.find("{{"), rest.find("[[")]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(rest.len());
            literal.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        };
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut literal)));
        }
        pieces.push(piece);
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    // `[[@LINE]]` turns into literal text; merge it with its neighbours so
    // whitespace folding sees one literal.
    let mut merged: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (merged.last_mut(), piece) {
            (Some(Piece::Literal(prev)), Piece::Literal(text)) => prev.push_str(&text),
            (_, piece) => merged.push(piece),
        }
    }
    Ok(merged)
}

/// Offset of the `]]` closing a `[[...]]`, skipping nested `[...]` classes
/// and escapes the way LLVM does.
fn variable_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if depth == 0 && bytes[i..].starts_with(b"]]") {
            return Some(i);
        }
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        i += 1;
    }
    None
}

fn parse_variable(body: &str, line_no: usize) -> Result<Piece, String> {
    let numeric = body.strip_prefix('#').map(str::trim);
    if let Some(expr) = numeric.or(Some(body)).and_then(|b| b.strip_prefix("@LINE")) {
        return line_expression(expr, line_no).map(Piece::Literal);
    }
    if numeric.is_some() {
        return Err(format!(
            "numeric substitution '[[{body}]]' is not supported by this runner (only @LINE)"
        ));
    }
    if body.starts_with('$') {
        return Err(format!(
            "global variable '[[{body}]]' is not supported by this runner; variables are scoped to their CHECK-LABEL block"
        ));
    }
    let (name, regex) = match body.split_once(':') {
        Some((name, regex)) => (name, Some(regex)),
        None => (body, None),
    };
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("invalid variable name '{name}' in '[[{body}]]'"));
    }
    match regex {
        Some(regex) => {
            check_user_regex(regex)?;
            Ok(Piece::Def(name.to_string(), regex.to_string()))
        }
        None => Ok(Piece::Use(name.to_string())),
    }
}

fn line_expression(expr: &str, line_no: usize) -> Result<String, String> {
    let expr: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let offset: i64 = match expr.as_bytes().first() {
        None => 0,
        Some(b'+') => expr[1..]
            .parse()
            .map_err(|_| format!("bad @LINE offset '{expr}'"))?,
        Some(b'-') => -expr[1..]
            .parse::<i64>()
            .map_err(|_| format!("bad @LINE offset '{expr}'"))?,
        Some(_) => return Err(format!("bad @LINE expression '@LINE{expr}'")),
    };
    Ok((line_no as i64 + offset).to_string())
}

/// Refuses regexes that would not survive inside the crate's `$(=...)`.
fn check_user_regex(regex: &str) -> Result<(), String> {
    let wrapped = format!("(?:{regex})");
    Regex::new(&wrapped).map_err(|e| format!("invalid regex '{regex}': {e}"))?;
    if crate_regex_extent(&wrapped) != wrapped.len() {
        return Err(format!(
            "regex '{regex}' has an unescaped '}}' or ')' that the filecheck crate would read as its end; escape it"
        ));
    }
    Ok(())
}

/// Length of the prefix of `regex` that the filecheck crate takes as the body
/// of `$(=...)`: it ends at the first `)` or `}` that is not escaped, not in a
/// `[...]` class or `{...}` repetition, and not closing an earlier `(`.
fn crate_regex_extent(regex: &str) -> usize {
    enum State {
        Normal,
        Repetition,
        ClassStart,
        ClassNegated,
        Class,
    }
    let mut state = State::Normal;
    let mut depth = 0usize;
    let mut chars = regex.char_indices();
    while let Some((index, c)) = chars.next() {
        if c == '\\' {
            chars.next();
            continue;
        }
        state = match state {
            State::Normal => match c {
                '[' => State::ClassStart,
                '{' => State::Repetition,
                '(' => {
                    depth += 1;
                    State::Normal
                }
                ')' if depth > 0 => {
                    depth -= 1;
                    State::Normal
                }
                ')' | '}' => return index,
                _ => State::Normal,
            },
            State::Repetition if c == '}' => State::Normal,
            State::Repetition => State::Repetition,
            State::ClassStart if c == '^' => State::ClassNegated,
            State::ClassStart | State::ClassNegated => State::Class,
            State::Class if c == ']' => State::Normal,
            State::Class => State::Class,
        };
    }
    regex.len()
}

/// Regex for literal text: escaped, with blank runs matching any blank run.
fn literal_regex(text: &str, strict_whitespace: bool) -> String {
    if strict_whitespace {
        return regex::escape(text);
    }
    let mut out = String::new();
    for (i, word) in text.split([' ', '\t']).enumerate() {
        if i > 0 && !out.ends_with("[ \\t]+") {
            out.push_str("[ \\t]+");
        }
        out.push_str(&regex::escape(word));
    }
    out
}

/// The pattern in the crate's syntax.
///
/// Every piece becomes a `$(...)` group, so the crate sees no plain text: it
/// then adds no `\b` anchors, and user regexes are wrapped in `(?:...)` so a
/// leading `$` (as in `{{$}}`) is not read as a variable reference.
pub fn crate_pattern(pieces: &[Piece], strict_whitespace: bool) -> String {
    let mut pattern = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => {
                write!(pattern, "$(={})", literal_regex(text, strict_whitespace))
            }
            Piece::Regex(regex) => write!(pattern, "$(=(?:{regex}))"),
            Piece::Def(name, regex) => write!(pattern, "$({name}=(?:{regex}))"),
            Piece::Use(name) => write!(pattern, "$({name})"),
        }
        .expect("writing to a String cannot fail");
    }
    pattern
}

/// The pattern as one regex, or `None` if it defines or uses variables.
pub fn plain_regex(pieces: &[Piece], strict_whitespace: bool) -> Option<String> {
    let mut regex = String::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => regex.push_str(&literal_regex(text, strict_whitespace)),
            Piece::Regex(inner) => write!(regex, "(?:{inner})").expect("String write"),
            Piece::Def(..) | Piece::Use(..) => return None,
        }
    }
    Some(regex)
}
