use crate::shell::{Command, Connector, List, Pipeline, Redirect, parse};

fn argv(words: &[&str]) -> Command {
    Command {
        argv: words.iter().map(|w| w.to_string()).collect(),
        redirects: Vec::new(),
    }
}

fn single(commands: Vec<Command>) -> List {
    List {
        first: Pipeline { commands },
        rest: Vec::new(),
    }
}

#[test]
fn words_and_quotes() {
    assert_eq!(
        parse(r#"a 'b c' "d \"e\" \x" f\ g ''"#).unwrap(),
        single(vec![argv(&["a", "b c", r#"d "e" \x"#, "f g", ""])])
    );
}

#[test]
fn pipes_and_connectors() {
    let list = parse("a | b && c || d ; e").unwrap();
    assert_eq!(list.first.commands, vec![argv(&["a"]), argv(&["b"])]);
    let connectors: Vec<Connector> = list.rest.iter().map(|(c, _)| *c).collect();
    assert_eq!(connectors, [Connector::And, Connector::Or, Connector::Then]);
    assert_eq!(parse("a|b").unwrap().first.commands.len(), 2);
    assert_eq!(
        parse("echo 'a|b'").unwrap(),
        single(vec![argv(&["echo", "a|b"])])
    );
}

#[test]
fn redirections() {
    let list = parse("cmd <in >out 2>err 2>&1 >>app 2>> e2 >&2").unwrap();
    let redirects = &list.first.commands[0].redirects;
    let file = |fd, path: &str, append| Redirect::ToFile {
        fd,
        path: path.to_string(),
        append,
    };
    assert_eq!(
        redirects,
        &[
            Redirect::Stdin("in".to_string()),
            file(1, "out", false),
            file(2, "err", false),
            Redirect::Dup { fd: 2, to: 1 },
            file(1, "app", true),
            file(2, "e2", true),
            Redirect::Dup { fd: 1, to: 2 },
        ]
    );
    assert_eq!(list.first.commands[0].argv, ["cmd"]);
    // A quoted or embedded digit is an argument, not a descriptor.
    assert_eq!(
        parse("echo '2'>f").unwrap().first.commands[0].argv,
        ["echo", "2"]
    );
    assert_eq!(
        parse("echo a2>f").unwrap().first.commands[0].argv,
        ["echo", "a2"]
    );
}

#[test]
fn errors() {
    assert!(parse("a |").is_err());
    assert!(parse("| a").is_err());
    assert!(parse("a && && b").is_err());
    assert!(parse("a >").is_err());
    assert!(parse("a 'open").is_err());
    assert!(parse("a & b").is_err());
}
