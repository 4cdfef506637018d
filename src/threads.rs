//! The rayon pool the kernels run in, sized by `--threads`.

use anyhow::{Result, bail};

/// `requested`, or every core when not given.
pub fn thread_count(requested: Option<usize>) -> Result<usize> {
    match requested {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Runs `f` inside a pool of exactly the requested size.
pub fn with_threads<T: Send>(requested: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(thread_count(requested)?)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start worker threads: {e}"))?;
    Ok(pool.install(f))
}
