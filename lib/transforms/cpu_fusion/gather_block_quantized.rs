//! The lowering of com.microsoft GatherBlockQuantized (`conversion::
//! gather_block_quantized`) as one `qlower.gather_block_quantized`:
//!
//! ```text
//! rows(t)   = index_select(t, 0, flat)
//! codes     = to.dtype(rows(data), si32)                                     (8 bits)
//!           | reshape(stack([remainder(w, 16), div(w, 16, floor)], 2), [n, 2W])
//!               w = to.dtype(rows(data), si32)                               (4 bits)
//! centered  = sub.Tensor(reshape(codes, [n, blocks, block]), unsqueeze(zp, 2))
//!           | sub.Scalar(reshape(codes, …), 2^(bits-1))
//!               zp = codes of rows(zero_points) [sliced to blocks]
//! root      = reshape(mul(to.dtype(centered, f32), unsqueeze(rows(scales) [as f32], 2)),
//!                     [n, blocks · block])
//! ```
//!
//! becomes `qlower.gather_block_quantized(data, flat, scales, zero_points | none, bits,
//! block)`, whose kernel dequantizes only the rows read and gives the same bytes
//! (`kernels::ops::gather_block_quantized`). The reshape to the indices' shape after
//! it stays. Every intermediate must be read only by the chain (or by a `size.int`
//! the chain's reshapes read).

use melior::ir::Value as MlirValue;
use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::users_after;
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::tensor_type_of_value;
use crate::ir::matchers::{constant_int, constant_str, defining, named, op_name};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;

/// The fusion rooted at `reshape` (the f32 `[n, columns]` rows), if it is the
/// lowering's.
pub fn match_rows<'c: 'a, 'a>(reshape: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    // The root first: its readers are outside, and its result is the fused op's.
    let mut chain = Chain { ops: vec![reshape] };
    let root_type = tensor_type_of_value(reshape.result(0).ok()?.into())?;
    let [_, Some(columns)] = root_type.shape.as_deref()? else {
        return None;
    };
    if root_type.dtype != Some(DType::F32)
        || list_constant(reshape.operand(1).ok()?, 1)? != *columns
    {
        return None;
    }
    let product = chain.read(reshape.operand(0).ok()?, "torch.aten.mul.Tensor")?;
    let (a, b) = (product.operand(0).ok()?, product.operand(1).ok()?);
    let (centered, scale_rows) = if named(a, "torch.aten.to.dtype").is_some() {
        (a, b)
    } else {
        (b, a)
    };
    let centered = chain.read(centered, "torch.aten.to.dtype")?;
    if element(centered.result(0).ok()?.into())? != DType::F32 {
        return None;
    }
    // The scales' rows, widened to f32 when stored narrower.
    let scale_rows = chain.read(scale_rows, "torch.aten.unsqueeze")?;
    if constant_int(scale_rows.operand(1).ok()?)? != 2 {
        return None;
    }
    let mut picked = scale_rows.operand(0).ok()?;
    if element(picked)? != DType::F32 {
        return None;
    }
    if let Some(widen) = named(picked, "torch.aten.to.dtype") {
        chain.read(picked, "torch.aten.to.dtype")?;
        picked = widen.operand(0).ok()?;
    }
    let (scales, flat) = chain.rows(picked)?;
    let scales_type = tensor_type_of_value(scales)?;
    if !matches!(
        scales_type.dtype,
        Some(DType::F32 | DType::F16 | DType::BF16)
    ) || element(picked)? != scales_type.dtype?
    {
        return None;
    }

    let difference = centered.operand(0).ok()?;
    let (grouped, zero_points, middle) = match op_name(defining(difference)?).as_str() {
        "torch.aten.sub.Tensor" => {
            let sub = chain.read(difference, "torch.aten.sub.Tensor")?;
            let zp = chain.read(sub.operand(1).ok()?, "torch.aten.unsqueeze")?;
            if constant_int(zp.operand(1).ok()?)? != 2 {
                return None;
            }
            (sub.operand(0).ok()?, Some(zp.operand(0).ok()?), None)
        }
        "torch.aten.sub.Scalar" => {
            let sub = chain.read(difference, "torch.aten.sub.Scalar")?;
            (
                sub.operand(0).ok()?,
                None,
                Some(constant_int(sub.operand(1).ok()?)?),
            )
        }
        _ => return None,
    };
    if constant_int(defining(difference)?.operand(2).ok()?)? != 1 {
        return None;
    }
    let grouped_op = chain.read(grouped, "torch.aten.reshape")?;
    let grouped_type = tensor_type_of_value(grouped)?;
    let [_, Some(blocks), Some(block)] = grouped_type.shape.as_deref()? else {
        return None;
    };
    let sizes = grouped_op.operand(1).ok()?;
    if list_constant(sizes, 1)? != *blocks || list_constant(sizes, 2)? != *block {
        return None;
    }
    let (data, bits, data_flat) = chain.codes(grouped_op.operand(0).ok()?)?;
    if data_flat != flat
        || blocks * block != *columns
        || columns_of(grouped_op.operand(0).ok()?)? != *columns
    {
        return None;
    }
    if middle.is_some_and(|m| m != 1 << (bits - 1)) {
        return None;
    }
    let zero_points = match zero_points {
        None => None,
        Some(zp) => {
            let zp = match named(zp, "torch.aten.slice.Tensor") {
                Some(slice) => {
                    chain.read(zp, "torch.aten.slice.Tensor")?;
                    let ends = (1..5)
                        .map(|i| slice.operand(i).ok().and_then(constant_int))
                        .collect::<Option<Vec<i64>>>()?;
                    if ends != [1, 0, *blocks, 1] {
                        return None;
                    }
                    slice.operand(0).ok()?
                }
                None => zp,
            };
            let (table, zp_bits, zp_flat) = chain.codes(zp)?;
            if zp_bits != bits || zp_flat != flat || columns_of(zp)? < *blocks {
                return None;
            }
            Some(table)
        }
    };
    if !chain.read_only_inside() {
        return None;
    }
    Some(Fusion {
        op: qlower::GATHER_BLOCK_QUANTIZED,
        operands: vec![
            Operand::Ir(data),
            Operand::Ir(flat),
            Operand::Ir(scales),
            zero_points.map_or(Operand::Const(Value::None), Operand::Ir),
            Operand::Const(Value::Int(bits)),
            Operand::Const(Value::Int(*block)),
        ],
    })
}

/// The ops matched so far, whose results the fused op replaces.
struct Chain<'c, 'a> {
    ops: Vec<OperationRef<'c, 'a>>,
}

impl<'c: 'a, 'a> Chain<'c, 'a> {
    /// The op `name` defining `v`, recorded.
    fn read(&mut self, v: MlirValue<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
        let op = named(v, name)?;
        self.ops.push(op);
        Some(op)
    }

    /// `index_select(table, 0, flat)` of a 2-D table by a 1-D index: table, flat.
    fn rows(&mut self, v: MlirValue<'c, 'a>) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
        let select = self.read(v, "torch.aten.index_select")?;
        let (table, flat) = (select.operand(0).ok()?, select.operand(2).ok()?);
        let flat_type = tensor_type_of_value(flat)?;
        if constant_int(select.operand(1).ok()?)? != 0
            || tensor_type_of_value(table)?.shape?.len() != 2
            || flat_type.shape?.len() != 1
            || !flat_type.dtype?.is_integer()
        {
            return None;
        }
        Some((table, flat))
    }

    /// The int32 codes `[n, W · 8 / bits]` of a packed uint8 table's rows: the table,
    /// bits, and the index the rows were picked by.
    fn codes(
        &mut self,
        v: MlirValue<'c, 'a>,
    ) -> Option<(MlirValue<'c, 'a>, i64, MlirValue<'c, 'a>)> {
        if element(v)? != DType::I32 {
            return None;
        }
        let (wide, bits) = match op_name(defining(v)?).as_str() {
            "torch.aten.to.dtype" => (v, 8),
            "torch.aten.reshape" => {
                let reshape = self.read(v, "torch.aten.reshape")?;
                let stacked = reshape.operand(0).ok()?;
                let stack = self.read(stacked, "torch.aten.stack")?;
                let dim = constant_int(stack.operand(1).ok()?)?;
                let list = self.read(stack.operand(0).ok()?, "torch.prim.ListConstruct")?;
                if (dim != 2 && dim != -1) || list.operand_count() != 2 {
                    return None;
                }
                let low = self.read(list.operand(0).ok()?, "torch.aten.remainder.Scalar")?;
                let high = self.read(list.operand(1).ok()?, "torch.aten.div.Scalar_mode")?;
                let wide = low.operand(0).ok()?;
                // Floor and truncation agree on the codes, which are never negative.
                let mode = constant_str(high.operand(2).ok()?)?;
                if high.operand(0).ok()? != wide
                    || constant_int(low.operand(1).ok()?)? != 16
                    || constant_int(high.operand(1).ok()?)? != 16
                    || (mode != "floor" && mode != "trunc")
                    || list_constant(reshape.operand(1).ok()?, 1)? != 2 * columns_of(wide)?
                {
                    return None;
                }
                (wide, 4)
            }
            _ => return None,
        };
        let cast = self.read(wide, "torch.aten.to.dtype")?;
        let picked = cast.operand(0).ok()?;
        let (table, flat) = self.rows(picked)?;
        if element(table)? != DType::U8 || element(wide)? != DType::I32 {
            return None;
        }
        Some((table, bits, flat))
    }

    /// Whether every result of the chain is read only by the chain's ops or by
    /// `size.int`s.
    fn read_only_inside(&self) -> bool {
        let inside = |o: &OperationRef| self.ops.iter().any(|c| c.to_raw().ptr == o.to_raw().ptr);
        self.ops.iter().skip(1).all(|op| {
            op.results().all(|r| {
                users_after(*op, r.into()).iter().all(|u| {
                    inside(u)
                        || (op_name(*u) == "torch.aten.size.int"
                            && u.result(0)
                                .is_ok_and(|s| size_read_inside(s.into(), &inside)))
                })
            })
        })
    }
}

/// Whether every reader of the size `s` is a list the chain reads.
fn size_read_inside(s: MlirValue, inside: &impl Fn(&OperationRef) -> bool) -> bool {
    let Some(size) = defining(s) else {
        return false;
    };
    users_after(size, s).iter().all(|list| {
        op_name(*list) == "torch.prim.ListConstruct"
            && list
                .result(0)
                .is_ok_and(|l| users_after(*list, l.into()).iter().all(inside))
    })
}

fn element(v: MlirValue) -> Option<DType> {
    tensor_type_of_value(v)?.dtype
}

/// The static size of a 2-D value's last axis.
fn columns_of(v: MlirValue) -> Option<i64> {
    match tensor_type_of_value(v)?.shape.as_deref()? {
        [_, Some(c)] => Some(*c),
        _ => None,
    }
}

/// Element `i` of a `torch.prim.ListConstruct` of ints, when it is a constant.
fn list_constant(list: MlirValue, i: usize) -> Option<i64> {
    constant_int(named(list, "torch.prim.ListConstruct")?.operand(i).ok()?)
}
