use crate::run_line::{RunLine, Substitutions, extract_run_lines, substitute};

#[test]
fn run_lines_and_continuations() {
    let text = "// RUN: a \\\n// RUN:   | b\nx\n# RUN: c\n// CHECK: RUN: d\n";
    let runs = extract_run_lines(text).unwrap();
    assert_eq!(
        runs,
        [
            RunLine {
                line: 1,
                command: "a    | b".to_string()
            },
            RunLine {
                line: 4,
                command: "c".to_string()
            },
            // Like lit, any `RUN:` starts a command, even after another directive.
            RunLine {
                line: 5,
                command: "d".to_string()
            },
        ]
    );
    assert!(extract_run_lines("// RUN: a \\\n").is_err());
}

#[test]
fn substitutions() {
    let subst = Substitutions {
        source: "/t/x.mlir".to_string(),
        source_dir: "/t".to_string(),
        temp: "/o/x.mlir.tmp".to_string(),
        temp_dir: "/o".to_string(),
    };
    assert_eq!(
        substitute("a %s %S/in %t.out %T %p 100%% %q %", &subst),
        "a /t/x.mlir /t/in /o/x.mlir.tmp.out /o /t 100% %q %"
    );
    // Substituted text is not expanded again.
    assert_eq!(substitute("%%s", &subst), "%s");
}
