//! A matmul whose constant weight is the blocked form of a 4- or 8-bit weight
//! (MatMulNBits' lowering: per-channel quantized rows of one block each, dequantized,
//! put back as [N, K] and transposed) becomes `qlower.matmul_nbits`, whose kernel keeps
//! the codes packed and unpacks them inside the GEMM. The codes are packed here, in
//! ONNX Runtime's layout, two per byte when every code and zero point fits in 4 bits;
//! the unpacked rows become dead and the plan never holds the float weight.
//!
//! ```text
//! matmul(a, transpose.int(slice.Tensor?(reshape(dequantize.self(
//!     _make_per_channel_quantized_tensor(codes [N·k_blocks, block] u8, scales, zps, 0)),
//!     [N, k_blocks·block]), 1, 0, K, 1), 0, 1))
//! ```
//!
//! Float zero points (a `sub.Tensor` after the dequantize) are not matched: that
//! matmul runs on the float weight.

use melior::ir::Value as MlirValue;
use melior::ir::operation::{OperationLike, OperationRef};

use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::tensor_type_of_value;
use crate::ir::matchers::{constant_int, defining, named};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::dtype::DType;
use crate::runtime::ir_values::constant_value;

fn literal(v: MlirValue) -> Option<Value> {
    constant_value(defining(v)?).ok().flatten()
}

pub fn match_matmul<'c: 'a, 'a>(mm: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let a = mm.operand(0).ok()?;
    let a_type = tensor_type_of_value(a)?;
    if a_type.dtype != Some(DType::F32) {
        return None;
    }
    // MatMulNBits' lowering transposes with `transpose.int`; a blocked DequantizeLinear
    // of a [K, N] weight (ONNX's int4 QDQ form) with `permute [1, 0]`.
    let t = match named(mm.operand(1).ok()?, "torch.aten.transpose.int") {
        Some(t) => {
            let dims = (
                constant_int(t.operand(1).ok()?)?,
                constant_int(t.operand(2).ok()?)?,
            );
            if !matches!(dims, (0, 1) | (1, 0)) {
                return None;
            }
            t
        }
        None => {
            let p = named(mm.operand(1).ok()?, "torch.aten.permute")?;
            let list = named(p.operand(1).ok()?, "torch.prim.ListConstruct")?;
            let perm = list
                .operands()
                .map(constant_int)
                .collect::<Option<Vec<_>>>()?;
            if perm != [1, 0] {
                return None;
            }
            p
        }
    };
    let [k, n] = tensor_type_of_value(t.result(0).ok()?.into())?.static_dims()?[..] else {
        return None;
    };
    if a_type.shape.as_ref()?.last().copied().flatten() != Some(k) {
        return None;
    }
    // The rows back as [N, k_blocks·block], cut to K when the last block is partial.
    let mut x = t.operand(0).ok()?;
    if let Some(slice) = named(x, "torch.aten.slice.Tensor") {
        let at = |i| constant_int(slice.operand(i).ok()?);
        if !matches!(at(1)?, 1 | -1) || at(2)? != 0 || at(3)? != k || at(4)? != 1 {
            return None;
        }
        x = slice.operand(0).ok()?;
    }
    let reshape = named(x, "torch.aten.reshape")?;
    let [rn, padded] = tensor_type_of_value(reshape.result(0).ok()?.into())?.static_dims()?[..]
    else {
        return None;
    };
    let dq = named(reshape.operand(0).ok()?, "torch.aten.dequantize.self")?;
    let q = named(
        dq.operand(0).ok()?,
        "torch.aten._make_per_channel_quantized_tensor",
    )?;
    if constant_int(q.operand(3).ok()?)? != 0 {
        return None;
    }
    let codes = literal(q.operand(0).ok()?)?;
    let codes = codes.as_tensor().ok()?;
    let zero_points = literal(q.operand(2).ok()?)?;
    let zero_points = zero_points.as_tensor().ok()?;
    let [rows, block] = codes.shape[..] else {
        return None;
    };
    // Signed codes (INT4 weights) move up by 8 with their zero points: the differences
    // the kernel multiplies by the scale are the same.
    let (codes, zps): (Vec<u8>, Vec<u8>) = match (&codes.data, &zero_points.data) {
        (Data::U8(c), Data::U8(z)) => (c.clone(), z.clone()),
        (Data::I8(c), Data::I8(z)) if c.iter().chain(z).all(|v| (-8..8).contains(v)) => (
            c.iter().map(|&v| (v + 8) as u8).collect(),
            z.iter().map(|&v| (v + 8) as u8).collect(),
        ),
        _ => return None,
    };
    let (codes, zps) = (&codes, &zps);
    let blocks = usize::try_from(padded).ok()? / block.max(1);
    let valid = rn == n
        && block % 16 == 0
        && blocks * block == padded as usize
        && rows == n as usize * blocks
        && k > padded - block as i64;
    if !valid {
        return None;
    }
    let scales = q.operand(1).ok()?;
    match literal(scales)?.as_tensor().ok()? {
        s if matches!(s.data, Data::F32(_)) && s.data.len() == rows => {}
        _ => return None,
    }
    if zps.len() != rows {
        return None;
    }
    let bits = if codes.iter().chain(zps).all(|&c| c < 16) {
        4
    } else {
        8
    };
    let packed = pack(codes, bits);
    let blob = block * bits / 8;
    let packed = Tensor::new(vec![n as usize, blocks, blob], Data::U8(packed)).ok()?;
    let zps = Tensor::new(vec![rows], Data::U8(zps.to_vec())).ok()?;
    Some(Fusion {
        op: qlower::MATMUL_NBITS,
        operands: vec![
            Operand::Ir(a),
            Operand::Const(Value::tensor(packed)),
            Operand::Ir(scales),
            Operand::Const(Value::tensor(zps)),
            Operand::Const(Value::Int(k)),
            Operand::Const(Value::Int(bits as i64)),
        ],
    })
}

/// Codes as bytes (8 bits) or two per byte, low nibble first (4 bits).
fn pack(codes: &[u8], bits: usize) -> Vec<u8> {
    if bits == 8 {
        return codes.to_vec();
    }
    codes
        .chunks(2)
        .map(|p| p[0] | (p.get(1).copied().unwrap_or(0) << 4))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn nibbles_pack_low_first() {
        assert_eq!(super::pack(&[1, 2, 15, 0], 4), vec![0x21, 0x0f]);
        assert_eq!(super::pack(&[200, 3], 8), vec![200, 3]);
    }
}
