//! How large a constant folding may read or create. Folding a big weight through an
//! op copies it into the IR a second time, so like other ONNX optimizers we leave ops
//! on large tensors to run at execution time.

/// Element-count bounds for `fold-constants`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldLimits {
    /// An op is not folded if any tensor operand has more elements than this.
    pub max_input_elements: usize,
    /// An op is not folded if any tensor result would have more elements than this.
    pub max_output_elements: usize,
}

/// 2^20 elements (4 MiB of f32), the order of bound ONNX optimizers use.
pub const DEFAULT_MAX_ELEMENTS: usize = 1 << 20;

impl Default for FoldLimits {
    fn default() -> Self {
        FoldLimits {
            max_input_elements: DEFAULT_MAX_ELEMENTS,
            max_output_elements: DEFAULT_MAX_ELEMENTS,
        }
    }
}
