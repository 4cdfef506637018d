//! How element-wise and data-movement kernels split their elements over the pool: the
//! one policy, so that every such kernel pays for a task the same way.
//!
//! Handing a task to another worker is not free. On a 2-core virtual machine, a 65K
//! element broadcast add took 9–12 µs on one thread and 25–99 µs split into two 32K
//! tasks: the other core was asleep, busy with another process, or had to pull the
//! operands into its cache. A task is therefore only made when it carries at least
//! `MIN_TASK_PICOSECONDS` of work, judged from the element count and what an element
//! costs; more tasks than `TASKS_PER_THREAD` per worker are never made, which keeps
//! the load balanced when a core is shared without splitting into crumbs.
//!
//! The split never changes results: the kernels that use it compute each element on
//! its own, so any boundaries give the same bytes.

/// What computing one element costs, roughly, on one core of a current x86 CPU with
/// its vector paths (measured on the kernels that use each class).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// Copies, byte lookups and selections (a table lookup of 64 bytes per
    /// instruction, a strided copy): memory speed.
    Move,
    /// One or two arithmetic operations, conversions between integers and floats, a
    /// quantize or dequantize: still near memory speed.
    Arith,
    /// Integer requantizing arithmetic of two operands (a QLinearAdd or Mul): a few
    /// multiplies, shifts and rounds an element.
    Requantize,
    /// A polynomial or a division an element (exp, tanh, erf, sigmoid, GELU).
    Transcendental,
}

impl Cost {
    /// Picoseconds an element, on one core.
    fn picoseconds(self) -> u64 {
        match self {
            Cost::Move => 80,
            Cost::Arith => 150,
            Cost::Requantize => 300,
            Cost::Transcendental => 1_000,
        }
    }
}

/// The work one task must carry to pay for handing it to a worker and moving its data
/// to it. A plan's run keeps the other workers polling for work
/// (`runtime::threads::with_workers_awake`), so no task waits for a wake-up; what is
/// left is the operands' trip between the cores' caches. 40 µs had been chosen with the
/// workers asleep; at 15 µs the Whisper-style smart-turn encoder ran 19.4 -> 18.5 ms at
/// 2 threads (its norms and GELUs split), the BERT-class encoders a little faster, the
/// CNNs of the suite unchanged.
const MIN_TASK_PICOSECONDS: u64 = 15_000_000;

/// The most tasks made per worker: enough for one worker to take over another's share
/// when its core is taken by another process, few enough that each stays large.
const TASKS_PER_THREAD: usize = 4;

/// Elements a task's length is a multiple of (unless `n` itself is smaller): 64 f32 or
/// 256 bytes, whole cache lines, so no two tasks write the same line.
const ALIGN_ELEMENTS: usize = 64;

/// How many tasks `n` elements of `cost` are split into on `threads` workers: 1 (run on
/// the calling thread) unless each task gets `MIN_TASK_PICOSECONDS` of work.
pub fn task_count(n: usize, cost: Cost, threads: usize) -> usize {
    if threads <= 1 {
        return 1;
    }
    let work = (n as u64).saturating_mul(cost.picoseconds());
    let by_work = usize::try_from(work / MIN_TASK_PICOSECONDS).unwrap_or(usize::MAX);
    if by_work <= 1 {
        return 1;
    }
    // Whole rounds of tasks: three equal tasks on two workers leave one idle for the
    // last third (a tanh-form GELU chain over 128x1024 took longer at 2 threads than
    // at 1 in three tasks).
    by_work
        .div_ceil(threads)
        .saturating_mul(threads)
        .min(threads.saturating_mul(TASKS_PER_THREAD))
}

/// Elements per task for `n` elements of `cost` on `threads` workers, a multiple of
/// `unit` (a row, a broadcast period; at least 1) and of whole cache lines where it
/// can be: `n` (one task) or more when the work is not worth splitting, never 0.
pub fn task_len_on(n: usize, cost: Cost, unit: usize, threads: usize) -> usize {
    let unit = unit.max(1);
    let tasks = task_count(n, cost, threads);
    if tasks <= 1 {
        return n.max(1);
    }
    let per_task = n.div_ceil(tasks);
    // Whole units, and whole cache lines when a unit is smaller than one (a unit of a
    // line or more shares at most one line with the next task).
    let step = if unit < ALIGN_ELEMENTS {
        unit / gcd(unit, ALIGN_ELEMENTS) * ALIGN_ELEMENTS
    } else {
        unit
    };
    per_task.div_ceil(step).saturating_mul(step).max(1)
}

/// How many units (planes, rows) of `unit_elements` each a task takes when `units` of
/// them are split by `task_len`: at least 1, `units` or more when not split.
pub fn units_per_task(units: usize, unit_elements: usize, cost: Cost) -> usize {
    units_per_task_on(units, unit_elements, cost, rayon::current_num_threads())
}

fn units_per_task_on(units: usize, unit_elements: usize, cost: Cost, threads: usize) -> usize {
    let unit_elements = unit_elements.max(1);
    let n = units.saturating_mul(unit_elements);
    (task_len_on(n, cost, unit_elements, threads) / unit_elements).max(1)
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `task_len_on` for the pool this thread runs in (`rayon::current_num_threads`).
pub fn task_len(n: usize, cost: Cost, unit: usize) -> usize {
    task_len_on(n, cost, unit, rayon::current_num_threads())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn one_thread_never_splits() {
        for n in [0, 1, 63, 65_537, 10_000_019] {
            assert_eq!(task_count(n, Cost::Transcendental, 1), 1);
            assert_eq!(task_len_on(n, Cost::Transcendental, 1, 1), n.max(1));
        }
    }

    #[test]
    fn a_broadcast_add_of_65k_elements_stays_on_one_thread() {
        // The case that was slower split (9–12 µs whole, 25–99 µs in two).
        assert_eq!(task_count(65_536, Cost::Arith, 2), 1);
        assert_eq!(task_len_on(65_536, Cost::Arith, 1, 2), 65_536);
    }

    #[test]
    fn large_or_costly_work_splits_but_not_into_crumbs() {
        // 157 µs of work: ten tasks' worth, in whole rounds, four a worker at most.
        assert_eq!(task_count(1 << 20, Cost::Arith, 2), 8);
        assert_eq!(task_count(1 << 20, Cost::Arith, 3), 12);
        assert_eq!(task_count(1 << 17, Cost::Arith, 2), 1);
        assert_eq!(task_count(1 << 20, Cost::Transcendental, 2), 8);
        assert_eq!(task_count(1 << 30, Cost::Move, 16), 64);
        assert_eq!(task_count(usize::MAX, Cost::Transcendental, 2), 8);
    }

    #[test]
    fn tasks_are_whole_units_and_cover_odd_sizes() {
        for &(n, unit) in &[
            (1_000_003usize, 1usize),
            (1_000_003, 7),
            (999_999, 3 * 85),
            (2_000_001, 1000),
            (5, 3),
        ] {
            let len = task_len_on(n, Cost::Transcendental, unit, 2);
            assert!(len > 0);
            if len < n {
                assert_eq!(len % unit, 0, "n {n} unit {unit} len {len}");
                if unit < ALIGN_ELEMENTS {
                    assert_eq!(len % ALIGN_ELEMENTS, 0, "n {n} unit {unit}");
                }
            }
            // The chunks cover n, each task keeping at least its share of the work.
            let tasks = n.div_ceil(len);
            assert!(tasks <= 2 * TASKS_PER_THREAD, "n {n}: {tasks} tasks");
        }
    }

    #[test]
    fn units_per_task_is_whole_units_and_at_least_one() {
        // 128 planes of 10x10 bytes: one task.
        assert!(units_per_task_on(128, 100, Cost::Move, 2) >= 128);
        // A plane larger than a task's work is still a whole plane.
        assert_eq!(units_per_task_on(7, 10_000_000, Cost::Transcendental, 2), 1);
        // 64 planes of 64K floats of exp at 2 threads: 8 tasks of 8 planes.
        assert_eq!(units_per_task_on(64, 1 << 16, Cost::Transcendental, 2), 8);
        assert_eq!(units_per_task_on(64, 1 << 16, Cost::Transcendental, 1), 64);
        assert_eq!(units_per_task_on(0, 0, Cost::Move, 2), 1);
    }

    #[test]
    fn one_and_two_threads_give_the_same_bytes() {
        // An element-wise map split as the kernels split it, at each pool size.
        let n = 3_000_017;
        let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let len = task_len(n, Cost::Transcendental, 5);
                let mut y = vec![0.0f32; n];
                y.par_chunks_mut(len)
                    .zip(x.par_chunks(len))
                    .for_each(|(y, x)| {
                        for (y, x) in y.iter_mut().zip(x) {
                            *y = x.exp().mul_add(0.5, -x);
                        }
                    });
                (len, y)
            })
        };
        let (len1, one) = run(1);
        let (len2, two) = run(2);
        assert_eq!(len1, n);
        assert!(len2 < n);
        assert_eq!(
            one.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            two.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}
