//! The rayon pool the kernels run in, sized by `--threads` (or a binding's `threads`).

use anyhow::{Result, bail};

/// `requested`, or every core when not given.
pub fn thread_count(requested: Option<usize>) -> Result<usize> {
    match requested {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// A pool of exactly the requested size, kept by callers that run a plan many times.
pub fn worker_pool(requested: Option<usize>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(thread_count(requested)?)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start worker threads: {e}"))
}

/// Runs `f` inside a pool of exactly the requested size.
pub fn with_threads<T: Send>(requested: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    Ok(worker_pool(requested)?.install(f))
}
