//! Kernels: one function per torch op the lowering emits. A kernel gets its operands
//! in IR order and the types the IR declares for its results, and returns one value
//! per result. Kernels check what they rely on and return errors, never panic: the
//! plan may feed them any shape the lowering accepted.

use anyhow::Result;

use super::value::Value;
use crate::dialect::types::TensorType;

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

/// Builds a `Prepared` kernel from the operands known at plan time (`None` for those
/// that are not constants), or declines.
pub type Prepare = fn(&[Option<&Value>]) -> Option<Prepared>;

mod args;
mod arith;
mod cast;
mod clamp;
mod compare;
mod concat;
mod conv;
#[cfg(test)]
mod coverage;
mod data;
mod elem;
mod fill;
mod layout;
mod matmul;
mod norm;
mod pad;
pub mod pool;
mod promote;
mod qconv;
mod qgemm;
pub mod qlinear;
pub mod qlinear_binary;
pub mod qlinear_pool;
pub mod qlinear_softmax;
mod qmatmul;
mod quant;
pub mod quantized_operands;
mod reduce;
mod resize;
#[cfg(test)]
mod robustness;
mod scalar;
mod select;
mod sgemm;
mod shape;
#[cfg(test)]
mod testutil;
mod unary;
mod zip;

/// Each op family's lookup, asked in turn.
const FAMILIES: &[fn(&str) -> Option<Kernel>] = &[
    scalar::lookup,
    arith::lookup,
    cast::lookup,
    clamp::lookup,
    compare::lookup,
    concat::lookup,
    conv::lookup,
    fill::lookup,
    matmul::lookup,
    norm::lookup,
    pad::lookup,
    pool::lookup,
    quant::lookup,
    reduce::lookup,
    resize::lookup,
    select::lookup,
    shape::lookup,
    unary::lookup,
];

/// The kernel for op `name` (e.g. `torch.aten.convolution`), if the backend has one.
pub fn lookup(name: &str) -> Option<Kernel> {
    let op = name.strip_prefix("torch.")?;
    FAMILIES.iter().find_map(|family| family(op))
}
