//! Tests that translated LLVM FileCheck directives keep LLVM's meaning when
//! run by the `filecheck` crate.

use crate::filecheck_run::{check, parse_args};

fn filecheck_with(options: &[&str], checks: &str, input: &str) -> Result<(), String> {
    let mut args: Vec<String> = options.iter().map(|s| s.to_string()).collect();
    args.push("checks.txt".to_string());
    let invocation = parse_args(&args)?;
    check(checks, input, &invocation)
}

#[track_caller]
fn passes(checks: &str, input: &str) {
    if let Err(e) = filecheck_with(&[], checks, input) {
        panic!("expected a match, got:\n{e}");
    }
}

#[track_caller]
fn fails(checks: &str, input: &str) -> String {
    filecheck_with(&[], checks, input).expect_err("expected a mismatch")
}

#[track_caller]
fn refused(checks: &str, needle: &str) {
    let error = fails(checks, "anything\n");
    assert!(error.contains(needle), "expected '{needle}' in:\n{error}");
}

#[test]
fn whitespace_runs_fold() {
    passes("CHECK: a b c", "x  a \t b\tc y\n");
    passes("CHECK: a    b", "a b\n");
    fails("CHECK: a b", "ab\n");
}

#[test]
fn strict_whitespace_matches_exactly() {
    assert!(filecheck_with(&["--strict-whitespace"], "CHECK: a b", "a  b\n").is_err());
    assert!(filecheck_with(&["--strict-whitespace"], "CHECK: a  b", "a  b\n").is_ok());
}

#[test]
fn literals_match_substrings() {
    // The crate alone would anchor `pha` at word boundaries.
    passes("CHECK: pha be", "alpha beta\n");
    passes("CHECK: 42", "x = 1425\n");
}

#[test]
fn regex_metacharacters_in_literals_are_literal() {
    let input = "f(x) {y} [z] $w .* + ? | ^ # & - ~\n";
    passes("CHECK: f(x) {y} [z] $w .* + ? | ^ # & - ~", input);
    fails("CHECK: f.x", "f(x)\n");
}

#[test]
fn regexes() {
    passes("CHECK: a{{[0-9]+}}b", "a123b\n");
    fails("CHECK: a{{[0-9]+}}b", "a12xb\n");
    passes("CHECK: {{^}}foo{{$}}", "xfoo\nfoo\n");
    fails("CHECK: foo{{$}}", "foobar\n");
    passes("CHECK: x{{a|b}}y", "xby\n");
    passes("CHECK: {{[^}]+}}!", "abc!\n");
    passes("CHECK: {{a{2}b}}", "aab\n");
    // Like LLVM, the first `}}` ends the regex.
    refused("CHECK: {{a{2}}}b", "invalid regex 'a{2'");
}

#[test]
fn regexes_the_crate_would_misparse_are_refused() {
    refused("CHECK: {{a)}}", "invalid regex");
    refused("CHECK: {{[[:alpha:])]}}", "would read as its end");
    refused("CHECK: {{(}}", "invalid regex");
    refused("CHECK: {{abc", "no end '}}'");
}

#[test]
fn variables_define_and_use() {
    let checks = "CHECK: x = [[V:[0-9]+]]\nCHECK: y = [[V]]";
    passes(checks, "x = 42\ny = 42\n");
    fails(checks, "x = 42\ny = 43\n");
    passes(
        "CHECK: %[[ARG:[a-z]+]] :\nCHECK-SAME: [[ARG]]",
        "%abc : abc\n",
    );
}

#[test]
fn variable_misuse_is_reported() {
    refused("CHECK: [[V:a]] [[V]]", "line 1");
    refused("CHECK: [[V:a]] [[V]]", "same line");
    refused(
        "CHECK: a\nCHECK: [[NOPE]]",
        "line 2: CHECK: [[NOPE]]: use of undefined variable 'NOPE'",
    );
    refused("CHECK: a\nCHECK-NOT: [[V:b]]", "CHECK-NOT cannot define");
    refused("CHECK: [[9V]]", "invalid variable name");
    refused("CHECK: [[$G:x]]", "global variable");
}

#[test]
fn line_pseudo_variable() {
    passes(
        "\n\nCHECK: line [[@LINE]] and [[#@LINE+1]]",
        "line 3 and 4\n",
    );
}

#[test]
fn empty_checker_is_refused() {
    assert!(
        fails("no directives here", "text\n")
            .contains("no check strings found with prefix 'CHECK:'")
    );
    let error = filecheck_with(&["--check-prefix=FOO"], "CHECK: text", "text\n").unwrap_err();
    assert!(error.contains("'FOO:'"), "{error}");
}

#[test]
fn empty_patterns_are_refused() {
    refused("CHECK:", "found empty check string with prefix 'CHECK:'");
    refused("CHECK: a\nCHECK-NEXT:   ", "line 2");
    refused("CHECK: a\nCHECK-EMPTY: b", "non-empty check string");
}

#[test]
fn empty_input_needs_allow_empty() {
    assert!(fails("CHECK-NOT: x", "").contains("empty"));
    assert!(filecheck_with(&["--allow-empty"], "CHECK-NOT: x", "").is_ok());
}

#[test]
fn next_same_empty() {
    passes("CHECK: a\nCHECK-NEXT: b\nCHECK-SAME: c", "a\nb c\n");
    fails("CHECK: a\nCHECK-NEXT: b", "a\nx\nb\n");
    // As in LLVM, a match still on the previous line is an error even when
    // the next line matches too.
    fails("CHECK: a\nCHECK-NEXT: b", "a b\nb\n");
    passes(
        "CHECK: [[V:a]]\nCHECK-NEXT: [[V]] [[W:c]]\nCHECK-NEXT: [[W]]",
        "a\na c\nc\n",
    );
    fails("CHECK: a\nCHECK-SAME: b", "a\nb\n");
    passes("CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b", "a\n\nb\n");
    fails("CHECK: a\nCHECK-EMPTY:", "a\nb\n");
    refused("CHECK-NEXT: a", "without a previous 'CHECK:' line");
}

#[test]
fn check_not_between_checks() {
    let checks = "CHECK: begin\nCHECK-NOT: bad\nCHECK: end";
    passes(checks, "begin\nok\nend\nbad\n");
    fails(checks, "begin\nbad\nend\n");
    passes("CHECK-NOT: bad\nCHECK: x", "x\nbad\n");
    fails("CHECK: x\nCHECK-NOT: bad", "x\nbad\n");
}

#[test]
fn dag_matches_in_any_order() {
    let checks = "CHECK: start\nCHECK-DAG: one\nCHECK-DAG: two\nCHECK: end";
    passes(checks, "start\ntwo\none\nend\n");
    fails(checks, "start\ntwo\nend\none\n");
}

#[test]
fn duplicate_dag_lines_are_refused() {
    refused("CHECK-DAG: x\nCHECK-DAG: y\nCHECK-DAG: x", "line 3");
    refused("CHECK-DAG: x\nCHECK-DAG: x", "duplicate CHECK-DAG");
    // Separate groups may repeat a pattern.
    passes("CHECK-DAG: x\nCHECK: y\nCHECK-DAG: x", "x\ny\nx\n");
}

#[test]
fn labels_split_the_input() {
    let input = "func @a\n  op.one\nfunc @b\n  op.two\n";
    passes(
        "CHECK-LABEL: func @a\nCHECK: op.one\nCHECK-LABEL: func @b\nCHECK: op.two",
        input,
    );
    // op.one is only in block 1, so block 2 must not find it.
    let error = fails(
        "CHECK-LABEL: func @a\nCHECK-LABEL: func @b\nCHECK: op.one",
        input,
    );
    assert!(
        error.contains("block of CHECK-LABEL at check line 2"),
        "{error}"
    );
    // And block 1 ends where block 2's label matches.
    fails(
        "CHECK-LABEL: func @a\nCHECK: op.two\nCHECK-LABEL: func @b",
        input,
    );
    // Directives before the first label only see the text before it.
    fails("CHECK: op.two\nCHECK-LABEL: func @b", input);
    passes("CHECK: op.one\nCHECK-LABEL: func @b", input);
    passes("CHECK-NOT: op.two\nCHECK-LABEL: func @b", input);
    passes("CHECK-LABEL: func @{{[a-z]}}\nCHECK-NEXT: op.one", input);
}

#[test]
fn labels_are_found_in_order() {
    let error = fails(
        "CHECK-LABEL: func @b\nCHECK-LABEL: func @a",
        "func @a\nfunc @b\n",
    );
    assert!(
        error.contains("line 2: CHECK-LABEL: func @a: label not found"),
        "{error}"
    );
}

#[test]
fn labels_scope_variables() {
    let input = "func @a\n  %0 = x\nfunc @b\n  use %0\n";
    let checks = "CHECK-LABEL: @a\nCHECK: [[V:%[0-9]+]] = x\nCHECK-LABEL: @b\nCHECK: use [[V]]";
    assert!(fails(checks, input).contains("use of undefined variable 'V'"));
    refused("CHECK-LABEL: [[V:a]]", "cannot define or use variables");
}

#[test]
fn prefixes() {
    let checks = "A: one\nB: two\nCHECK: nothing-like-this";
    assert!(filecheck_with(&["--check-prefixes=A,B"], checks, "one two\n").is_ok());
    assert!(
        filecheck_with(
            &["--check-prefix", "A", "-check-prefix=B"],
            checks,
            "one two\n"
        )
        .is_ok()
    );
    let error = filecheck_with(&["--check-prefixes=A,C"], checks, "one\n").unwrap_err();
    assert!(error.contains("'C:'"), "{error}");
    assert!(
        filecheck_with(
            &["--check-prefixes=A,C", "--allow-unused-prefixes"],
            checks,
            "one\n"
        )
        .is_ok()
    );
    // A prefix inside a longer word is not a directive.
    passes("XCHECK: nope\nCHECK-X: nope\nCHECK: yes", "yes\n");
}

#[test]
fn comments_and_counts() {
    passes("COM: CHECK: not-in-input\nCHECK: yes", "yes\n");
    passes("RUN: echo CHECK: not-in-input\nCHECK: yes", "yes\n");
    let error = filecheck_with(&["--check-prefix=RUN"], "RUN: x", "x\n").unwrap_err();
    assert!(error.contains("comment prefix"), "{error}");
    passes("CHECK-COUNT-2: x\nCHECK-NOT: x", "x\nx\n");
    fails("CHECK-COUNT-3: x", "x\nx\n");
}

#[test]
fn options() {
    assert!(parse_args(&["--bogus".to_string(), "f".to_string()]).is_err());
    assert!(parse_args(&[]).is_err());
    let args: Vec<String> = [
        "f",
        "--enable-var-scope",
        "--input-file=in",
        "--dump-input=never",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let invocation = parse_args(&args).unwrap();
    assert_eq!(invocation.check_file, "f");
    assert_eq!(invocation.input_file.as_deref(), Some("in"));
    assert_eq!(invocation.options.prefixes, ["CHECK"]);
}

#[test]
fn failure_explains_the_match() {
    let error = fails("CHECK: one\nCHECK: three", "one\ntwo\n");
    assert!(error.contains("#1 line 2: CHECK: three"), "{error}");
    assert!(error.contains("Missed #1"), "{error}");
    // The crate's explainer cannot show a multi-byte last character.
    let error = fails("CHECK: zzz", "été");
    assert!(error.contains("> été"), "{error}");
}
