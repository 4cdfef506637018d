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

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Large blocks come from the heap (up to glibc's 32 MiB limit for this setting) and
/// freed memory is not returned to the kernel while the process runs.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes malloc's tunables; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}
