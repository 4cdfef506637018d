//! MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool as torch's 1-D to 3-D
//! pools. torch pads symmetrically by at most half a kernel and lets a ceil_mode window
//! start in the end padding; ONNX pads that torch cannot take become an explicit
//! `constant_pad_nd` before the pool, and the windows ONNX would not have are sliced
//! off after it.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::window::{
    AutoPad, Cut, check_spatial, cut_spatial, pad_spatial, per_axis, same_pads_at_run_time,
    size_of, spatial_dims, window_pads, with_spatial,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::onnx::window;

pub fn register(r: &mut Lowerings) {
    r.on_op("MaxPool", 1, max_pool);
    r.on_op("AveragePool", 1, average_pool);
    r.on_op("GlobalMaxPool", 1, global_max_pool);
    r.on_op("GlobalAveragePool", 1, global_average_pool);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Max,
    Average { count_include_pad: bool },
}

/// A pool's window with its padding resolved to explicit begins and ends.
struct Pool {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    begin: Vec<i64>,
    end: Vec<i64>,
    /// Only explicit padding rounds up: SAME and VALID sizes ignore ceil_mode.
    ceil_mode: bool,
    /// SAME auto_pad over spatial sizes known only at run time (`Some(upper)`): the
    /// pads are computed from the input's sizes, and `begin`/`end` are zeros.
    same_at_run_time: Option<bool>,
}

/// The number of spatial dimensions of `x`, which torch pools in 1 to 3 dimensions.
fn spatial_rank(x: &TensorType) -> Result<usize> {
    let Some(rank) = x.rank() else {
        bail!("X has an unknown rank");
    };
    if rank < 3 {
        bail!("X has rank {rank}; a pool needs at least 3 (N, C, spatial)");
    }
    if rank > 5 {
        bail!(
            "X has {} spatial dimensions, but torch pools have 1 to 3",
            rank - 2
        );
    }
    Ok(rank - 2)
}

impl Pool {
    fn read(b: &Binder, x: &TensorType) -> Result<Pool> {
        let n = spatial_rank(x)?;
        if b.optional_ints("kernel_shape")?.is_none() {
            bail!("missing required attribute 'kernel_shape'");
        }
        let kernel = per_axis(b, "kernel_shape", n, 1, 1)?;
        let strides = per_axis(b, "strides", n, 1, 1)?;
        let dilations = per_axis(b, "dilations", n, 1, 1)?;
        let mode = AutoPad::read(b)?;
        let same_at_run_time = (mode.is_same() && spatial_dims(x, n).iter().any(Option::is_none))
            .then_some(mode == AutoPad::SameUpper);
        let (begin, end) = match same_at_run_time {
            Some(_) => (vec![0; n], vec![0; n]),
            None => window_pads(b, mode, x, "X", &kernel, &strides, &dilations)?,
        };
        let ceil_mode = b.int("ceil_mode", 0)? != 0 && mode == AutoPad::NotSet;
        Ok(Pool {
            kernel,
            strides,
            dilations,
            begin,
            end,
            ceil_mode,
            same_at_run_time,
        })
    }

    /// `x` with this pool's padding of `fill` around its spatial axes, and its type.
    fn pad<'c, 'a>(
        &self,
        t: &TorchBuilder<'c, 'a>,
        x: Value<'c, 'a>,
        x_type: &TensorType,
        fill: Value<'c, 'a>,
    ) -> Result<(Value<'c, 'a>, TensorType)> {
        let Some(upper) = self.same_at_run_time else {
            return pad_spatial(t, x, x_type, &self.begin, &self.end, fill);
        };
        let (pads, padded) = same_pads_at_run_time(
            t,
            x,
            x_type,
            &self.kernel,
            &self.strides,
            &self.dilations,
            upper,
        )?;
        let v = t.aten_tensor("constant_pad_nd", &[x, pads, fill], &padded)?;
        Ok((v, padded))
    }

    /// Whether torch's own `padding` operand expresses the padding.
    fn torch_pads_suffice(&self) -> bool {
        self.begin == self.end
            && self
                .begin
                .iter()
                .zip(&self.kernel)
                .all(|(&p, &k)| p <= k / 2)
    }

    /// The number of windows along axis `i` of size `size` padded by `begin`/`end`,
    /// dropping a ceil_mode window that would start past `size + begin`: ONNX Runtime's
    /// rule, and torch's when its padding is symmetric.
    fn windows(&self, i: usize, size: i64, begin: i64, end: i64) -> Result<i64> {
        let extent = window::extent(self.kernel[i], self.dilations[i]);
        let (begin, end) = (i128::from(begin), i128::from(end));
        let Some(n) = window::windows(size, begin, end, extent, self.strides[i], self.ceil_mode)
        else {
            bail!(
                "spatial dimension {i} of X has size {size} ({} padded), smaller than the window {extent}",
                i128::from(size) + begin + end
            );
        };
        size_of(n)
    }
}

fn max_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    // ONNX flattens Indices over the whole tensor, torch per plane: nothing to lower
    // them to, so only an unread Indices output is accepted.
    if b.result_count() > 1 && b.is_result_used(1) {
        bail!("output Indices is used, but only the pooled values are supported");
    }
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    match x_type.dtype {
        Some(d) if d.is_float() || matches!(d, DType::I8 | DType::U8) => {}
        _ => bail!("X must be a float, INT8 or UINT8 tensor, but is {x_type}"),
    }
    let pool = Pool::read(b, &x_type)?;
    let result = b.result_type(0)?;
    let y = emit_pool(t, Kind::Max, x, &x_type, &pool, &result)?;
    // Indices has no uses (checked above): any value stands in for it.
    Ok(vec![y; b.result_count()])
}

fn average_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    check_float(&x_type)?;
    let result = b.result_type(0)?;
    Ok(vec![average_pool_of(b, t, x, &x_type, &result)?])
}

/// The AveragePool that `b`'s attributes describe, of the float NC... tensor `x`, typed
/// `result`: shared with com.microsoft's QLinearAveragePool, which has the same ones.
pub(super) fn average_pool_of<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let pool = Pool::read(b, x_type)?;
    if pool.dilations.iter().any(|&d| d != 1) {
        bail!(
            "attribute 'dilations' is {:?}, but torch's avg_pool has no dilation",
            pool.dilations
        );
    }
    let count_include_pad = b.int("count_include_pad", 0)? != 0;
    let kind = Kind::Average { count_include_pad };
    emit_pool(t, kind, x, x_type, &pool, result)
}

fn check_float(x: &TensorType) -> Result<()> {
    match x.dtype {
        Some(d) if d.is_float() => Ok(()),
        _ => bail!("X must be a float tensor, but is {x}"),
    }
}

/// The pool of `x`, of type `result`, through padding and slicing where torch's window
/// arithmetic differs from ONNX's.
fn emit_pool<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    kind: Kind,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    pool: &Pool,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let n = pool.kernel.len();
    let spatial = spatial_dims(x_type, n);
    let mut wanted: Vec<Dim> = Vec::with_capacity(n);
    for (i, size) in spatial.iter().enumerate() {
        wanted.push(match size {
            // SAME gives ceil(size / stride) windows; its pads are not in `begin`/`end`
            // when they are computed at run time.
            Some(s) if pool.same_at_run_time.is_some() => {
                Some(size_of(window::same_output(*s, pool.strides[i]))?)
            }
            Some(s) => Some(pool.windows(i, *s, pool.begin[i], pool.end[i])?),
            None => None,
        });
    }
    check_spatial(result, &wanted)?;
    // SAME windows over the padded input are exactly ceil(size / stride): nothing to cut.
    if pool.same_at_run_time.is_some() {
        return pool_padded(t, kind, x, x_type, pool, result);
    }
    if pool.torch_pads_suffice() {
        return pool_op(t, kind, x, pool, &pool.begin, result);
    }
    if pool.ceil_mode && spatial.iter().any(Option::is_none) {
        bail!(
            "ceil_mode with asymmetric pads, or pads over half the kernel, needs static spatial sizes of X, but X is {x_type}"
        );
    }
    // On the padded input torch lets a ceil_mode window start anywhere in the padding,
    // so it may make windows that ONNX does not: they are sliced off the end.
    let mut produced = wanted.clone();
    let mut cuts = Vec::new();
    for (i, size) in spatial.iter().enumerate() {
        if let Some(s) = size {
            let windows = pool.windows(i, s + pool.begin[i] + pool.end[i], 0, 0)?;
            produced[i] = Some(windows);
            if Some(windows) != wanted[i] {
                cuts.push(Cut {
                    axis: i,
                    start: 0,
                    end: wanted[i],
                    size: wanted[i],
                });
            }
        }
    }
    let pooled_type = if cuts.is_empty() {
        result.clone()
    } else {
        with_spatial(result, &produced)
    };
    let y = pool_padded(t, kind, x, x_type, pool, &pooled_type)?;
    cut_spatial(t, y, &produced, &cuts, result)
}

/// The pool over `x` padded explicitly, of type `result`.
fn pool_padded<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    kind: Kind,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    pool: &Pool,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let zeros = vec![0; pool.kernel.len()];
    let fill = fill(t, kind, x_type)?;
    let (padded, _) = pool.pad(t, x, x_type, fill)?;
    let Kind::Average { count_include_pad } = kind else {
        return pool_op(t, kind, padded, pool, &zeros, result);
    };
    // The padding is now data, which count_include_pad = 1 averages like the rest.
    let counted = Kind::Average {
        count_include_pad: true,
    };
    if count_include_pad {
        return pool_op(t, counted, padded, pool, &zeros, result);
    }
    // Without counting the padding, each window's average over the padded input is
    // divided by the share of its elements that are real: the same pool over ones
    // padded with zeros.
    let sums = pool_op(t, counted, padded, pool, &zeros, result)?;
    let none = t.none()?;
    let ones = t.aten_tensor("ones_like", &[x, none, none, none, none, none], x_type)?;
    let zero = t.float(0.0)?;
    let (padded_ones, _) = pool.pad(t, ones, x_type, zero)?;
    let shares = pool_op(t, counted, padded_ones, pool, &zeros, result)?;
    t.aten_tensor("div.Tensor", &[sums, shares], result)
}

/// The value padding takes: never the maximum of a window, or 0 to average.
fn fill<'c, 'a>(t: &TorchBuilder<'c, 'a>, kind: Kind, x: &TensorType) -> Result<Value<'c, 'a>> {
    match (kind, x.dtype) {
        (Kind::Average { .. }, _) => t.float(0.0),
        (Kind::Max, Some(DType::I8)) => t.int(i8::MIN.into()),
        (Kind::Max, Some(DType::U8)) => t.int(0),
        (Kind::Max, _) => t.float(f64::NEG_INFINITY),
    }
}

/// `torch.aten.max_poolNd` / `avg_poolNd` with torch padding `padding`.
fn pool_op<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    kind: Kind,
    x: Value<'c, 'a>,
    pool: &Pool,
    padding: &[i64],
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let n = pool.kernel.len();
    let kernel = t.int_list(&pool.kernel)?;
    let strides = t.int_list(&pool.strides)?;
    let padding = t.int_list(padding)?;
    let ceil_mode = t.bool(pool.ceil_mode)?;
    match kind {
        Kind::Max => {
            let dilations = t.int_list(&pool.dilations)?;
            t.aten_tensor(
                &format!("max_pool{n}d"),
                &[x, kernel, strides, padding, dilations, ceil_mode],
                result,
            )
        }
        Kind::Average { count_include_pad } => {
            let cip = t.bool(count_include_pad)?;
            let mut operands = vec![x, kernel, strides, padding, ceil_mode, cip];
            // avg_pool2d and avg_pool3d also take a divisor_override.
            if n > 1 {
                operands.push(t.none()?);
            }
            t.aten_tensor(&format!("avg_pool{n}d"), &operands, result)
        }
    }
}

fn global_max_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    global_pool(b, t, Kind::Max)
}

fn global_average_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let kind = Kind::Average {
        count_include_pad: false,
    };
    global_pool(b, t, kind)
}

/// A pool whose window is the whole spatial extent, as torch-mlir lowers global pools;
/// a dynamic size is read with `aten.size.int`.
fn global_pool<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    kind: Kind,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    check_float(&x_type)?;
    let n = spatial_rank(&x_type)?;
    let result = b.result_type(0)?;
    check_spatial(&result, &vec![Some(1); n])?;

    let int_type = t.torch_type("int")?;
    let mut sizes = Vec::with_capacity(n);
    for (i, size) in spatial_dims(&x_type, n).into_iter().enumerate() {
        sizes.push(match size {
            Some(s) => t.int(s)?,
            None => {
                let dim = t.int(i as i64 + 2)?;
                t.aten("size.int", &[x, dim], int_type)?
            }
        });
    }
    let kernel = t.list(&sizes, "int")?;
    let strides = t.int_list(&vec![1; n])?;
    let padding = t.int_list(&vec![0; n])?;
    let no = t.bool(false)?;
    let y = match kind {
        Kind::Max => {
            let dilations = t.int_list(&vec![1; n])?;
            t.aten_tensor(
                &format!("max_pool{n}d"),
                &[x, kernel, strides, padding, dilations, no],
                &result,
            )?
        }
        Kind::Average { .. } => {
            let mut operands = vec![x, kernel, strides, padding, no, no];
            if n > 1 {
                operands.push(t.none()?);
            }
            t.aten_tensor(&format!("avg_pool{n}d"), &operands, &result)?
        }
    };
    Ok(vec![y])
}
