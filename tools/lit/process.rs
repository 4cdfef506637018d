//! Runs external tools with redirections, pipes and a timeout.

use crate::exec::{Context, EnvChanges, Status};
use crate::shell::Redirect;
use crate::tools;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{self, Child, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Where a command's stdout (index 0) or stderr (index 1) goes.
#[derive(Clone, Copy)]
pub enum Sink {
    Stdout,
    Stderr,
    File(usize),
}

/// A command's standard streams after its redirections.
pub struct Streams {
    pub stdin: Option<PathBuf>,
    pub sinks: [Sink; 2],
    pub files: Vec<File>,
}

impl Streams {
    /// Applies redirections left to right, as a shell does, so `>f 2>&1`
    /// and `2>&1 >f` differ.
    pub fn open(redirects: &[Redirect], cwd: &Path) -> io::Result<Streams> {
        let mut streams = Streams {
            stdin: None,
            sinks: [Sink::Stdout, Sink::Stderr],
            files: Vec::new(),
        };
        for redirect in redirects {
            match redirect {
                Redirect::Stdin(path) => streams.stdin = Some(cwd.join(path)),
                Redirect::ToFile { fd, path, append } => {
                    let file = OpenOptions::new()
                        .write(true)
                        .create(true)
                        .append(*append)
                        .truncate(!append)
                        .open(cwd.join(path))
                        .map_err(|e| {
                            io::Error::new(e.kind(), format!("cannot open {path}: {e}"))
                        })?;
                    streams.files.push(file);
                    streams.sinks[usize::from(*fd) - 1] = Sink::File(streams.files.len() - 1);
                }
                Redirect::Dup { fd, to } => {
                    streams.sinks[usize::from(*fd) - 1] = streams.sinks[usize::from(*to) - 1];
                }
            }
        }
        Ok(streams)
    }
}

pub fn run(
    argv: &[String],
    env: &EnvChanges,
    input: Option<Vec<u8>>,
    streams: &Streams,
    ctx: &Context,
) -> (Status, Vec<u8>, Vec<u8>) {
    match spawn_and_collect(argv, env, input, streams, ctx) {
        Ok(result) => result,
        Err(e) => (
            Status::NotRun(format!("cannot run '{}': {e}", argv[0])),
            Vec::new(),
            Vec::new(),
        ),
    }
}

fn spawn_and_collect(
    argv: &[String],
    env: &EnvChanges,
    input: Option<Vec<u8>>,
    streams: &Streams,
    ctx: &Context,
) -> io::Result<(Status, Vec<u8>, Vec<u8>)> {
    let (stdout_reader, stdout_writer) = io::pipe()?;
    let (stderr_reader, stderr_writer) = io::pipe()?;
    let stdio = |sink: Sink| -> io::Result<Stdio> {
        Ok(match sink {
            Sink::Stdout => stdout_writer.try_clone()?.into(),
            Sink::Stderr => stderr_writer.try_clone()?.into(),
            Sink::File(index) => streams.files[index].try_clone()?.into(),
        })
    };
    let mut command = process::Command::new(tools::resolve(&argv[0]));
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command
        .args(&argv[1..])
        .current_dir(ctx.cwd)
        .stdout(stdio(streams.sinks[0])?)
        .stderr(stdio(streams.sinks[1])?);
    let feed = match (&streams.stdin, input) {
        (Some(path), _) => {
            let file = File::open(path).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()))
            })?;
            command.stdin(file);
            None
        }
        (None, Some(bytes)) => {
            command.stdin(Stdio::piped());
            Some(bytes)
        }
        (None, None) => {
            command.stdin(Stdio::null());
            None
        }
    };
    let spawned = command.spawn();
    // Every write end must be closed here, or the readers never see EOF.
    drop(command);
    drop((stdout_writer, stderr_writer));
    let mut child = spawned?;
    let feeder = feed.zip(child.stdin.take()).map(|(bytes, mut pipe)| {
        // A child that exits without reading its input is not an error.
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let stdout = thread::spawn(move || read_all(stdout_reader));
    let stderr = thread::spawn(move || read_all(stderr_reader));
    let status = wait_with_timeout(&mut child, ctx.timeout)?;
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let stdout = stdout.join().expect("reader thread panicked")?;
    let stderr = stderr.join().expect("reader thread panicked")?;
    let status = match status {
        None => Status::TimedOut(ctx.timeout),
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Status::Exit(code),
            (None, Some(signal)) => Status::Signal(signal),
            (None, None) => Status::NotRun(format!("unknown exit status {status}")),
        },
    };
    Ok((status, stdout, stderr))
}

fn read_all(mut reader: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `None` if the child had to be killed.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            child.wait()?;
            return Ok(None);
        }
        thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(50));
    }
}
