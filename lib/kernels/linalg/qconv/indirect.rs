//! The convolution with output pixels as the tile's rows and output channels as its
//! panel columns, reading the channels-last copy of the input in place: for each
//! block of `MR` pixels a table says where each pixel's kernel taps land (a position's
//! words, or the zero point's), and the tile broadcasts each pixel's words straight
//! from there against panels of weights packed once. No im2col, and a block holds 8
//! pixels where an im2col panel holds 32: ResNet-18's 7x7 layers (49 pixels) fill 56
//! rows rather than 64 columns.
//!
//! Taken on AVX-512 VNNI without AMX (whose tiles the im2col path feeds) for weights
//! packed tap-major, in one group, with zero points of 0 (symmetric weights, the
//! common case: no per-pixel sums are needed).

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::super::qdriver::SharedOut;
#[cfg(target_arch = "x86_64")]
use super::super::qgemm::Sums;
use super::super::qgemm::requant::{ColTerms, Epilogue, RowTerms};
use super::super::qgemm::{self, MR, NR};
use super::super::strided::inside;
use super::Job;
use super::channels_last::ChannelsLast;
use crate::kernels::isa::Isa;

/// Whether `isa` runs this kernel: AVX-512 VNNI, and no AMX tiles (which do more per
/// instruction on the im2col path's packed rows).
pub fn usable(isa: Isa) -> bool {
    isa == Isa::Avx512Vnni && isa.available() && !crate::kernels::isa::int8_tiles()
}

/// Whether weights in `groups` groups with these zero points suit this kernel: one
/// group, symmetric (no per-pixel sums needed). Their K must also run tap-major.
pub(super) fn applies(groups: usize, zeros: &[i32]) -> bool {
    groups == 1 && zeros.iter().all(|&z| z == 0)
}

/// Bytes of weight panels a task keeps hot while its pixel blocks stream past: half
/// a typical L2.
const HOT_PANEL_BYTES: usize = 256 << 10;

/// Work one task carries at least (picoseconds). Less than `kernels::split`'s 15 us:
/// a convolution's tasks start while the pool's workers spin between a run's
/// kernels, and splitting paid from about 10 us on (64 -> 64 channels 1x1 at 20x20,
/// 31 us at 1 thread: 22 us split at 2, 36 us kept whole).
const MIN_TASK_PICOSECONDS: usize = 10_000_000;
/// A quad of K against a block and a panel: 16 VNNI instructions, about 5 ns.
const QUAD_TILE_PICOSECONDS: usize = 5_000;
/// Each tile's requantization, transposes and stores, and its share of the table.
const TILE_PICOSECONDS: usize = 250_000;

impl<E: Epilogue> Job<'_, E> {
    /// The convolution into `y` (NCHW), every element written, from the channels-last
    /// input `cl` and the weights' `panels` (`ConvWeights::panels`). The caller
    /// checked `usable` and `applies`.
    pub(super) fn indirect(&self, cl: &ChannelsLast, panels: &[u8], y: &mut [MaybeUninit<E::Out>]) {
        let (s, w) = (self.s, self.w);
        let pixels = s.pixels();
        let c_out = w.shape[0];
        let kq = qgemm::quads(w.k);
        let n_panels = c_out.div_ceil(NR);
        let blocks = pixels.div_ceil(MR);
        let units = s.batch * blocks;
        let columns = Columns::new(self, n_panels);
        // Tasks: ranges of (batch, pixel block) units times ranges of panels.
        let threads = rayon::current_num_threads();
        let work = (units * n_panels).saturating_mul(kq * QUAD_TILE_PICOSECONDS + TILE_PICOSECONDS);
        let tasks = if threads > 1 {
            (work / MIN_TASK_PICOSECONDS).clamp(1, 4 * threads)
        } else {
            1
        };
        // Each part of the units reads every weight panel of its tasks once; each
        // part of the panels reads the input once. Split the side whose re-reading
        // costs less: ResNet-18's 7x7 layers (2.4 MB of weights, 25 KB of input)
        // split by unit made every pixel block stream all the weights.
        let weight_bytes = n_panels * kq * NR * 4;
        let input_bytes = cl.bytes().len();
        let (unit_parts, panel_parts) = if weight_bytes > input_bytes {
            let panel_parts = n_panels.min(tasks);
            (units.min(tasks.div_ceil(panel_parts)), panel_parts)
        } else {
            let unit_parts = units.min(tasks);
            (unit_parts, n_panels.min(tasks.div_ceil(unit_parts)))
        };
        let shared = SharedOut::new(y);
        let plan = Plan {
            cl,
            panels,
            columns: &columns,
            shared: &shared,
            pixels,
            blocks,
            units,
            n_panels,
            panel_bytes: kq * NR * 4,
            unit_parts,
            panel_parts,
        };
        let run = |task: usize| {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the caller checked `usable`: the CPU has AVX-512 VNNI (and F,
            // BW, VL with it).
            unsafe {
                task_avx512(self, &plan, task)
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("the indirect convolution runs on x86-64 only: {task}")
        };
        if unit_parts * panel_parts == 1 {
            run(0);
        } else {
            (0..unit_parts * panel_parts).into_par_iter().for_each(run);
        }
    }

    /// Task `task` of `plan`: its units' pixel blocks against its panels, each tile
    /// requantized and stored channel by channel. Inlined into `task_avx512`, so the
    /// requantization is compiled for the instruction set.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn task(&self, plan: &Plan<E>, task: usize) {
        let Plan {
            pixels,
            blocks,
            units,
            n_panels,
            panel_bytes,
            ..
        } = *plan;
        let c_out = self.w.shape[0];
        let (up, pp) = (task / plan.panel_parts, task % plan.panel_parts);
        let (u0, u1) = (
            up * units / plan.unit_parts,
            (up + 1) * units / plan.unit_parts,
        );
        let (p0, p1) = (
            pp * n_panels / plan.panel_parts,
            (pp + 1) * n_panels / plan.panel_parts,
        );
        // Panels in groups that stay in cache while every unit's block passes.
        let hot = (HOT_PANEL_BYTES / panel_bytes.max(1)).max(1);
        let mut table = TapTable::default();
        let mut staged = [[E::Out::default(); NR]; MR];
        let mut columns = [[E::Out::default(); MR]; NR];
        for g0 in (p0..p1).step_by(hot) {
            for unit in u0..u1 {
                let (b, block) = (unit / blocks, unit % blocks);
                let first = block * MR;
                let rows = MR.min(pixels - first);
                self.tap_table(plan.cl, b, first, &mut table);
                for p in g0..(g0 + hot).min(p1) {
                    let panel = &plan.panels[p * panel_bytes..(p + 1) * panel_bytes];
                    // The tile's rows are finished from its registers.
                    let tile = multiply(plan.cl, &table, panel);
                    let cols = NR.min(c_out - p * NR);
                    for (r, &acc) in tile.iter().enumerate().take(rows) {
                        let (terms, col) = (RowTerms::default(), plan.columns.of(p));
                        // SAFETY: `task` runs inlined into `task_avx512`, which has
                        // avx512f.
                        unsafe { self.out.row_avx512(acc, terms, col, &mut staged[r]) };
                    }
                    E::transpose(&staged, &mut columns);
                    for (j, column) in columns.iter().enumerate().take(cols) {
                        let at = (b * c_out + p * NR + j) * pixels + first;
                        // SAFETY: (channel, these pixels) belong to this task alone.
                        let dest = unsafe { plan.shared.slice(at, rows) };
                        // A whole column as one fixed-size store (a copy of `rows`
                        // elements became a libc call per channel).
                        match <&mut [MaybeUninit<E::Out>; MR]>::try_from(&mut *dest) {
                            Ok(whole) => *whole = column.map(MaybeUninit::new),
                            Err(_) => {
                                for (d, &v) in dest.iter_mut().zip(column) {
                                    d.write(v);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// For pixels `first..first + MR` of batch `b`: per kernel tap, the byte offset in
    /// `cl` of each pixel's words at that tap, or of the zero point's words where the
    /// tap falls in the padding or the pixel is past the last. Built once per block and
    /// panel group, so it is kept cheap: one division per block (the pixels after the
    /// first step along the output), and for a block whose every tap is inside the
    /// input (most of a large plane) each offset is a pixel's plus a tap's.
    fn tap_table(&self, cl: &ChannelsLast, b: usize, first: usize, table: &mut TapTable) {
        let s = self.s;
        let [id, ih, iw] = s.input;
        let word = cl.cq * 4;
        let live = MR.min(s.pixels().saturating_sub(first));
        let base = b * id * ih * iw * word;
        let pad = cl.padding() * 4;
        if table.taps.is_empty() {
            table.taps = self.tap_offsets(word);
        }
        // The block after the last one starts where that one's walk ended: no
        // divisions (three per block were a tenth of the table's cost).
        let mut at = match table.after {
            Some((next, at)) if next == first => at,
            _ => s.output_at(first),
        };
        let mut origin = [[0isize; 3]; MR];
        for o in origin.iter_mut().take(live) {
            *o = s.window_origin(at);
            s.next_output(&mut at);
        }
        table.after = Some((first + live, at));
        let span = s.reach();
        let all_inside = live == MR
            && (0..3).all(|d| {
                origin
                    .iter()
                    .all(|o| o[d] >= 0 && o[d] + span[d] < s.input[d] as isize)
            });
        let taps = table.taps.len();
        let rows = &mut table.rows;
        rows.resize(taps, [0; MR]);
        if all_inside {
            let pixel: [usize; MR] = std::array::from_fn(|r| {
                let [t0, t1, t2] = origin[r].map(|v| v as usize);
                base + ((t0 * ih + t1) * iw + t2) * word
            });
            for (row, &tap) in rows.iter_mut().zip(&table.taps) {
                *row = pixel.map(|p| p + tap);
            }
            // The last tap lies furthest along each axis, so its offsets are the largest.
            let last = table.taps.last().copied().unwrap_or(0);
            let largest = pixel.iter().max().map_or(0, |&p| p + last);
            table.check(cl, largest);
        } else {
            // Near the padding: each pixel's words at `lin + tap offset` where the tap
            // lands inside the input along every axis (kernel indices `lo..hi`), else
            // the zero point's. Wrapping: with a large dilation a tap's offset can lie
            // far past the input, and no pixel then reads it.
            let lin: [isize; MR] = std::array::from_fn(|r| {
                let [t0, t1, t2] = origin[r];
                (base as isize).wrapping_add(
                    t0.wrapping_mul(ih as isize)
                        .wrapping_add(t1)
                        .wrapping_mul(iw as isize)
                        .wrapping_add(t2)
                        .wrapping_mul(word as isize),
                )
            });
            let ranges: [[(usize, usize); MR]; 3] = std::array::from_fn(|d| {
                std::array::from_fn(|r| {
                    if r < live {
                        // The kernel indices whose taps land inside the input.
                        inside(origin[r][d], s.dilation[d], s.input[d], s.kernel[d])
                    } else {
                        (0, 0)
                    }
                })
            });
            let [kd, kh, kw] = s.kernel;
            let within =
                |d: usize, r: usize, k: usize| (ranges[d][r].0..ranges[d][r].1).contains(&k);
            let mut t = 0;
            for a in 0..kd {
                for c in 0..kh {
                    for e in 0..kw {
                        let tap = table.taps[t] as isize;
                        rows[t] = std::array::from_fn(|r| {
                            if within(0, r, a) && within(1, r, c) && within(2, r, e) {
                                lin[r].wrapping_add(tap) as usize
                            } else {
                                pad
                            }
                        });
                        t += 1;
                    }
                }
            }
            let largest = rows.iter().flatten().max().copied().unwrap_or(0);
            table.check(cl, largest);
        }
    }

    /// Each kernel tap's byte offset from its window's origin in the channels-last
    /// input, in the taps' order (depth, row, column).
    fn tap_offsets(&self, word: usize) -> Vec<usize> {
        let s = self.s;
        let [_, ih, iw] = s.input;
        let [kd, kh, kw] = s.kernel;
        let mut taps = Vec::with_capacity(kd * kh * kw);
        for a in 0..kd {
            for c in 0..kh {
                for e in 0..kw {
                    // Wrapping: see the border case of `tap_table`.
                    let position = (a.wrapping_mul(s.dilation[0]).wrapping_mul(ih))
                        .wrapping_add(c.wrapping_mul(s.dilation[1]))
                        .wrapping_mul(iw)
                        .wrapping_add(e.wrapping_mul(s.dilation[2]));
                    taps.push(position.wrapping_mul(word));
                }
            }
        }
        taps
    }
}

/// Per kernel tap, the byte offset in the channels-last input of each pixel's words,
/// checked against the input once per block rather than per tile.
#[derive(Default)]
struct TapTable {
    rows: Vec<[usize; MR]>,
    /// Each tap's offset from its window's origin (`tap_offsets`), found once a task.
    taps: Vec<usize>,
    /// The first pixel after the last table's block, and its output position.
    after: Option<(usize, [usize; 3])>,
    /// Bytes past the largest offset that a tap's words fit in (0 before `check`).
    reach: usize,
}

impl TapTable {
    /// Panics unless every tap's words lie inside `cl`, given the `largest` offset of
    /// the table (the offsets are computed from its positions, so they do), which
    /// `multiply`'s raw reads rely on.
    fn check(&mut self, cl: &ChannelsLast, largest: usize) {
        let end = largest + cl.cq * 4;
        assert!(end <= cl.bytes().len(), "tap offset past the input");
        self.reach = end;
    }
}

/// What every task of one call shares.
struct Plan<'a, E: Epilogue> {
    cl: &'a ChannelsLast,
    panels: &'a [u8],
    columns: &'a Columns,
    shared: &'a SharedOut<MaybeUninit<E::Out>>,
    /// Output pixels per batch, blocks of `MR` of them, (batch, block) units, panels
    /// of `NR` output channels and the bytes of one.
    pixels: usize,
    blocks: usize,
    units: usize,
    n_panels: usize,
    panel_bytes: usize,
    /// Tasks: `unit_parts` ranges of (batch, pixel block) units times `panel_parts`
    /// ranges of panels.
    unit_parts: usize,
    panel_parts: usize,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn task_avx512<E: Epilogue>(job: &Job<'_, E>, plan: &Plan<E>, task: usize) {
    job.task(plan, task)
}

/// Per panel of output channels, the column terms of the requantization: each
/// channel's offset (bias and zero-point terms), multiplier and float bias, zero past
/// the last channel.
struct Columns {
    offsets: Vec<[i32; NR]>,
    multipliers: Vec<[f32; NR]>,
    bias: Option<Vec<[f32; NR]>>,
}

impl Columns {
    fn new<E: Epilogue>(job: &Job<'_, E>, n_panels: usize) -> Columns {
        fn padded<T: Copy + Default>(values: &[T], n_panels: usize) -> Vec<[T; NR]> {
            let mut out = vec![[T::default(); NR]; n_panels];
            for (i, &v) in values.iter().enumerate() {
                out[i / NR][i % NR] = v;
            }
            out
        }
        Columns {
            offsets: padded(job.offsets, n_panels),
            multipliers: padded(job.multipliers, n_panels),
            bias: (!job.float_bias.is_empty()).then(|| padded(job.float_bias, n_panels)),
        }
    }

    fn of(&self, p: usize) -> ColTerms<'_> {
        ColTerms {
            offset: Some(&self.offsets[p]),
            multiplier: Some(&self.multipliers[p]),
            bias: self.bias.as_ref().map(|b| &b[p]),
            ..Default::default()
        }
    }
}

/// Pixel r's sums in `result[r]`: Σ over taps t and quads q of its word q at
/// `table[t][r]` against panel column j, in lane j.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn multiply(cl: &ChannelsLast, table: &TapTable, panel: &[u8]) -> Sums {
    let cq = cl.cq;
    let bytes = cl.bytes();
    let rows = &table.rows;
    assert!(
        panel.len() >= rows.len() * cq * NR * 4,
        "weight panel shorter than the taps"
    );
    assert!(
        !rows.is_empty() && table.reach <= bytes.len() && table.reach > 0,
        "tap table not checked against this input"
    );
    // SAFETY: the caller checked `usable` (AVX-512 VNNI) and runs inlined into
    // `task_avx512`; `TapTable::check` and the asserts above keep every read inside
    // `bytes` and `panel`.
    unsafe { multiply_avx512(bytes.as_ptr(), rows, cq, panel.as_ptr()) }
}

/// # Safety
/// The CPU has AVX-512 VNNI and the caller is compiled with it (this is inlined); for
/// every offset o of `table`, `base[o..o + 4·cq]` is readable, and `rhs` holds
/// `table.len()·cq` quads of NR columns.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn multiply_avx512(
    base: *const u8,
    table: &[[usize; MR]],
    cq: usize,
    rhs: *const u8,
) -> Sums {
    use std::arch::x86_64::*;
    const _: () = assert!(NR == 32);
    // SAFETY: the caller has the features.
    let mut acc = [[unsafe { _mm512_setzero_si512() }; 2]; MR];
    let mut rhs = rhs;
    for tap in table {
        // SAFETY: each offset is inside the input (the caller's promise).
        let rows: [*const u8; MR] = std::array::from_fn(|r| unsafe { base.add(tap[r]) });
        for q in 0..cq {
            // SAFETY: this quad's panel row is inside `rhs`; each pixel's word q is
            // inside the input.
            unsafe {
                let r0 = _mm512_loadu_si512(rhs as *const _);
                let r1 = _mm512_loadu_si512(rhs.add(64) as *const _);
                rhs = rhs.add(NR * 4);
                for (a, row) in acc.iter_mut().zip(&rows) {
                    let l = _mm512_set1_epi32((row.add(q * 4) as *const i32).read_unaligned());
                    a[0] = _mm512_dpbusd_epi32(a[0], l, r0);
                    a[1] = _mm512_dpbusd_epi32(a[1], l, r1);
                }
            }
        }
    }
    acc
}
