//! Parse arbitrary text as MLIR, run fuse-for-cpu on it and build a CPU plan from it, as
//! `qlower run x.mlir` does.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("driver.rs");
use qlower::ir::context::new_context;
use qlower::ir::parse::parse_module;
use qlower::runtime::plan::Plan;
use qlower::transforms::fuse_for_cpu;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let context = new_context();
    let Ok(mut module) = parse_module(&context, text, "fuzz.mlir") else {
        return;
    };
    if fuse_for_cpu(&context, &mut module).is_err() {
        return;
    }
    let _ = Plan::new(&module);
});
