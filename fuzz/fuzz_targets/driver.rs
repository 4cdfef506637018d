// Included by every target. mlir-sys links all of MLIR's static libraries, and one of
// them (libMLIRMlirOptMain.a) defines mlir-opt's `main`; the linker takes the first
// archive that defines a missing symbol, so without this the fuzz target would start
// as mlir-opt and reject libFuzzer's flags. A `main` in the target's own object file
// wins over every archive and hands control to libFuzzer's driver.

use std::ffi::{c_char, c_int};

unsafe extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        one_input: extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
}

extern "C" fn one_input(data: *const u8, size: usize) -> c_int {
    // SAFETY: libFuzzer passes a buffer of `size` readable bytes that stays alive for
    // the whole call, which is what the wrapper turns into a slice.
    unsafe { libfuzzer_sys::test_input_wrap(data, size) }
}

#[unsafe(no_mangle)]
pub extern "C" fn main(mut argc: c_int, mut argv: *mut *mut c_char) -> c_int {
    // SAFETY: argc and argv are the process's own, as the C runtime passed them; the
    // driver may reorder them in place, which is why it takes pointers.
    unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, one_input) }
}
