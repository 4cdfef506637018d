//! Fusion of concatenations of quantized tensors (`qlower.qlinear_cat`). A QDQ Concat
//! (and QLinearConcat) lowers to `quantize_per_tensor(cat([dequantize(q₁), …], dim), s,
//! z)`; ONNX Runtime runs it as QLinearConcat, each part's bytes requantized by a
//! table or copied. Parts that already share the result's parameters were joined as
//! integers by `sink-dequantize`; this takes the rest: every part an 8-bit per-tensor
//! quantized tensor of the result's type.

use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::{dequantized, storage_of};
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::ir::matchers::{defining, named, op_name};

/// The fused op for `quantize` of a cat of dequantized 8-bit tensors.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let cat = defining(quantize.operand(0).ok()?)?;
    if op_name(cat) != "torch.aten.cat" {
        return None;
    }
    let parts = named(cat.operand(0).ok()?, "torch.prim.ListConstruct")?;
    let storage = storage_of(quantize.result(0).ok()?.into())?;
    let mut operands = vec![
        Operand::Ir(cat.operand(1).ok()?),
        Operand::Ir(quantize.operand(1).ok()?),
        Operand::Ir(quantize.operand(2).ok()?),
    ];
    for part in parts.operands() {
        dequantized(part)?;
        // The quantized tensor itself, which carries its parameters to the kernel.
        let q = named(part, "torch.aten.dequantize.self")?.operand(0).ok()?;
        if storage_of(q)? != storage {
            return None;
        }
        operands.push(Operand::Ir(q));
    }
    (parts.operand_count() > 0).then_some(Fusion {
        op: qlower::QLINEAR_CAT,
        operands,
    })
}
