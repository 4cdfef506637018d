//! Decode, validate and import arbitrary bytes as an ONNX model, then lower it the way
//! `qlower --emit fused` does. Errors are fine; a panic, abort or hang is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("driver.rs");
use qlower::ir::context::new_context;
use qlower::onnx::load::decode_model;
use qlower::onnx::validate::validate;
use qlower::pipeline::{Emit, Options, compile};

fuzz_target!(|data: &[u8]| {
    let Ok(proto) = decode_model(bytes::Bytes::copy_from_slice(data)) else {
        return;
    };
    // No model directory: external data must be refused, never read from the fuzzer's cwd.
    let Ok(model) = validate(proto, None) else {
        return;
    };
    let context = new_context();
    let _ = compile(&context, &model, Emit::Fused, Options::default());
});
