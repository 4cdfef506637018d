//! Thin helpers over melior: the context qlower works in, diagnostics capture, parsing.

pub mod context;
pub mod diagnostics;
pub mod matchers;
pub mod parse;
