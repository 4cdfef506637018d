//! The rayon pool the kernels run in, sized by `--threads` (or a binding's `threads`).

use std::sync::atomic::{AtomicBool, Ordering};

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

/// Polls for work that a spinner makes between offers of its core to other threads.
const SPINS_BEFORE_YIELDING: u32 = 256;

/// Runs `f` on this thread while the pool's other workers wait for its parallel work
/// spinning instead of asleep. A run is a sequence of steps, most of them serial; a
/// rayon worker idle for a few microseconds goes to sleep, and waking it for the next
/// parallel kernel took tens of microseconds on a virtual machine (a 3x3 convolution
/// of 0.2 ms at 2 threads varied by 25 % from one run to the next). ONNX Runtime's
/// pool spins between kernels for the same reason. The spinners take the pool's work
/// as it comes (`rayon::yield_now` runs a pending job), so they are the workers.
pub fn with_workers_awake<T>(f: impl FnOnce() -> T) -> T {
    let Some(me) = rayon::current_thread_index() else {
        return f();
    };
    let others = rayon::current_num_threads().saturating_sub(1);
    if others == 0 {
        return f();
    }
    let done = AtomicBool::new(false);
    rayon::in_place_scope(|scope| {
        for _ in 0..others {
            scope.spawn(|_| {
                // This thread may pop a spinner itself while it waits inside `f`;
                // spinning there would wait for `f`, which waits below it.
                if rayon::current_thread_index() == Some(me) {
                    return;
                }
                let mut idle = 0u32;
                while !done.load(Ordering::Acquire) {
                    match rayon::yield_now() {
                        Some(rayon::Yield::Executed) => idle = 0,
                        // A while without work: offer the core to whatever else wants
                        // it (a system busier than its cores would otherwise lose a
                        // core to the spinner), and come straight back when none does.
                        Some(rayon::Yield::Idle) if idle >= SPINS_BEFORE_YIELDING => {
                            std::thread::yield_now()
                        }
                        Some(rayon::Yield::Idle) => {
                            idle += 1;
                            std::hint::spin_loop()
                        }
                        None => return,
                    }
                }
            });
        }
        let result = f();
        done.store(true, Ordering::Release);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn work_inside_an_awake_run_finishes_at_every_pool_size() {
        for threads in 1..=4 {
            let sum = with_threads(Some(threads), || {
                with_workers_awake(|| {
                    (0..50)
                        .map(|round| {
                            (0..10_000u64)
                                .into_par_iter()
                                .map(|i| i * round)
                                .sum::<u64>()
                        })
                        .sum::<u64>()
                })
            })
            .unwrap();
            assert_eq!(sum, (0..50u64).sum::<u64>() * (0..10_000u64).sum::<u64>());
        }
    }

    #[test]
    fn outside_a_pool_it_just_runs() {
        assert_eq!(with_workers_awake(|| 7), 7);
    }
}
