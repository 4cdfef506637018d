//! The command line's allocators.
//!
//! A plan allocates its intermediate tensors and each step's operand lists afresh on
//! every run. Rust's allocations go to mimalloc: in a small transformer encoder, whose
//! 137 steps take a microsecond each, glibc's malloc and free were a quarter of the
//! time (T5 at sequence length 7: 0.127 -> 0.103 ms at 1 thread); large models are
//! unchanged, and the peak resident memory grows by tens of MB (per-thread heaps).
//! The library's own tests keep the system allocator, which AddressSanitizer watches.
//!
//! MLIR's C++ still uses glibc's malloc. That serves large blocks with their own
//! mappings, returns them to the kernel when freed and trims the heap's top, so each
//! run would fault every page in again (in a single convolution, page faults were 40 %
//! of the time); there, the heap keeps freed memory and hands it out again.

//!
//! mimalloc, too, returns freed memory to the kernel after a delay ("purging"). Timing
//! ResNet-18 in a loop, every run then faulted about ten pages back in, 2 MB
//! transparent huge pages the kernel cleared each time: 5 % of the samples, and none
//! with purging off. Purging is off: the peak memory stays mapped until exit.

use std::ffi::{c_int, c_long};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's option setter and getter, compiled into the mimalloc crate's library.
unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (its v2 and v3): milliseconds
/// before freed memory is purged, -1 for never.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// Large blocks come from the heap (up to glibc's 32 MiB limit for this setting) and
/// freed memory is not returned to the kernel while the process runs, by either
/// allocator.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes malloc's tunables; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
    // SAFETY: setting an option is allowed at any time; the index names the purge delay
    // (the test below checks it by that option's default).
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

/// The purge delay mimalloc uses now.
#[cfg(test)]
fn purge_delay() -> c_long {
    // SAFETY: reading an option has no preconditions.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_index_is_the_purge_delay() {
        // Its default in mimalloc v3 is 1000 ms, unless the environment sets it.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge_delay(), 1000);
        }
        keep_freed_memory();
        assert_eq!(purge_delay(), -1);
    }
}
