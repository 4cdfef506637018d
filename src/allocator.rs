//! How the command line's allocator treats freed memory.
//!
//! A plan allocates its intermediate tensors afresh on every run. glibc's malloc serves
//! large blocks with their own mappings, returns them to the kernel when freed and
//! trims the heap's top, so each run faults every page of its tensors in again (in a
//! single convolution, page faults were 40 % of the time). ONNX Runtime keeps its
//! buffers in an arena; here the heap keeps freed memory and hands it out again.

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
