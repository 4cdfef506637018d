//! Compiles `proto/onnx.proto` with prost-build. protox parses the schema in Rust,
//! so the build needs no system `protoc`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = "proto/onnx.proto";
    println!("cargo:rerun-if-changed={schema}");
    let descriptors = protox::compile([schema], ["proto"])?;
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
