//! The kernel library: one function per torch op the lowering emits. A kernel gets
//! its operands in IR order and the types the IR declares for its results, and returns
//! one value per result. Kernels check what they rely on and return errors, never
//! panic: the plan may feed them any shape the lowering accepted.
//!
//! The library knows nothing of MLIR or of the compiler around it (a test holds it to
//! that, see `testing::layering`), so that kernels can be read, tested and benchmarked
//! on plain tensors, and the backend (`crate::runtime`) sits on top of it.
//!
//! - `tensor`: the values kernels compute on (tensors, dtypes, declared types) and
//!   element access helpers;
//! - `ops`: kernels by op family (arithmetic, shapes, pooling, ...);
//! - `quantized`: quantization, and the kernels that reproduce ONNX Runtime's integer
//!   arithmetic;
//! - `linalg`: convolutions and matrix products, float and quantized, with their
//!   GEMMs;
//! - `isa`: the one place that picks the instruction set of every fast path;
//! - `split`: the one place that decides how many pool tasks an element-wise or
//!   data-movement kernel makes of its elements.

use anyhow::Result;

use tensor::tensor_type::TensorType;
use tensor::value::Value;

/// The declared type of one result, as the plan read it from the IR.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultType {
    Tensor(TensorType),
    Int,
    Float,
    Bool,
    Str,
    None,
    List(String),
}

impl ResultType {
    /// The declared tensor type, for kernels whose output dtype comes from the IR.
    pub fn tensor(&self) -> Result<&TensorType> {
        match self {
            ResultType::Tensor(t) => Ok(t),
            other => anyhow::bail!("result is declared {other:?}, not a tensor"),
        }
    }
}

pub struct Call<'a> {
    pub args: &'a [Value],
    pub results: &'a [ResultType],
}

impl Call<'_> {
    pub fn arg(&self, i: usize) -> Result<&Value> {
        self.args
            .get(i)
            .ok_or_else(|| anyhow::anyhow!("missing operand {i}"))
    }

    pub fn result(&self, i: usize) -> Result<&ResultType> {
        self.results
            .get(i)
            .ok_or_else(|| anyhow::anyhow!("missing result type {i}"))
    }
}

pub type Kernel = fn(&Call) -> Result<Vec<Value>>;

/// A kernel specialised at plan time to operands that are constants (packed weights).
pub type Prepared = std::sync::Arc<dyn Fn(&Call) -> Result<Vec<Value>> + Send + Sync>;

/// Runs `kernel` for its one tensor result, declared `result`. A kernel that builds on
/// another's work (the int32 reference of a quantized convolution, say) calls that
/// kernel's function directly, never through `lookup` by name.
pub fn call_for_tensor(
    kernel: Kernel,
    args: &[Value],
    result: ResultType,
) -> Result<tensor::Tensor> {
    match kernel(&Call {
        args,
        results: &[result],
    })?
    .into_iter()
    .next()
    {
        Some(Value::Tensor(t)) => {
            Ok(std::sync::Arc::try_unwrap(t).unwrap_or_else(|t| (*t).clone()))
        }
        _ => anyhow::bail!("internal error: the kernel gave no tensor"),
    }
}

/// Builds a `Prepared` kernel from the operands known at plan time (`None` for those
/// that are not constants), or declines.
pub type Prepare = fn(&[Option<&Value>]) -> Option<Prepared>;

mod args;
pub mod isa;
pub mod linalg;
pub mod ops;
pub mod quantized;
pub mod split;
pub mod tensor;
#[cfg(test)]
pub(crate) mod testing;

/// Each op family's lookup, asked in turn.
const FAMILIES: &[fn(&str) -> Option<Kernel>] = &[
    ops::scalar::lookup,
    ops::arange::lookup,
    ops::arith::lookup,
    ops::along::lookup,
    ops::cast::lookup,
    ops::clamp::lookup,
    ops::compare::lookup,
    ops::concat::lookup,
    ops::einsum::lookup,
    ops::erf::lookup,
    linalg::conv::lookup,
    ops::fill::lookup,
    linalg::matmul::lookup,
    ops::nonzero::lookup,
    ops::norm::lookup,
    ops::layer_norm::lookup,
    ops::math::lookup,
    ops::pad::lookup,
    ops::pool::lookup,
    quantized::quant::lookup,
    ops::reduce::lookup,
    ops::reduce_prod_norm::lookup,
    ops::resize::lookup,
    ops::select::lookup,
    ops::scatter_gather::lookup,
    ops::triangle::lookup,
    ops::shape::lookup,
    ops::tile::lookup,
    ops::unary::lookup,
    ops::smooth::lookup,
    ops::trig::lookup,
    ops::group_norm::lookup,
    ops::logsumexp::lookup,
];

/// The kernel for op `name` (e.g. `torch.aten.convolution`), if the backend has one.
pub fn lookup(name: &str) -> Option<Kernel> {
    // The recurrent layers are `torch.operator`s named `qlower.*` (see
    // `ops::recurrent`): torch has no op for ONNX's LSTM and GRU semantics.
    if let Some(k) = ops::recurrent::lookup(name) {
        return Some(k);
    }
    // NonMaxSuppression is one too (see `ops::nms`).
    if let Some(k) = ops::nms::lookup(name) {
        return Some(k);
    }
    let op = name.strip_prefix("torch.")?;
    FAMILIES.iter().find_map(|family| family(op))
}
