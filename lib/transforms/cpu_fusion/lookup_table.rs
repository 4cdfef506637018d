//! Lookup tables for float functions between quantized tensors. QDQ models leave ops
//! the quantizer does not quantize (a BatchNormalization not folded into its
//! convolution, the Div → Erf → Add → Mul → Mul of a GELU, activations) in float
//! between a DequantizeLinear and a QuantizeLinear. When every float op between them
//! is element-wise and reads only that one dequantized tensor and constants, the
//! requantized result is a function of each 8-bit input alone (per channel, if a
//! constant varies along one axis): at most 256 values per channel. `quantize_per_tensor`
//! of such a function becomes `qlower.qlinear_lookup` with the table of those values,
//! which this pass computes by running the unfused ops' own kernels on a tensor that
//! holds every 8-bit input once per channel. Each kernel computes every element alone,
//! the same way wherever it sits, so the table holds exactly what the unfused ops would
//! have computed.
//!
//! Anything else declines: another non-constant input, an op not known to be
//! element-wise, a float result read outside the function, constants varying along
//! more than one axis, or a channel axis of run-time size.

use std::collections::{HashMap, HashSet};

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::conv_matmul::Dequantized;
use super::elementwise::{dequantized, storage_of, users_after};
use super::{Fusion, Operand, key};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{defining, op_name};
use crate::kernels::tensor::data::gather;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, ResultType, lookup};
use crate::runtime::ir_values::result_type;
use crate::transforms::constants::{constant_of, is_constant};

/// Torch ops whose kernels compute each element from the elements at the same place
/// (after broadcasting) alone. `batch_norm` reads per-channel parameters along axis 1.
const ELEMENTWISE: &[&str] = &[
    "torch.aten.batch_norm",
    "torch.aten.add.Tensor",
    "torch.aten.add.Scalar",
    "torch.aten.sub.Tensor",
    "torch.aten.sub.Scalar",
    "torch.aten.mul.Tensor",
    "torch.aten.mul.Scalar",
    "torch.aten.div.Tensor",
    "torch.aten.div.Scalar",
    "torch.aten.pow.Tensor_Scalar",
    "torch.aten.pow.Tensor_Tensor",
    "torch.aten.maximum",
    "torch.aten.minimum",
    "torch.aten.clamp",
    "torch.aten.clamp_min",
    "torch.aten.clamp_max",
    "torch.aten.relu",
    "torch.aten.relu6",
    "torch.aten.leaky_relu",
    "torch.aten.hardtanh",
    "torch.aten.hardsigmoid",
    "torch.aten.hardswish",
    "torch.aten.sigmoid",
    "torch.aten.silu",
    "torch.aten.tanh",
    "torch.aten.erf",
    "torch.aten.gelu",
    "torch.aten.elu",
    "torch.aten.celu",
    "torch.aten.mish",
    "torch.aten.softplus",
    "torch.aten.exp",
    "torch.aten.log",
    "torch.aten.sqrt",
    "torch.aten.rsqrt",
    "torch.aten.reciprocal",
    "torch.aten.neg",
    "torch.aten.abs",
    "torch.aten.sin",
    "torch.aten.cos",
];

/// More ops than this between the quantizations is not a small function any more.
const MAX_OPS: usize = 32;
/// The largest constant read while building a table (a per-channel parameter).
const MAX_CONSTANT_ELEMENTS: usize = 1 << 16;
/// The largest channel count a table is built for: 256 bytes per channel.
const MAX_CHANNELS: usize = 1 << 14;

/// The table fusion for `quantize` (a `torch.aten.quantize_per_tensor`), if the float
/// value it quantizes is a function of one 8-bit tensor.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let result: MlirValue = quantize.result(0).ok()?.into();
    let out_storage = storage_of(result)?;
    let function = Function::find(quantize.operand(0).ok()?, quantize)?;
    let (x, table, axis) = tabulate(function, quantize)?;
    if table.data.dtype() != out_storage {
        return None;
    }
    Some(Fusion {
        op: qlower::QLINEAR_LOOKUP,
        operands: vec![
            Operand::Ir(x.int),
            Operand::Const(Value::tensor(table)),
            Operand::Const(Value::Int(axis)),
            Operand::Ir(quantize.operand(1).ok()?),
            Operand::Ir(quantize.operand(2).ok()?),
        ],
    })
}

/// Whether `name` is one of the element-wise ops a table can stand for.
pub fn is_elementwise(name: &str) -> bool {
    ELEMENTWISE.contains(&name)
}

/// The table fusion for the element-wise float op `op`, if its value is a function of
/// one 8-bit tensor and it ends that function: nothing reading it could extend the
/// function (no element-wise op or quantize reads it).
pub fn match_float<'c: 'a, 'a>(op: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let result: MlirValue = op.result(0).ok()?.into();
    // Finding the function is bounded by `MAX_OPS`; finding users scans the block, so
    // it comes after (a long float chain has no dequantized input to find).
    let function = Function::find(result, op).filter(|f| !f.ops.is_empty())?;
    let users = users_after(op, result);
    if users.is_empty()
        || users.iter().any(|u| {
            let name = op_name(*u);
            is_elementwise(&name) || name == "torch.aten.quantize_per_tensor"
        })
    {
        return None;
    }
    let (x, table, axis) = tabulate(function, op)?;
    if table.data.dtype() != DType::F32 {
        return None;
    }
    Some(Fusion {
        op: qlower::DEQUANTIZED_LOOKUP,
        operands: vec![
            Operand::Ir(x.int),
            Operand::Const(Value::tensor(table)),
            Operand::Const(Value::Int(axis)),
        ],
    })
}

/// The quantized input, the table and the channel axis (0 for one channel) of
/// `function`, whose value `root` computes (the quantize reading it, or its last op).
fn tabulate<'c: 'a, 'a>(
    function: Function<'c, 'a>,
    root: OperationRef<'c, 'a>,
) -> Option<(Dequantized<'c, 'a>, Tensor, i64)> {
    let x = dequantized(function.leaf)?.tensor;
    storage_of(x.int)?;
    let ty = TensorType::parse(&function.leaf.r#type().to_string())?;
    let rank = ty.rank()?;
    let axis = function.channel_axis(rank)?;
    let channels = match axis {
        None => 1,
        Some(a) => usize::try_from((*ty.shape?.get(a)?)?).ok()?,
    };
    if channels == 0 || channels > MAX_CHANNELS {
        return None;
    }
    let table = function.table(root, &x, axis, channels, rank)?;
    Some((x, table, axis.unwrap_or(0) as i64))
}

/// The float ops between one dequantized tensor (`leaf`) and a quantize, in IR order.
struct Function<'c, 'a> {
    leaf: MlirValue<'c, 'a>,
    ops: Vec<OperationRef<'c, 'a>>,
}

impl<'c: 'a, 'a> Function<'c, 'a> {
    /// The function `output` is, for the fused op that replaces `root`.
    fn find(output: MlirValue<'c, 'a>, root: OperationRef<'c, 'a>) -> Option<Self> {
        let mut leaf: Option<MlirValue> = None;
        let mut members: HashSet<usize> = HashSet::new();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut stack = vec![output];
        while let Some(v) = stack.pop() {
            if !seen.insert(key(v)) {
                continue;
            }
            let op = defining(v)?;
            let name = op_name(op);
            if is_constant_tree(v, 0) {
                continue;
            }
            if name == "torch.aten.dequantize.self" {
                if leaf.is_some_and(|l| l != v) {
                    return None;
                }
                leaf = Some(v);
                continue;
            }
            if !ELEMENTWISE.contains(&name.as_str()) || lookup(&name).is_none() {
                return None;
            }
            if op.result_count() != 1 || !members.insert(op.to_raw().ptr as usize) {
                return None;
            }
            if members.len() > MAX_OPS {
                return None;
            }
            stack.extend(op.operands());
        }
        let leaf = leaf?;
        // The ops in IR order: every member is after the leaf (melior cannot walk a
        // block backwards).
        let mut ops = Vec::with_capacity(members.len());
        let mut at = defining(leaf)?.next_in_block();
        while let Some(op) = at {
            if ops.len() == members.len() {
                break;
            }
            if members.contains(&(op.to_raw().ptr as usize)) {
                ops.push(op);
            }
            at = op.next_in_block();
        }
        // No ops at all is a requantization, `quantize(dequantize(q))` with other
        // parameters: a table too.
        if ops.len() != members.len() {
            return None;
        }
        // The floats must not be read elsewhere: the fused op replaces only the root.
        for op in ops.iter().filter(|&&o| o != root) {
            let r: MlirValue = op.result(0).ok()?.into();
            let outside = users_after(*op, r)
                .into_iter()
                .any(|u| u != root && !members.contains(&(u.to_raw().ptr as usize)));
            if outside {
                return None;
            }
        }
        Some(Function { leaf, ops })
    }

    /// The one axis along which a constant operand varies, `None` if none does; more
    /// than one declines. Every op keeps the leaf's rank (a constant of higher rank
    /// would broadcast the function over new axes).
    fn channel_axis(&self, rank: usize) -> Option<Option<usize>> {
        let mut axes = HashSet::new();
        let mut inside = HashSet::from([key(self.leaf)]);
        for op in &self.ops {
            inside.insert(key(op.result(0).ok()?));
        }
        for op in &self.ops {
            let r = op.result(0).ok()?;
            if TensorType::parse(&r.r#type().to_string())?.rank()? != rank {
                return None;
            }
            let batch_norm = op_name(*op) == "torch.aten.batch_norm";
            for (i, v) in op.operands().enumerate() {
                if inside.contains(&key(v)) {
                    continue;
                }
                let Some(ty) = TensorType::parse(&v.r#type().to_string()) else {
                    continue; // a scalar, list or none operand
                };
                let dims = ty.static_dims()?;
                if batch_norm && (1..=4).contains(&i) {
                    if dims.iter().product::<i64>() > 1 {
                        axes.insert(1);
                    }
                    continue;
                }
                if dims.len() > rank {
                    return None;
                }
                for (j, &d) in dims.iter().enumerate() {
                    if d != 1 {
                        axes.insert(rank - dims.len() + j);
                    }
                }
            }
        }
        match axes.len() {
            0 => Some(None),
            1 => axes.into_iter().next().map(Some),
            _ => None,
        }
    }

    /// The function's requantized value at every 8-bit input, per channel: a
    /// [channels, 256] tensor of the result's storage, row `c` indexed by the input's
    /// bit pattern. `None` if a kernel refuses or a shape comes out otherwise.
    fn table(
        &self,
        root: OperationRef<'c, 'a>,
        x: &Dequantized<'c, 'a>,
        axis: Option<usize>,
        channels: usize,
        rank: usize,
    ) -> Option<Tensor> {
        // Every input once per channel: 256 along `values`, the channels along `axis`.
        let values = match axis {
            Some(a) if a + 1 == rank => rank.checked_sub(2)?,
            _ => rank.checked_sub(1)?,
        };
        let mut shape = vec![1usize; rank];
        shape[values] = 256;
        if let Some(a) = axis {
            shape[a] = channels;
        }
        let channel_first = axis.is_none_or(|a| a < values);
        let at = |c: usize, v: usize| {
            if channel_first {
                c * 256 + v
            } else {
                v * channels + c
            }
        };
        let mut bits = vec![0u8; channels * 256];
        for c in 0..channels {
            for v in 0..256 {
                bits[at(c, v)] = v as u8;
            }
        }
        let data = match storage_of(x.int)? {
            DType::U8 => Data::U8(bits),
            DType::I8 => Data::I8(bits.iter().map(|&b| b as i8).collect()),
            _ => return None,
        };
        let scale = constant_of(x.scale, 1)?.as_float().ok()?;
        let zero_point = constant_of(x.zero_point, 1)?.as_int().ok()?;
        let mut probe = Tensor::new(shape.clone(), data).ok()?;
        probe.quant = Some(Quant::PerTensor { scale, zero_point });

        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let mut computed: HashMap<usize, Value> = HashMap::new();
        let leaf = run(
            "torch.aten.dequantize.self",
            vec![Value::tensor(probe)],
            self.leaf,
            &dims,
        )?;
        computed.insert(key(self.leaf), leaf);
        let mut ops = self.ops.clone();
        if !ops.contains(&root) {
            ops.push(root);
        }
        let mut last = None;
        for op in ops {
            let mut args = Vec::with_capacity(op.operand_count());
            for v in op.operands() {
                match computed.get(&key(v)) {
                    Some(value) => args.push(value.clone()),
                    None => args.push(evaluate(v, 0)?),
                }
            }
            let r: MlirValue = op.result(0).ok()?.into();
            let value = run(&op_name(op), args, r, &dims)?;
            computed.insert(key(r), value.clone());
            last = Some(value);
        }
        let out = last?.as_tensor().ok()?.clone();
        if out.shape != shape {
            return None;
        }
        // Row `c` of the table holds channel `c`'s results in input order.
        let order: Vec<usize> = (0..channels * 256).map(|i| at(i / 256, i % 256)).collect();
        let data = gather(&out.data, &order);
        if !matches!(data, Data::U8(_) | Data::I8(_) | Data::F32(_)) {
            return None;
        }
        Tensor::new(vec![channels, 256], data).ok()
    }
}

/// Ops that make a constant quantized tensor and dequantize it: a parameter of a float
/// op that the quantizer quantized (a BatchNormalization's scale, say).
const CONSTANT_QUANTIZATION: &[&str] = &[
    "torch.aten._make_per_tensor_quantized_tensor",
    "torch.aten._make_per_channel_quantized_tensor",
    "torch.aten.quantize_per_tensor",
    "torch.aten.quantize_per_channel",
    "torch.aten.dequantize.self",
];

/// Whether `v` is a constant, or a quantization of constants (below `depth` 4).
fn is_constant_tree(v: MlirValue, depth: usize) -> bool {
    let Some(op) = defining(v) else {
        return false;
    };
    if is_constant(op) {
        return true;
    }
    depth < 4
        && CONSTANT_QUANTIZATION.contains(&op_name(op).as_str())
        && op.operands().all(|o| is_constant_tree(o, depth + 1))
}

/// The value of a constant tree (`is_constant_tree`), computed by its ops' kernels, as
/// running them would; `None` past the size limit or if a kernel refuses.
fn evaluate(v: MlirValue, depth: usize) -> Option<Value> {
    let op = defining(v)?;
    if is_constant(op) {
        return constant_of(v, MAX_CONSTANT_ELEMENTS);
    }
    let name = op_name(op);
    if depth >= 4 || !CONSTANT_QUANTIZATION.contains(&name.as_str()) {
        return None;
    }
    let args = op
        .operands()
        .map(|o| evaluate(o, depth + 1))
        .collect::<Option<Vec<_>>>()?;
    let declared = result_type(v).ok()?;
    let dims = declared.tensor().ok()?.static_dims()?;
    let count = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
    if count > MAX_CONSTANT_ELEMENTS {
        return None;
    }
    let out = lookup(&name)?(&Call {
        args: &args,
        results: std::slice::from_ref(&declared),
    })
    .ok()?;
    out.into_iter().next()
}

/// Runs the kernel of the op named `name` on `args`, with `result`'s declared type
/// given the probe's shape; the result must come out with that shape.
fn run(name: &str, args: Vec<Value>, result: MlirValue, dims: &[i64]) -> Option<Value> {
    let kernel = lookup(name)?;
    let declared = match result_type(result).ok()? {
        ResultType::Tensor(t) => ResultType::Tensor(TensorType::known(t.dtype?, dims)),
        _ => return None,
    };
    let out = kernel(&Call {
        args: &args,
        results: std::slice::from_ref(&declared),
    })
    .ok()?;
    let value = out.into_iter().next()?;
    let shape: Vec<i64> = value
        .as_tensor()
        .ok()?
        .shape
        .iter()
        .map(|&d| d as i64)
        .collect();
    (shape == dims).then_some(value)
}
