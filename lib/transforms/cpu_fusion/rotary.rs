//! Rotary position embedding as one kernel: the rotation the rotary lowerings
//! (`conversion::attention::rotary::rotate`, for com.microsoft RotaryEmbedding and
//! GroupQueryAttention's `do_rotary`) write over the first `rotary` features of x,
//!
//! ```text
//! split halves:  cat([sub(x1·cos, x2·sin), add(x2·cos, x1·sin)], -1)
//!                  x1, x2 = slice(part, -1, 0, half), slice(part, -1, half, rotary)
//! interleaved:   reshape(stack([sub(…), add(…)], -1), [dims of part…, rotary])
//!                  x1, x2 = select(reshape(part, [dims of part…, half, 2]), -1, 0 | 1)
//! ```
//!
//! where part is x, or `slice(x, -1, 0, rotary)` with the rest of x concatenated
//! after the rotation (a partial rotary dimension). It becomes
//! `qlower.rotary_embedding(x, cos, sin, rotary, interleaved)`, whose kernel gives the
//! same bytes (`kernels::ops::rotary_embedding`). Every intermediate must be read only
//! by the chain, everything is f32, and no product may broadcast x wider than itself.

use std::collections::HashMap;

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::{Fusion, Operand, key};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_int, is_one, named, op_name};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;

/// The fusion rooted at a `cat` (split halves, or a partial rotation) or a `reshape`
/// (interleaved pairs).
pub fn match_rotary<'c: 'a, 'a>(
    root: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Fusion<'c, 'a>> {
    let m = Matcher { uses };
    let result: MlirValue = root.result(0).ok()?.into();
    if let Some(fusion) = m.partial(root) {
        return Some(fusion);
    }
    let r = m.rotation(result)?;
    Some(r.fusion(r.part))
}

/// A recognised rotation of `part`'s last axis, all of it.
struct Rotation<'c, 'a> {
    part: MlirValue<'c, 'a>,
    cos: MlirValue<'c, 'a>,
    sin: MlirValue<'c, 'a>,
    rotary: i64,
    interleaved: bool,
    /// The permutation of the leading axes that the halves were read through (the
    /// layout pass moves a transpose of x below the slices), if any.
    perm: Option<Vec<i64>>,
}

impl<'c, 'a> Rotation<'c, 'a> {
    fn fusion(&self, x: MlirValue<'c, 'a>) -> Fusion<'c, 'a> {
        Fusion {
            op: qlower::ROTARY_EMBEDDING,
            operands: vec![
                Operand::Ir(x),
                Operand::Ir(self.cos),
                Operand::Ir(self.sin),
                Operand::Const(Value::Int(self.rotary)),
                Operand::Const(Value::Bool(self.interleaved)),
                Operand::Const(self.perm.clone().map_or(Value::None, Value::IntList)),
            ],
        }
    }
}

struct Matcher<'u> {
    uses: &'u HashMap<usize, usize>,
}

impl Matcher<'_> {
    fn read_by(&self, v: MlirValue, readers: usize) -> bool {
        self.uses.get(&key(v)) == Some(&readers)
    }

    /// `cat([rotation of slice(x, -1, 0, rotary), slice(x, -1, rotary, head)], -1)`.
    fn partial<'c: 'a, 'a>(&self, cat: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
        let [rotated, rest] = self.last_axis_pair(cat, "torch.aten.cat", 0)?;
        if !self.read_by(rotated, 1) {
            return None;
        }
        let r = self.rotation(rotated)?;
        let (x, from, to) = last_axis_slice(r.part)?;
        let head = last_dim(x)?;
        let (rest, rest_perm) = self.through_permute(rest, 1)?;
        let (rest_of, rest_from, rest_to) = last_axis_slice(rest)?;
        if rest_perm != r.perm {
            return None;
        }
        if from != 0 || to != r.rotary || rest_of != x || rest_from != r.rotary || rest_to != head {
            return None;
        }
        let rank = f32_rank(x)?;
        if f32_rank(cat.result(0).ok()?.into())? != rank || r.rotary >= head {
            return None;
        }
        Some(r.fusion(x))
    }

    /// `v` as a rotation of some `part`, in either form.
    fn rotation<'c: 'a, 'a>(&self, v: MlirValue<'c, 'a>) -> Option<Rotation<'c, 'a>> {
        let op = crate::ir::matchers::defining(v)?;
        match op_name(op).as_str() {
            "torch.aten.cat" => self.split_halves(op),
            "torch.aten.reshape" => self.interleaved(op),
            _ => None,
        }
    }

    fn split_halves<'c: 'a, 'a>(&self, cat: OperationRef<'c, 'a>) -> Option<Rotation<'c, 'a>> {
        let [first, second] = self.last_axis_pair(cat, "torch.aten.cat", 0)?;
        let t = self.terms(first, second)?;
        let (s1, perm1) = self.through_permute(t.x1, 2)?;
        let (s2, perm2) = self.through_permute(t.x2, 2)?;
        let (p1, from1, to1) = last_axis_slice(s1)?;
        let (p2, from2, to2) = last_axis_slice(s2)?;
        let half = to1;
        if perm1 != perm2 || p1 != p2 || from1 != 0 || from2 != half || to2 != 2 * half || half <= 0
        {
            return None;
        }
        self.checked(
            Rotation {
                part: p1,
                cos: t.cos,
                sin: t.sin,
                rotary: 2 * half,
                interleaved: false,
                perm: perm1,
            },
            &t,
        )
    }

    fn interleaved<'c: 'a, 'a>(&self, out: OperationRef<'c, 'a>) -> Option<Rotation<'c, 'a>> {
        let stacked = out.operand(0).ok()?;
        if !self.read_by(stacked, 1) {
            return None;
        }
        let stack = named(stacked, "torch.aten.stack")?;
        let [first, second] = self.last_axis_pair(stack, "torch.aten.stack", 1)?;
        let t = self.terms(first, second)?;
        let (pairs1, which1) = last_axis_select(t.x1)?;
        let (pairs2, which2) = last_axis_select(t.x2)?;
        if pairs1 != pairs2 || which1 != 0 || which2 != 1 || !self.read_by(pairs1, 2) {
            return None;
        }
        let split = named(pairs1, "torch.aten.reshape")?;
        let part = split.operand(0).ok()?;
        let rank = f32_rank(part)?;
        if rank == 0 {
            return None;
        }
        let half = last_dim(t.x1)?;
        let split_sizes = int_list(split.operand(1).ok()?)?;
        let out_sizes = int_list(out.operand(1).ok()?)?;
        if split_sizes.len() != rank + 1
            || out_sizes.len() != rank
            || constant_int(split_sizes[rank - 1]) != Some(half)
            || constant_int(split_sizes[rank]) != Some(2)
            || constant_int(out_sizes[rank - 1]) != Some(2 * half)
            || !is_dims_of(&split_sizes[..rank - 1], part)
            || !is_dims_of(&out_sizes[..rank - 1], part)
            || f32_rank(out.result(0).ok()?.into())? != rank
        {
            return None;
        }
        self.checked(
            Rotation {
                part,
                cos: t.cos,
                sin: t.sin,
                rotary: 2 * half,
                interleaved: true,
                perm: None,
            },
            &t,
        )
    }

    /// The rotation, when its values have the types the kernel assumes: f32 of one
    /// rank, the halves and every product of x's half shape, the angles no wider.
    fn checked<'c: 'a, 'a>(
        &self,
        r: Rotation<'c, 'a>,
        t: &Terms<'c, 'a>,
    ) -> Option<Rotation<'c, 'a>> {
        let rank = f32_rank(r.part)?;
        if last_dim(r.part)? != r.rotary {
            return None;
        }
        let half_type = tensor_type(t.x1)?;
        if rank == 0 || half_type.shape.as_ref()?.len() != rank || tensor_type(t.x2)? != half_type {
            return None;
        }
        for angle in [r.cos, r.sin] {
            if f32_rank(angle)? > rank {
                return None;
            }
        }
        if t.values
            .iter()
            .any(|&v| tensor_type(v).as_ref() != Some(&half_type))
        {
            return None;
        }
        Some(r)
    }

    /// `first = sub(x1·cos, x2·sin)` and `second = add(x2·cos, x1·sin)` (either side
    /// of each product and of the sum), each value read only there.
    fn terms<'c: 'a, 'a>(
        &self,
        first: MlirValue<'c, 'a>,
        second: MlirValue<'c, 'a>,
    ) -> Option<Terms<'c, 'a>> {
        let sub = named(first, "torch.aten.sub.Tensor")?;
        let add = named(second, "torch.aten.add.Tensor")?;
        if !is_one(sub.operand(2).ok()?) || !is_one(add.operand(2).ok()?) {
            return None;
        }
        let (m1, m2) = (sub.operand(0).ok()?, sub.operand(1).ok()?);
        let (m3, m4) = (add.operand(0).ok()?, add.operand(1).ok()?);
        for v in [first, second, m1, m2, m3, m4] {
            if !self.read_by(v, 1) {
                return None;
            }
        }
        // Which side of x1·cos is x1: the side read by one other product (x1·sin).
        let (a, b) = product(m1)?;
        let (c, d) = product(m2)?;
        let candidates = [(a, b), (b, a)];
        for (x1, cos) in candidates {
            for (x2, sin) in [(c, d), (d, c)] {
                if x1 == x2
                    || x1 == cos
                    || x2 == sin
                    || !self.read_by(x1, 2)
                    || !self.read_by(x2, 2)
                {
                    continue;
                }
                let (p3, p4) = (product(m3)?, product(m4)?);
                let same = |p: (MlirValue, MlirValue), u: MlirValue, w: MlirValue| {
                    (p.0 == u && p.1 == w) || (p.0 == w && p.1 == u)
                };
                let sum_matches = (same(p3, x2, cos) && same(p4, x1, sin))
                    || (same(p3, x1, sin) && same(p4, x2, cos));
                if sum_matches {
                    return Some(Terms {
                        x1,
                        x2,
                        cos,
                        sin,
                        values: [first, second, m1, m2, m3, m4],
                    });
                }
            }
        }
        None
    }

    /// `v` as `permute(inner, perm)` of a permutation that keeps the last axis last,
    /// `v` having `readers` readers and `inner` only the permute; else `v` itself.
    fn through_permute<'c: 'a, 'a>(
        &self,
        v: MlirValue<'c, 'a>,
        readers: usize,
    ) -> Option<(MlirValue<'c, 'a>, Option<Vec<i64>>)> {
        let Some(permute) = named(v, "torch.aten.permute") else {
            return Some((v, None));
        };
        let inner = permute.operand(0).ok()?;
        let perm = constant_ints(permute.operand(1).ok()?)?;
        let rank = f32_rank(inner)?;
        let mut seen = vec![false; rank];
        for &p in &perm {
            let slot = usize::try_from(p).ok().and_then(|p| seen.get_mut(p))?;
            if *slot {
                return None;
            }
            *slot = true;
        }
        if perm.len() != rank
            || perm.last() != Some(&(rank as i64 - 1))
            || !self.read_by(v, readers)
            || !self.read_by(inner, 1)
        {
            return None;
        }
        Some((inner, Some(perm)))
    }

    /// The two operands of a `cat` or `stack` along the last axis, the list read only
    /// there. `extra` is 1 for a stack (its result has one more axis than its parts).
    fn last_axis_pair<'c: 'a, 'a>(
        &self,
        op: OperationRef<'c, 'a>,
        name: &str,
        extra: usize,
    ) -> Option<[MlirValue<'c, 'a>; 2]> {
        if op_name(op) != name || op.operand_count() != 2 {
            return None;
        }
        let list_value = op.operand(0).ok()?;
        let list = named(list_value, "torch.prim.ListConstruct")?;
        if list.operand_count() != 2 || !self.read_by(list_value, 1) {
            return None;
        }
        let (a, b) = (list.operand(0).ok()?, list.operand(1).ok()?);
        let rank = f32_rank(a)?;
        let dim = constant_int(op.operand(1).ok()?)?;
        if f32_rank(b)? != rank || (dim != -1 && dim != (rank + extra) as i64 - 1) {
            return None;
        }
        Some([a, b])
    }
}

/// The products and sums of a rotation, and which operands are x1, x2 and the angles.
struct Terms<'c, 'a> {
    x1: MlirValue<'c, 'a>,
    x2: MlirValue<'c, 'a>,
    cos: MlirValue<'c, 'a>,
    sin: MlirValue<'c, 'a>,
    /// first, second and the four products: each has the halves' type.
    values: [MlirValue<'c, 'a>; 6],
}

/// The operands of an f32 `mul.Tensor`.
fn product<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    let mul = named(v, "torch.aten.mul.Tensor")?;
    let (a, b) = (mul.operand(0).ok()?, mul.operand(1).ok()?);
    f32_rank(a)?;
    f32_rank(b)?;
    Some((a, b))
}

/// `slice.Tensor(x, last, from, to, 1)`: x, from, to.
fn last_axis_slice<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<(MlirValue<'c, 'a>, i64, i64)> {
    let slice = named(v, "torch.aten.slice.Tensor")?;
    let x = slice.operand(0).ok()?;
    let rank = f32_rank(x)? as i64;
    let dim = constant_int(slice.operand(1).ok()?)?;
    let (from, to) = (
        constant_int(slice.operand(2).ok()?)?,
        constant_int(slice.operand(3).ok()?)?,
    );
    if (dim != -1 && dim != rank - 1) || constant_int(slice.operand(4).ok()?)? != 1 || from < 0 {
        return None;
    }
    Some((x, from, to))
}

/// `select.int(pairs, last, which)`: pairs, which.
fn last_axis_select<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<(MlirValue<'c, 'a>, i64)> {
    let select = named(v, "torch.aten.select.int")?;
    let pairs = select.operand(0).ok()?;
    let rank = f32_rank(pairs)? as i64;
    let dim = constant_int(select.operand(1).ok()?)?;
    if (dim != -1 && dim != rank - 1) || last_dim(pairs)? != 2 {
        return None;
    }
    Some((pairs, constant_int(select.operand(2).ok()?)?))
}

/// The elements of a `torch.prim.ListConstruct`.
fn int_list<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Vec<MlirValue<'c, 'a>>> {
    let list = named(v, "torch.prim.ListConstruct")?;
    Some(list.operands().collect())
}

/// The constant ints of a `torch.prim.ListConstruct`.
fn constant_ints(v: MlirValue) -> Option<Vec<i64>> {
    let list = named(v, "torch.prim.ListConstruct")?;
    list.operands().map(constant_int).collect()
}

/// Each size is `part`'s size on its axis: `size.int(part, i)`, or the constant of
/// a dimension the type states.
fn is_dims_of(sizes: &[MlirValue], part: MlirValue) -> bool {
    let Some(dims) = tensor_type(part).and_then(|t| t.shape) else {
        return false;
    };
    sizes.iter().enumerate().all(|(i, &s)| {
        if let Some(size) = named(s, "torch.aten.size.int") {
            return size.operand(0).is_ok_and(|p| p == part)
                && size
                    .operand(1)
                    .ok()
                    .and_then(constant_int)
                    .is_some_and(|d| d == i as i64);
        }
        constant_int(s).is_some_and(|c| dims.get(i).copied().flatten() == Some(c))
    })
}

fn tensor_type(v: MlirValue) -> Option<TensorType> {
    TensorType::parse(&v.r#type().to_string())
}

/// The rank of an f32 tensor value.
fn f32_rank(v: MlirValue) -> Option<usize> {
    let t = tensor_type(v)?;
    (t.dtype == Some(DType::F32)).then_some(t.shape?.len())
}

/// The last dimension, when the type states it.
fn last_dim(v: MlirValue) -> Option<i64> {
    tensor_type(v)?.shape?.last().copied().flatten()
}
