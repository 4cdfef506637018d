//! Parses one RUN line into command lists, pipelines and redirections.
//!
//! Only the subset lit's internal shell offers is accepted: quoting,
//! `|`, `&&`, `||`, `;`, `<`, `>`, `>>`, `2>`, `2>>`, `2>&1` and `>&2`.
//! No variable expansion or globbing, matching lit.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redirect {
    /// `< path`
    Stdin(String),
    /// `> path`, `>> path`, `2> path`, `2>> path`
    ToFile { fd: u8, path: String, append: bool },
    /// `2>&1` is `Dup { fd: 2, to: 1 }`.
    Dup { fd: u8, to: u8 },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    pub argv: Vec<String>,
    pub redirects: Vec<Redirect>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub commands: Vec<Command>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connector {
    And,
    Or,
    Then,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List {
    pub first: Pipeline,
    pub rest: Vec<(Connector, Pipeline)>,
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Pipe,
    Connector(Connector),
    Input,
    Output { fd: u8, append: bool },
    Dup { fd: u8, to: u8 },
}

pub fn parse(line: &str) -> Result<List, String> {
    let mut tokens = tokenize(line)?.into_iter().peekable();
    let mut pipelines = vec![(Connector::Then, Pipeline { commands: vec![] })];
    let mut command = Command::default();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word(word) => command.argv.push(word),
            Token::Input | Token::Output { .. } => {
                let Some(Token::Word(path)) = tokens.next() else {
                    return Err(format!("redirection without a file name in: {line}"));
                };
                command.redirects.push(match token {
                    Token::Output { fd, append } => Redirect::ToFile { fd, path, append },
                    _ => Redirect::Stdin(path),
                });
            }
            Token::Dup { fd, to } => command.redirects.push(Redirect::Dup { fd, to }),
            Token::Pipe | Token::Connector(_) => {
                if command.argv.is_empty() {
                    return Err(format!("empty command in: {line}"));
                }
                let pipeline = &mut pipelines.last_mut().expect("never empty").1;
                pipeline.commands.push(std::mem::take(&mut command));
                if let Token::Connector(connector) = token {
                    pipelines.push((connector, Pipeline { commands: vec![] }));
                }
            }
        }
    }
    if command.argv.is_empty() {
        return Err(format!("empty command in: {line}"));
    }
    pipelines
        .last_mut()
        .expect("never empty")
        .1
        .commands
        .push(command);
    let mut pipelines = pipelines.into_iter();
    let (_, first) = pipelines.next().expect("never empty");
    Ok(List {
        first,
        rest: pipelines.collect(),
    })
}

fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    // Distinguishes `''` (an empty argument) and `"2">` from `2>`.
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    let flush = |tokens: &mut Vec<Token>, word: &mut String, quoted: &mut bool| {
        if !word.is_empty() || *quoted {
            tokens.push(Token::Word(std::mem::take(word)));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut tokens, &mut word, &mut quoted),
            '\'' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated ' quote in: {line}")),
                    }
                }
            }
            '"' => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.extend(chars.next());
                        }
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" quote in: {line}")),
                    }
                }
            }
            '\\' => {
                quoted = true;
                word.push(chars.next().unwrap_or('\\'));
            }
            '|' | '&' | ';' | '<' => {
                flush(&mut tokens, &mut word, &mut quoted);
                let doubled = chars.next_if_eq(&c).is_some();
                tokens.push(match (c, doubled) {
                    ('|', false) => Token::Pipe,
                    ('|', true) => Token::Connector(Connector::Or),
                    ('&', true) => Token::Connector(Connector::And),
                    (';', false) => Token::Connector(Connector::Then),
                    ('<', false) => Token::Input,
                    _ => return Err(format!("unsupported shell operator near '{c}' in: {line}")),
                });
            }
            '>' => {
                let fd = match word.as_str() {
                    "1" | "2" if !quoted => {
                        let fd = if word == "1" { 1 } else { 2 };
                        word.clear();
                        fd
                    }
                    _ => {
                        flush(&mut tokens, &mut word, &mut quoted);
                        1
                    }
                };
                if chars.next_if_eq(&'&').is_some() {
                    let to = match chars.next() {
                        Some('1') => 1,
                        Some('2') => 2,
                        _ => return Err(format!("unsupported '>&' redirection in: {line}")),
                    };
                    tokens.push(Token::Dup { fd, to });
                } else {
                    let append = chars.next_if_eq(&'>').is_some();
                    tokens.push(Token::Output { fd, append });
                }
            }
            _ => word.push(c),
        }
    }
    flush(&mut tokens, &mut word, &mut quoted);
    Ok(tokens)
}
