//! The fast quantized matrix product behind `qlinear_matmul`: `a` (activations, per
//! tensor) times a 2-D `b` (weights, per tensor or per column), b packed into panels
//! once (at plan time when it is a constant), a's rows packed per call, the integer
//! tile of `qgemm`, and requantization fused into the tile loop. Work is split over
//! blocks of rows and panels of columns. Operands this path does not take return
//! `None`, and the caller runs the reference kernel.

use anyhow::Result;
use rayon::prelude::*;

use super::qdriver::{SharedOut, cleared_vec, shifted};
use super::qgemm::requant::{self, ColTerms, Epilogue, Output, Rescale, RowTerms};
use super::qgemm::{self, MR, NR, Signs};
use super::qparams::Params;
use crate::kernels::isa::Isa;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, ResultType};

/// Rows of `a` one work item covers.
const ROW_BLOCK: usize = 8 * MR;
/// Products one rayon task of a matmul computes at least.
const MIN_TASK_PRODUCTS: usize = 4 << 20;
/// Products of one batch of a batched matmul for the batches to run in parallel.
const MIN_BATCH_TASK_PRODUCTS: usize = 1 << 20;

/// The constant right operand, packed once.
pub struct MatmulWeights {
    k: usize,
    n: usize,
    panels: qgemm::Aligned,
    /// Per column, in the signed range: Σ_k b', and b's zero point b_zero' (padded
    /// with zeros to whole panels, as tiles read it).
    sums: Vec<i32>,
    zeros: Vec<i32>,
    scales: Vec<f32>,
}

impl MatmulWeights {
    /// From `qlinear_matmul`'s b, b_scale, b_zero_point; `None` unless b is 2-D 8-bit
    /// with one parameter or one per column.
    pub fn new(b: &Tensor, scale: &Value, zero_point: &Value) -> Option<Self> {
        let [k, n] = b.shape[..] else {
            return None;
        };
        let p = Params::read(scale, zero_point).ok()?;
        let (bytes, shift) = shifted(&b.data, true)?;
        Self::pack(k, n, &bytes, shift, &p)
    }

    /// From `k × n` bytes in the signed range (`shift` moved the zero points with them).
    fn pack(k: usize, n: usize, bytes: &[u8], shift: i64, p: &Params) -> Option<Self> {
        if p.len() != 1 && p.len() != n {
            return None;
        }
        let panels = qgemm::pack_panels_row_major(k, n, bytes);
        let mut sums = vec![0i32; n];
        for row in bytes.chunks_exact(n.max(1)).take(k) {
            for (s, &v) in sums.iter_mut().zip(row) {
                *s += v as i8 as i32;
            }
        }
        Some(MatmulWeights {
            k,
            n,
            panels,
            sums,
            zeros: (0..n.div_ceil(NR) * NR)
                .map(|j| {
                    if j < n {
                        (p.zero_point(j) + shift) as i32
                    } else {
                        0
                    }
                })
                .collect(),
            scales: (0..n).map(|j| p.scale(j)).collect(),
        })
    }
}

impl MatmulWeights {
    /// b's rows: the length of a's rows.
    pub fn depth(&self) -> usize {
        self.k
    }
}

/// Runs the product, or returns `None` for the reference kernel to run.
pub fn run(c: &Call, w: &MatmulWeights) -> Result<Option<Vec<Value>>> {
    run_on(Isa::best(), c, w)
}

pub(crate) fn run_on(isa: Isa, c: &Call, w: &MatmulWeights) -> Result<Option<Vec<Value>>> {
    let a = c.arg(0)?.as_tensor()?;
    let Some(q) = Requantized::read(c)? else {
        return Ok(None);
    };
    if a.rank() == 0 || w.k == 0 || a.shape[a.rank() - 1] != w.k {
        return Ok(None);
    }
    let Some((bytes, shift)) = shifted(&a.data, false) else {
        return Ok(None);
    };
    let a_zero = (q.ap.zero_point(0) + shift) as i32;
    let Some(multipliers) = q.multipliers(w) else {
        return Ok(None);
    };
    let lead = &a.shape[..a.rank() - 1];
    let (shape, y) = product(isa, lead, &bytes, a_zero, w, multipliers, &[], q.out)?;
    q.finish(shape, y)
}

/// `qlinear_matmul` whose b is not a constant, and has batch dimensions equal to a's
/// (attention's `Q·Kᵀ` and `P·V` in a quantized transformer): each batch's b packed
/// when the step runs and multiplied on the fast tiles. `None` for other operands,
/// which the reference kernel runs.
pub fn run_batched(c: &Call) -> Result<Option<Vec<Value>>> {
    run_batched_on(Isa::best(), c)
}

pub(crate) fn run_batched_on(isa: Isa, c: &Call) -> Result<Option<Vec<Value>>> {
    let (a, b) = (c.arg(0)?.as_tensor()?, c.arg(3)?.as_tensor()?);
    let (Some(q), Ok(bp)) = (Requantized::read(c)?, Params::read(c.arg(4)?, c.arg(5)?)) else {
        return Ok(None);
    };
    let (ra, rb) = (a.rank(), b.rank());
    if ra < 3
        || ra != rb
        || a.shape[..ra - 2] != b.shape[..rb - 2]
        || a.shape[ra - 1] != b.shape[rb - 2]
    {
        return Ok(None);
    }
    let (m, k, n) = (a.shape[ra - 2], a.shape[ra - 1], b.shape[rb - 1]);
    let (Some((a_bytes, a_shift)), Some((b_bytes, b_shift))) =
        (shifted(&a.data, false), shifted(&b.data, true))
    else {
        return Ok(None);
    };
    if m == 0 || k == 0 || n == 0 {
        return Ok(None);
    }
    let a_zero = (q.ap.zero_point(0) + a_shift) as i32;
    let mut shape = a.shape[..ra - 1].to_vec();
    shape.push(n);
    let total = crate::kernels::tensor::bounded_count(&shape)?;
    // One product per batch (an attention head, say), each packing its own operands:
    // the batches run in parallel, since one head's product is too small to split well
    // and its packing would otherwise run on one thread while the other waits.
    let one = |i: usize| -> Result<Option<Vec<u8>>> {
        let Some(w) = MatmulWeights::pack(k, n, &b_bytes[i * k * n..(i + 1) * k * n], b_shift, &bp)
        else {
            return Ok(None);
        };
        let Some(multipliers) = q.multipliers(&w) else {
            return Ok(None);
        };
        let rows = &a_bytes[i * m * k..(i + 1) * m * k];
        let (_, part) = product(isa, &[m], rows, a_zero, &w, multipliers, &[], q.out)?;
        Ok(Some(part))
    };
    let batches = total / (m * n);
    let parts: Vec<Option<Vec<u8>>> = if batches > 1 && m * k * n >= MIN_BATCH_TASK_PRODUCTS {
        (0..batches)
            .into_par_iter()
            .map(one)
            .collect::<Result<_>>()?
    } else {
        (0..batches).map(one).collect::<Result<_>>()?
    };
    let mut y = Vec::with_capacity(total);
    for part in parts {
        let Some(part) = part else {
            return Ok(None);
        };
        y.extend(part);
    }
    q.finish(shape, y)
}

/// What `qlinear_matmul` requantizes with: a's and the output's parameters (both per
/// tensor) and the output's kind, read once for either path.
struct Requantized {
    ap: Params,
    yp: Params,
    out: Output,
    quantized: bool,
}

impl Requantized {
    /// `None` for parameters the fast paths do not take.
    fn read(c: &Call) -> Result<Option<Requantized>> {
        let (Ok(ap), Ok(yp)) = (
            Params::read(c.arg(1)?, c.arg(2)?),
            Params::read(c.arg(6)?, c.arg(7)?),
        ) else {
            return Ok(None);
        };
        let ResultType::Tensor(ty) = c.result(0)? else {
            return Ok(None);
        };
        let Some((signed, quantized)) = super::qparams::output_kind(ty.dtype) else {
            return Ok(None);
        };
        if ap.len() != 1 || yp.len() != 1 {
            return Ok(None);
        }
        let Some(out) = Output::new(yp.zero_point(0), signed) else {
            return Ok(None);
        };
        Ok(Some(Requantized {
            ap,
            yp,
            out,
            quantized,
        }))
    }

    /// Per column of `w`: a_scale · b_scale / y_scale, or `None` when one is not finite.
    fn multipliers(&self, w: &MatmulWeights) -> Option<Vec<f32>> {
        let m: Vec<f32> = w
            .scales
            .iter()
            .map(|&bs| self.ap.scale(0) * bs / self.yp.scale(0))
            .collect();
        requant::finite(&m).then_some(m)
    }

    fn finish(&self, shape: Vec<usize>, y: Vec<u8>) -> Result<Option<Vec<Value>>> {
        let t = self
            .out
            .tensor(shape, y, self.quantized.then(|| self.yp.scale(0)))?;
        Ok(Some(vec![Value::tensor(t)]))
    }
}

/// What every work item of `product` shares.
struct Product<'a, E: Epilogue> {
    isa: Isa,
    w: &'a MatmulWeights,
    /// a's rows packed as `qgemm`'s left operand, and their sums.
    rows: &'a [u8],
    row_sums: &'a [i32],
    /// Per column, padded to whole panels.
    offsets: &'a [i32],
    multipliers: &'a [f32],
    bias: &'a [f32],
    need_sums: bool,
    has_bias: bool,
    m: usize,
    shared: SharedOut<E::Out>,
    out: E,
}

impl<E: Epilogue> Product<'_, E> {
    /// Item `item`: one block of `ROW_BLOCK` rows against one panel, compiled for the
    /// instruction set with the requantization inlined.
    fn run(&self, tiles: &mut [qgemm::Tile; 4], item: usize) {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the instruction set was detected on this CPU.
            Isa::Avx512Vnni if self.isa.available() => unsafe { self.item_avx512(tiles, item) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Isa::Avx2 if self.isa.available() => unsafe { self.item_avx2(tiles, item) },
            _ => self.item(tiles, item),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn item_avx512(&self, tiles: &mut [qgemm::Tile; 4], item: usize) {
        if qgemm::amx(self.isa) {
            return self.item(tiles, item);
        }
        // Each tile's rows are finished from its registers.
        let (panel, col, first, cols, rows) = self.item_terms(item);
        let stride = qgemm::lhs_stride(self.w.k);
        let kq = qgemm::quads(self.w.k);
        for block in rows.clone().step_by(MR) {
            // SAFETY: this function's features are the tile's.
            let acc = unsafe {
                qgemm::unsigned_sums_avx512(&self.rows[block * stride..], stride, panel, kq)
            };
            for (r, &row_acc) in acc.iter().enumerate().take(rows.end - block) {
                let row = block + r;
                let terms = RowTerms {
                    sum: self.row_sums[row],
                    ..Default::default()
                };
                // SAFETY: row `row`, columns first..first+cols belong to this item
                // alone; this function has avx512f.
                unsafe {
                    let dest = self.shared.slice(row * self.w.n + first, cols);
                    self.out.row_avx512(row_acc, terms, col, dest);
                }
            }
        }
    }

    // `Rescale`'s multiply and add still round separately: Rust never contracts them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn item_avx2(&self, tiles: &mut [qgemm::Tile; 4], item: usize) {
        self.item(tiles, item)
    }

    /// Item `item`'s panel of weights, its columns' terms, its first column and
    /// number of columns, and its rows.
    #[inline(always)]
    fn item_terms(
        &self,
        item: usize,
    ) -> (&[u8], ColTerms<'_>, usize, usize, std::ops::Range<usize>) {
        let w = self.w;
        let kq = qgemm::quads(w.k);
        let panels = w.n.div_ceil(NR);
        let (rb, p) = (item / panels, item % panels);
        let first = p * NR;
        let cols = NR.min(w.n - first);
        let panel = &w.panels[p * kq * NR * 4..(p + 1) * kq * NR * 4];
        let col = ColTerms {
            offset: self.offsets[first..].first_chunk::<NR>(),
            zero: w.zeros[first..]
                .first_chunk::<NR>()
                .filter(|_| self.need_sums),
            multiplier: self.multipliers[first..].first_chunk::<NR>(),
            sum: None,
            bias: self.bias[first..]
                .first_chunk::<NR>()
                .filter(|_| self.has_bias),
        };
        let rows = rb * ROW_BLOCK..self.m.min((rb + 1) * ROW_BLOCK);
        (panel, col, first, cols, rows)
    }

    #[inline(always)]
    fn item(&self, tiles: &mut [qgemm::Tile; 4], item: usize) {
        let (panel, col, first, cols, rows) = self.item_terms(item);
        let (k, n) = (self.w.k, self.w.n);
        let kq = qgemm::quads(k);
        let stride = qgemm::lhs_stride(k);
        let end = rows.end;
        let four = qgemm::prefers_tiles4(self.isa);
        let mut block = rows.start;
        while block < end {
            // Up to four tiles at once where the tiles prefer it: AMX takes four, and
            // AVX2 widens the panel once for however many the item has left.
            let count = if four {
                (end - block).div_ceil(MR).min(4)
            } else {
                1
            };
            let lhs = &self.rows[block * stride..];
            let tiles = &mut tiles[..count];
            qgemm::tiles(self.isa, Signs::UnsignedLhs, lhs, stride, panel, kq, tiles);
            for (i, tile) in tiles.iter().enumerate() {
                for (r, acc) in tile.iter().enumerate() {
                    let row = block + i * MR + r;
                    if row >= end {
                        break;
                    }
                    let terms = RowTerms {
                        sum: self.row_sums[row],
                        ..Default::default()
                    };
                    // SAFETY: row `row`, columns first..first+cols belong to this item
                    // alone.
                    let dest = unsafe { self.shared.slice(row * n + first, cols) };
                    self.out.row(acc, terms, col, dest);
                }
            }
            block += count * MR;
        }
    }
}

/// The float product of dynamic quantization: `a`, quantized by the caller straight
/// into `qgemm`'s packed left operand (uint8, zero point `a_zero`), times b, each
/// column's int32 sums converted to f32, times `multipliers[column]`, plus
/// `bias[column]` when given. `rows` holds a's rows (`lead` its dimensions but the
/// last, which is b's `k`) `qgemm::lhs_stride(k)` bytes apart, zero padded to whole
/// quads and tiles (`qgemm::padded_rows`). `None` where the reference kernel should
/// decide.
pub fn run_rescaled_packed(
    isa: Isa,
    lead: &[usize],
    rows: &[u8],
    a_zero: u8,
    w: &MatmulWeights,
    multipliers: &[f32],
    bias: Option<&[f32]>,
) -> Result<Option<Tensor>> {
    let n = w.n;
    let m: usize = lead.iter().product();
    if w.k == 0
        || rows.len() != qgemm::padded_rows(m) * qgemm::lhs_stride(w.k)
        || multipliers.len() != n
        || bias.is_some_and(|b| b.len() != n)
    {
        return Ok(None);
    }
    let out = Rescale {
        bias: bias.is_some(),
    };
    let (shape, y) = product_packed(
        isa,
        lead,
        rows,
        a_zero as i32,
        w,
        multipliers.to_vec(),
        bias.unwrap_or(&[]),
        out,
    )?;
    Ok(Some(Tensor::new(shape, Data::F32(y))?))
}

/// `a`'s bytes (in the unsigned range, zero point `a_zero`; `lead` its dimensions but
/// the last) times b, each tile row
/// finished by `out` with the per-column `multipliers` and `bias` (empty for none).
#[allow(clippy::too_many_arguments)]
fn product<E: Epilogue>(
    isa: Isa,
    lead: &[usize],
    bytes: &[u8],
    a_zero: i32,
    w: &MatmulWeights,
    multipliers: Vec<f32>,
    bias: &[f32],
    out: E,
) -> Result<(Vec<usize>, Vec<E::Out>)> {
    let k = w.k;
    let m = bytes.len() / k;
    let rows = qgemm::pack_row_major(m, k, qgemm::lhs_stride(k), bytes);
    product_packed(isa, lead, &rows, a_zero, w, multipliers, bias, out)
}

/// `product` of rows already packed as `qgemm`'s left operand (`lhs_stride(k)` bytes
/// apart, zero padded to whole tiles).
#[allow(clippy::too_many_arguments)]
fn product_packed<E: Epilogue>(
    isa: Isa,
    lead: &[usize],
    rows: &[u8],
    a_zero: i32,
    w: &MatmulWeights,
    mut multipliers: Vec<f32>,
    bias: &[f32],
    out: E,
) -> Result<(Vec<usize>, Vec<E::Out>)> {
    let (k, n) = (w.k, w.n);
    let stride = qgemm::lhs_stride(k);
    let mut shape: Vec<usize> = lead.to_vec();
    shape.push(n);
    let total = crate::kernels::tensor::bounded_count(&shape)?;
    let m = total / n.max(1);
    let need_sums = w.zeros.iter().any(|&z| z != 0);
    // The padding is zeros, which add nothing to a row's sum.
    let row_sums: Vec<i32> = if need_sums {
        rows.chunks_exact(stride)
            .take(m)
            .map(|r| r.iter().map(|&v| v as i32).sum())
            .collect()
    } else {
        vec![0; m]
    };
    // Σ (a' - az)(b' - bz) = Σ a'b' - az·Σb' - bz·Σa' + K·az·bz: per column, all but
    // Σ a'b' and the per-row Σa'.
    let ki = k as i32;
    let panels = n.div_ceil(NR);
    // Per-column terms padded to whole panels, so every tile reads NR of each.
    let padded = |v: Vec<i32>| {
        let mut v = v;
        v.resize(panels * NR, 0);
        v
    };
    let offsets: Vec<i32> = padded(
        (0..n)
            .map(|j| {
                ki.wrapping_mul(a_zero)
                    .wrapping_mul(w.zeros[j])
                    .wrapping_sub(a_zero.wrapping_mul(w.sums[j]))
            })
            .collect(),
    );
    multipliers.resize(panels * NR, 0.0);
    let mut bias = bias.to_vec();
    let has_bias = !bias.is_empty();
    bias.resize(panels * NR, 0.0);
    let mut y = cleared_vec(total);
    let shared = SharedOut::new(&mut y);
    let row_blocks = m.div_ceil(ROW_BLOCK);
    let work = Product {
        isa,
        w,
        rows,
        row_sums: &row_sums,
        offsets: &offsets,
        multipliers: &multipliers,
        bias: &bias,
        need_sums,
        has_bias,
        m,
        shared,
        out,
    };
    // Items of a few rows are short: each task takes enough of them to be worth
    // handing to another thread (waking one costs microseconds; a T5 encoder's
    // matmuls over 7 rows take 2-3 µs each at 1 thread, and took twice as long at 2).
    let per_item = m.min(ROW_BLOCK) * k * NR;
    (0..row_blocks * panels)
        .into_par_iter()
        .with_min_len((MIN_TASK_PRODUCTS / per_item.max(1)).max(1))
        .for_each_init(|| [[[0; NR]; MR]; 4], |tiles, item| work.run(tiles, item));
    Ok((shape, y))
}
