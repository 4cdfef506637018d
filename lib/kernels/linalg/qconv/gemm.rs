//! The dense and grouped convolution as a GEMM: work items of (batch, group, block of
//! pixel panels, part of the output channels), each packing its block by im2col and
//! running `qgemm`'s tiles over it, every tile requantized as it comes. Each item runs
//! compiled for the instruction set, so packing and requantization are too.

use rayon::prelude::*;

use super::super::qdriver::SharedOut;
use super::super::qgemm::requant::{self, ColTerms, Epilogue, RowTerms};
use super::super::qgemm::{self, MR, NR, Signs};
use super::Job;
use super::im2col::Tap;
use crate::kernels::isa::Isa;

impl<E: Epilogue> Job<'_, E> {
    /// Grouped or dense convolution: each work item packs a block of panels of `NR`
    /// output pixels (im2col, padded positions holding the zero point) and multiplies
    /// every output channel of its group against them.
    pub(super) fn gemm(&self, y: &mut [E::Out]) {
        let (s, w) = (self.s, self.w);
        let panels = self.columns().div_ceil(NR);
        // Enough blocks for every thread, each at most 8 panels.
        let threads = rayon::current_num_threads();
        let per_block = (panels / (4 * threads)).clamp(1, 8);
        let blocks = panels.div_ceil(per_block);
        // Few pixels and many channels (late layers): split the channels too, each
        // split packing the block again, so every thread has work.
        let row_blocks = qgemm::padded_rows(w.per_group) / MR;
        let units = s.batch * w.groups * blocks;
        let splits = (4 * threads).div_ceil(units).clamp(1, row_blocks.max(1));
        let g = Gemm {
            job: self,
            taps: self.taps(),
            per_block,
            blocks,
            splits,
            need_sums: w.zeros.iter().any(|&z| z != 0),
            shared: SharedOut::new(y),
        };
        let items = units * splits;
        (0..items).into_par_iter().for_each(|item| {
            SCRATCH.with_borrow_mut(|scratch| {
                scratch.fit(w.k, per_block);
                match self.isa {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: the instruction set was detected on this CPU.
                    Isa::Avx512Vnni if self.isa.available() => unsafe {
                        gemm_item_avx512(&g, scratch, item)
                    },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as above.
                    Isa::Avx2 if self.isa.available() => unsafe {
                        gemm_item_avx2(&g, scratch, item)
                    },
                    _ => gemm_item(&g, scratch, item),
                }
            })
        });
    }
}

/// What every work item of `Job::gemm` shares.
struct Gemm<'a, E: Epilogue> {
    job: &'a Job<'a, E>,
    taps: Vec<Tap>,
    per_block: usize,
    blocks: usize,
    /// How many parts the group's output channels are split into.
    splits: usize,
    need_sums: bool,
    shared: SharedOut<E::Out>,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn gemm_item_avx512<E: Epilogue>(g: &Gemm<E>, scratch: &mut Scratch, item: usize) {
    gemm_item(g, scratch, item)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gemm_item_avx2<E: Epilogue>(g: &Gemm<E>, scratch: &mut Scratch, item: usize) {
    gemm_item(g, scratch, item)
}

/// One block of pixel panels of one (batch, group): im2col, then every row block of
/// the group's weights against every panel, each tile requantized as it comes.
/// Inlined into each instruction set's wrapper, so packing and requantization are
/// compiled for it too.
#[inline(always)]
fn gemm_item<E: Epilogue>(g: &Gemm<E>, scratch: &mut Scratch, item: usize) {
    let job = g.job;
    let (s, w) = (job.s, job.w);
    let pixels = s.pixels();
    let columns = job.columns();
    let kq = qgemm::quads(w.k);
    let rows = qgemm::padded_rows(w.per_group);
    let stride = kq * 4;
    let (split, item) = (item % g.splits, item / g.splits);
    let block = item % g.blocks;
    let group = (item / g.blocks) % w.groups;
    let b = item / g.blocks / w.groups;
    let row_blocks = rows / MR;
    let part = row_blocks.div_ceil(g.splits);
    let first = block * g.per_block * NR;
    let count = (g.per_block * NR).min(columns - first);
    job.pack(b, group, first, count, &g.taps, scratch, g.need_sums);
    let lhs = &w.packed[group * rows * stride..(group + 1) * rows * stride];
    for row_block in split * part..row_blocks.min((split + 1) * part) {
        for p in 0..count.div_ceil(NR) {
            let panel = &scratch.panels[p * kq * NR * 4..(p + 1) * kq * NR * 4];
            let tile = &mut scratch.tile;
            qgemm::tile(
                job.isa,
                Signs::SignedLhs,
                &lhs[row_block * MR * stride..],
                stride,
                panel,
                kq,
                tile,
            );
            let cols = NR.min(count - p * NR);
            let sums = scratch.sums[p * NR..(p + 1) * NR].first_chunk::<NR>();
            for (r, acc) in tile.iter().enumerate() {
                let m = row_block * MR + r;
                if m >= w.per_group {
                    break;
                }
                let channel = group * w.per_group + m;
                let plane = (b * w.shape[0] + channel) * pixels;
                let terms = RowTerms {
                    offset: job.offsets[channel],
                    zero: w.zeros[channel],
                    sum: 0,
                    multiplier: job.multipliers[channel],
                    bias: job.float_bias.get(channel).copied().unwrap_or(0.0),
                };
                let col = ColTerms {
                    sum: sums.filter(|_| g.need_sums),
                    ..Default::default()
                };
                let column = first + p * NR;
                match &job.padded {
                    None => {
                        // SAFETY: (channel, these pixels) belong to this item alone.
                        let dest = unsafe { g.shared.slice(plane + column, cols) };
                        job.out.row(acc, terms, col, dest);
                    }
                    Some(padded) => {
                        let mut q = [E::Out::default(); NR];
                        job.out.row(acc, terms, col, &mut q);
                        // Each padded row's first `output width` columns are pixels.
                        let (width, ow) = (padded.width, s.output[2]);
                        let mut j = 0;
                        while j < cols {
                            let (y, x) = ((column + j) / width, (column + j) % width);
                            let run = (width - x).min(cols - j);
                            if x < ow {
                                let n = (ow - x).min(run);
                                // SAFETY: (channel, these pixels) belong to this item.
                                let dest = unsafe { g.shared.slice(plane + y * ow + x, n) };
                                requant::small_copy(dest, &q[j..j + n]);
                            }
                            j += run;
                        }
                    }
                }
            }
        }
    }
}

/// Per-worker buffers of `gemm`: four tap rows, the packed panels, column sums.
pub(super) struct Scratch {
    pub(super) width: usize,
    pub(super) rows: Vec<u8>,
    pub(super) panels: Vec<u8>,
    pub(super) sums: Vec<i32>,
    pub(super) tile: qgemm::Tile,
}

thread_local! {
    /// Reused across calls: the buffers are rewritten before each read.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            width: 0,
            rows: Vec::new(),
            panels: Vec::new(),
            sums: Vec::new(),
            tile: [[0; NR]; MR],
        })
    };
}

impl Scratch {
    /// Sizes the buffers for `panels` panels of K = `k`.
    fn fit(&mut self, k: usize, panels: usize) {
        self.width = panels * NR;
        self.rows.resize(4 * self.width, 0);
        self.panels.resize(panels * qgemm::quads(k) * NR * 4, 0);
        self.sums.resize(self.width, 0);
    }
}
