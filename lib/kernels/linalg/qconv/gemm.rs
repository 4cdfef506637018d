//! The dense and grouped convolution as a GEMM: work items of (batch, group, block of
//! pixel panels, part of the output channels), each packing its block by im2col and
//! running `qgemm`'s tiles over it, every tile requantized as it comes. Each item runs
//! compiled for the instruction set, so packing and requantization are too.

use rayon::prelude::*;

use super::super::qdriver::SharedOut;
use super::super::qgemm::requant::{ColTerms, Epilogue, RowTerms};
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
        // Enough blocks for every thread, each at most 8 panels. Each block reads all
        // of the group's weights once; weights too large to stay near the core are
        // read again for every block, so those take at least 4 panels a block and let
        // the channel splits below share the work (ResNet-18's 3x3 convolutions over
        // 256 channels at 14x14, 590 KB of weights: 0.27 ms with 2 panels a block,
        // 0.23-0.25 with 4 or 7, and twice as slow with one, at 1 thread).
        let threads = rayon::current_num_threads();
        let mut per_block = (panels / (4 * threads)).clamp(1, 8);
        // Fewer than 8 panels a thread: one-panel blocks would have every block
        // stream the weights again, so each thread takes one block (YOLOv8n's 3x3
        // convolutions over 128 channels at 20x20, 13 panels: 0.29-0.31 -> 0.23-0.27
        // ms at 2 threads, six interleaved rounds).
        if per_block == 1 && threads > 1 && panels > threads {
            per_block = panels.div_ceil(threads).min(8);
        }
        if w.packed.len() / w.groups.max(1) > LARGE_WEIGHTS {
            per_block = per_block.max(panels.min(4));
        }
        let blocks = panels.div_ceil(per_block);
        // Few pixels and many channels (late layers): split the channels too, so every
        // thread has work.
        let row_blocks = qgemm::padded_rows(w.per_group) / MR;
        let units = s.batch * w.groups * blocks;
        let splits = (4 * threads).div_ceil(units).clamp(1, row_blocks.max(1));
        let mut g = Gemm {
            job: self,
            taps: self.taps(),
            per_block,
            blocks,
            splits,
            need_sums: w.zeros.iter().any(|&z| z != 0),
            shared: SharedOut::new(y),
            packed: None,
        };
        if splits > 1 {
            // Every split of a block reads the same panels: pack each block once, all
            // of them first, rather than once per split. Few pixels make them small.
            // The buffers of an earlier call on this thread, when large enough: zeroing
            // half a megabyte for every call was 5 % of YOLOv8n's 3x3 convolutions
            // at 20x20 (and fresh huge pages faulted in). Packing writes every byte
            // the multiplication reads.
            let Packed {
                mut panels,
                mut sums,
            } = PREPACKED.take();
            panels.fit_unzeroed(units * g.block_bytes());
            sums.resize(units * per_block * NR, 0);
            let pack = PackBlocks {
                g: &g,
                panels: SharedOut::new(&mut panels),
                sums: SharedOut::new(&mut sums),
            };
            (0..units)
                .into_par_iter()
                .for_each(|unit| run_item(&pack, unit));
            g.packed = Some(Packed { panels, sums });
        }
        (0..units * splits)
            .into_par_iter()
            .for_each(|item| run_item(&g, item));
        if let Some(packed) = g.packed {
            PREPACKED.set(packed);
        }
    }
}

thread_local! {
    /// `Gemm::packed`'s buffers between calls on the thread that runs the convolution.
    static PREPACKED: std::cell::Cell<Packed> = const {
        std::cell::Cell::new(Packed {
            panels: qgemm::Aligned::new(),
            sums: Vec::new(),
        })
    };
}

/// Bytes of one group's packed weights above which a block takes several panels.
const LARGE_WEIGHTS: usize = 256 << 10;

/// One work item, run by `run_item` compiled for the instruction set: inlined into each
/// instruction set's wrapper, so packing and requantization are compiled for it too.
trait Item: Sync {
    fn k(&self) -> usize;
    fn per_block(&self) -> usize;
    fn isa(&self) -> Isa;
    fn run(&self, scratch: &mut Scratch, item: usize);
}

/// Runs `item` of `work` with this thread's scratch buffers, compiled for the
/// instruction set.
fn run_item<I: Item>(work: &I, item: usize) {
    SCRATCH.with_borrow_mut(|scratch| {
        scratch.fit(work.k(), work.per_block());
        match work.isa() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the instruction set was detected on this CPU.
            Isa::Avx512Vnni if work.isa().available() => unsafe {
                item_avx512(work, scratch, item)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Isa::Avx2 if work.isa().available() => unsafe { item_avx2(work, scratch, item) },
            _ => work.run(scratch, item),
        }
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn item_avx512<I: Item>(work: &I, scratch: &mut Scratch, item: usize) {
    work.run(scratch, item)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn item_avx2<I: Item>(work: &I, scratch: &mut Scratch, item: usize) {
    work.run(scratch, item)
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
    /// Every block's panels and column sums, packed ahead when the channels are split;
    /// `None` when each item packs its own block.
    packed: Option<Packed>,
}

/// The panels and column sums of every (batch, group, block), `per_block` panels each.
#[derive(Default)]
struct Packed {
    panels: qgemm::Aligned,
    sums: Vec<i32>,
}

/// Where `Job::pack` writes: four tap rows of `sums.len()` bytes, the panels, and each
/// column's sum.
pub(super) struct Target<'a> {
    pub(super) rows: &'a mut [u8],
    pub(super) panels: &'a mut [u8],
    pub(super) sums: &'a mut [i32],
}

impl<E: Epilogue> Gemm<'_, E> {
    /// (batch, group, block) of a unit: `(b · groups + group) · blocks + block`.
    fn unit(&self, unit: usize) -> (usize, usize, usize) {
        let groups = self.job.w.groups;
        let block = unit % self.blocks;
        (
            unit / self.blocks / groups,
            (unit / self.blocks) % groups,
            block,
        )
    }

    /// The first pixel column of a block and how many columns it has.
    fn columns(&self, block: usize) -> (usize, usize) {
        let first = block * self.per_block * NR;
        (first, (self.per_block * NR).min(self.job.columns() - first))
    }
}

/// Packs every block ahead, into the buffers of `Gemm::packed`: one block per item.
struct PackBlocks<'a, 'g, E: Epilogue> {
    g: &'a Gemm<'g, E>,
    panels: SharedOut<u8>,
    sums: SharedOut<i32>,
}

impl<E: Epilogue> Item for PackBlocks<'_, '_, E> {
    fn k(&self) -> usize {
        self.g.job.w.k
    }
    fn per_block(&self) -> usize {
        self.g.per_block
    }
    fn isa(&self) -> Isa {
        self.g.job.isa
    }
    #[inline(always)]
    fn run(&self, scratch: &mut Scratch, unit: usize) {
        let g = self.g;
        let (b, group, block) = g.unit(unit);
        let (first, count) = g.columns(block);
        let width = g.per_block * NR;
        // SAFETY: unit `unit` alone owns its block of panels and sums.
        let (panels, sums) = unsafe {
            (
                self.panels.slice(unit * g.block_bytes(), g.block_bytes()),
                self.sums.slice(unit * width, width),
            )
        };
        let target = Target {
            rows: &mut scratch.rows,
            panels,
            sums,
        };
        g.job
            .pack(b, group, first, count, &g.taps, target, g.need_sums);
    }
}

impl<E: Epilogue> Item for Gemm<'_, E> {
    fn k(&self) -> usize {
        self.job.w.k
    }
    fn per_block(&self) -> usize {
        self.per_block
    }
    fn isa(&self) -> Isa {
        self.job.isa
    }
    /// One block of pixel panels of one (batch, group) against one split of the
    /// group's rows: im2col of the block (unless packed ahead), then every row block
    /// of the split against every panel, each tile requantized as it comes.
    #[inline(always)]
    fn run(&self, scratch: &mut Scratch, item: usize) {
        let (split, unit) = (item % self.splits, item / self.splits);
        let (b, group, block) = self.unit(unit);
        let (first, count) = self.columns(block);
        let width = self.per_block * NR;
        let Scratch {
            rows,
            panels,
            sums,
            tiles,
            ..
        } = scratch;
        let (panels, sums): (&[u8], &[i32]) = match &self.packed {
            Some(p) => (
                &p.panels[unit * self.block_bytes()..][..self.block_bytes()],
                &p.sums[unit * width..][..width],
            ),
            None => {
                let target = Target { rows, panels, sums };
                self.job
                    .pack(b, group, first, count, &self.taps, target, self.need_sums);
                (panels, sums)
            }
        };
        self.multiply(b, group, first, count, split, panels, sums, tiles);
    }
}

impl<E: Epilogue> Gemm<'_, E> {
    /// Bytes of one block's panels.
    fn block_bytes(&self) -> usize {
        self.per_block * qgemm::quads(self.job.w.k) * NR * 4
    }

    /// Split `split` of group `group`'s row blocks against the block's `panels` (its
    /// columns `first..first+count`), each tile requantized into the output.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn multiply(
        &self,
        b: usize,
        group: usize,
        first: usize,
        count: usize,
        split: usize,
        panels: &[u8],
        sums: &[i32],
        tiles: &mut [qgemm::Tile; 4],
    ) {
        let job = self.job;
        let (s, w) = (job.s, job.w);
        let pixels = s.pixels();
        let kq = qgemm::quads(w.k);
        let rows = qgemm::padded_rows(w.per_group);
        let stride = w.stride;
        let row_blocks = rows / MR;
        let part = row_blocks.div_ceil(self.splits);
        let lhs = &w.packed[group * rows * stride..(group + 1) * rows * stride];
        let avx512 = job.isa == Isa::Avx512Vnni && job.isa.available();
        let four = qgemm::prefers_tiles4(job.isa);
        let (mut first_block, end_block) = (split * part, row_blocks.min((split + 1) * part));
        while first_block < end_block {
            // Up to four tiles at once where the tiles prefer it: AMX takes four, and
            // AVX2 widens the panel once for however many the split has left.
            let blocks = if four {
                (end_block - first_block).min(4)
            } else {
                1
            };
            for p in 0..count.div_ceil(NR) {
                let panel = &panels[p * kq * NR * 4..(p + 1) * kq * NR * 4];
                let lhs = &lhs[first_block * MR * stride..];
                qgemm::tiles(
                    job.isa,
                    Signs::SignedLhs,
                    lhs,
                    stride,
                    panel,
                    kq,
                    &mut tiles[..blocks],
                );
                let cols = NR.min(count - p * NR);
                let sums = sums[p * NR..(p + 1) * NR].first_chunk::<NR>();
                let column = first + p * NR;
                // Where the panel's columns go in a channel's output plane, found once
                // for the tile's rows (a division per run would cost as much as them).
                let mut runs = [(0usize, 0usize, 0usize); NR];
                let mut run_count = 0usize;
                if let Some(padded) = &job.padded {
                    // Each padded row's first `output width` columns are pixels.
                    let (width, ow) = (padded.width, s.output[2]);
                    let (mut y, mut x) = (column / width, column % width);
                    let mut j = 0;
                    while j < cols {
                        let run = (width - x).min(cols - j);
                        if x < ow {
                            let (at, n) = (y * ow + x, (ow - x).min(run));
                            // A run that goes on where the last one ended (no padding
                            // columns between rows: a 1x1 or unpadded convolution)
                            // extends it, so such panels are written in place.
                            match run_count.checked_sub(1).map(|i| &mut runs[i]) {
                                Some((j0, at0, n0)) if *j0 + *n0 == j && *at0 + *n0 == at => {
                                    *n0 += n;
                                }
                                _ => {
                                    runs[run_count] = (j, at, n);
                                    run_count += 1;
                                }
                            }
                        }
                        j += run;
                        (y, x) = (y + 1, 0);
                    }
                }
                // One run of the whole panel is written in place like an unpadded one.
                let whole = match runs[..run_count] {
                    [(0, at, n)] if n == cols => Some(at),
                    _ => None,
                };
                let col = ColTerms {
                    sum: sums.filter(|_| self.need_sums),
                    ..Default::default()
                };
                let direct = if job.padded.is_none() {
                    Some(column)
                } else {
                    whole
                };
                for (row_block, tile) in (first_block..).zip(&tiles[..blocks]) {
                    // The tile's channels and their terms, sliced (and the output
                    // range checked) once per tile rather than per row: about 1 % of a
                    // 1x1 convolution over 64 channels at 56x56, whose rows are short.
                    let m0 = row_block * MR;
                    let n = MR.min(w.per_group.saturating_sub(m0));
                    let c0 = group * w.per_group + m0;
                    let channels = c0..c0 + n;
                    let offsets = &job.offsets[channels.clone()];
                    let zeros = &w.zeros[channels.clone()];
                    let multipliers = &job.multipliers[channels.clone()];
                    let biases = job.float_bias.get(channels.clone());
                    let plane0 = (b * w.shape[0] + c0) * pixels;
                    if let Some(at) = direct {
                        let end = plane0 + n.saturating_sub(1) * pixels + at + cols;
                        assert!(
                            n == 0 || end <= self.shared.len(),
                            "tile rows past the output"
                        );
                    }
                    for r in 0..n {
                        let terms = RowTerms {
                            offset: offsets[r],
                            zero: zeros[r],
                            sum: 0,
                            multiplier: multipliers[r],
                            bias: biases.map_or(0.0, |b| b[r]),
                        };
                        let plane = plane0 + r * pixels;
                        let acc = &tile[r];
                        match direct {
                            Some(at) => {
                                // SAFETY: (channel, these pixels) belong to this item
                                // alone, inside the output by the assert above.
                                let dest = unsafe { self.shared.slice_unchecked(plane + at, cols) };
                                job.out.row(acc, terms, col, dest);
                            }
                            None => {
                                let mut q = [E::Out::default(); NR];
                                job.out.row(acc, terms, col, &mut q);
                                for &(j, at, n) in &runs[..run_count] {
                                    // SAFETY: (channel, these pixels) belong to this item.
                                    let dest = unsafe { self.shared.slice(plane + at, n) };
                                    E::copy_lanes(&q, j, dest, avx512);
                                }
                            }
                        }
                    }
                }
            }
            first_block += blocks;
        }
    }
}

/// Per-worker buffers of `gemm`: four tap rows, the packed panels, column sums.
pub(super) struct Scratch {
    pub(super) rows: Vec<u8>,
    pub(super) panels: qgemm::Aligned,
    pub(super) sums: Vec<i32>,
    pub(super) tiles: [qgemm::Tile; 4],
}

thread_local! {
    /// Reused across calls: the buffers are rewritten before each read.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            rows: Vec::new(),
            panels: qgemm::Aligned::new(),
            sums: Vec::new(),
            tiles: [[[0; NR]; MR]; 4],
        })
    };
}

impl Scratch {
    /// Sizes the buffers for `panels` panels of K = `k`.
    fn fit(&mut self, k: usize, panels: usize) {
        self.rows.resize(4 * panels * NR, 0);
        self.panels.resize(panels * qgemm::quads(k) * NR * 4);
        self.sums.resize(panels * NR, 0);
    }
}
