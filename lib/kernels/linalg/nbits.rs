//! A float matmul with a block-quantized 4- or 8-bit weight (com.microsoft
//! MatMulNBits' arithmetic): `y[m, n] = Σ_k a[m, k] · (code[n, k] - zp[n, k/block]) ·
//! scale[n, k/block]`, accumulated in f32.
//!
//! The weight stays packed (ONNX Runtime's layout: per column n of the output, its
//! k_blocks blocks, codes low-first, two per byte at 4 bits). The GEMM takes
//! `TILE_N` columns at a time, unpacks their codes into an L1-sized buffer of floats
//! (`(code - zp) · scale`, exact but for the one rounding of the product), and runs
//! every row of a against that tile: the float weight matrix is never built, and each
//! column is unpacked once per call whatever the number of rows (M = 1 decode or M > 1
//! prompt).
//!
//! Results do not depend on the instruction set: the AVX2 path and the portable one
//! sum in the same order (eight lanes of fused multiply-adds, then `reduce8`, then the
//! tail), and an FMA rounds exactly like `f32::mul_add`.

use std::sync::Arc;

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::kernels::isa::Isa;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Prepared, args};

/// Output columns unpacked and multiplied together.
const TILE_N: usize = 4;
/// Lanes of one accumulator (one AVX2 register of f32).
const LANES: usize = 8;

/// A packed weight, checked once.
#[derive(Clone, Debug)]
pub struct NbitsWeights {
    pub k: usize,
    pub n: usize,
    pub bits: usize,
    pub block: usize,
    /// `n · k_blocks · block · bits / 8` bytes of `Data::U8`, shared with the plan's
    /// constant (the codes are held once however many kernels read them).
    packed: Arc<Tensor>,
    /// One per block, `[n, k_blocks]`.
    pub scales: Vec<f32>,
    /// One code per block, `[n, k_blocks]`.
    pub zero_points: Vec<u8>,
}

impl NbitsWeights {
    pub fn new(
        (k, n, bits, block): (usize, usize, usize, usize),
        packed: Arc<Tensor>,
        scales: Vec<f32>,
        zero_points: Vec<u8>,
    ) -> Result<NbitsWeights> {
        let Data::U8(codes) = &packed.data else {
            bail!("matmul_nbits: the packed codes must be uint8");
        };
        let packed_len = codes.len();
        if !matches!(bits, 4 | 8) {
            bail!("matmul_nbits: bits {bits} is not supported (4 and 8 are)");
        }
        if block == 0 || block % 16 != 0 {
            bail!("matmul_nbits: block size {block} is not a multiple of 16");
        }
        if k == 0 || n == 0 {
            bail!("matmul_nbits: K={k} and N={n} must not be 0");
        }
        let blocks = k.div_ceil(block);
        let want = n
            .checked_mul(blocks)
            .and_then(|r| r.checked_mul(block * bits / 8));
        if want != Some(packed_len) {
            bail!(
                "matmul_nbits: {packed_len} packed bytes for K={k} N={n} bits={bits} block={block}"
            );
        }
        if scales.len() != n * blocks || zero_points.len() != n * blocks {
            bail!(
                "matmul_nbits: {} scales and {} zero points, expected N·k_blocks = {}",
                scales.len(),
                zero_points.len(),
                n * blocks
            );
        }
        Ok(NbitsWeights {
            k,
            n,
            bits,
            block,
            packed,
            scales,
            zero_points,
        })
    }

    pub fn k_blocks(&self) -> usize {
        self.k.div_ceil(self.block)
    }

    fn codes(&self) -> &[u8] {
        match &self.packed.data {
            Data::U8(c) => c,
            // `new` refuses any other type.
            _ => &[],
        }
    }

    fn column_bytes(&self) -> usize {
        self.k_blocks() * self.block * self.bits / 8
    }

    /// Column `n`'s weights, `k_blocks · block` floats (past K: the padding codes).
    fn unpack_column(&self, isa: Isa, n: usize, out: &mut [f32]) {
        let blob = self.block * self.bits / 8;
        let col = &self.codes()[n * self.column_bytes()..(n + 1) * self.column_bytes()];
        for j in 0..self.k_blocks() {
            let p = n * self.k_blocks() + j;
            let (scale, zero) = (self.scales[p], self.zero_points[p] as f32);
            let codes = &col[j * blob..(j + 1) * blob];
            let dst = &mut out[j * self.block..(j + 1) * self.block];
            #[cfg(target_arch = "x86_64")]
            if isa.includes(Isa::Avx2) {
                // SAFETY: the CPU has AVX2 (checked by `Isa`); the slices have the
                // lengths `unpack_block_avx2` reads and writes (block a multiple of 16).
                unsafe { unpack_block_avx2(codes, self.bits, scale, zero, dst) };
                continue;
            }
            let _ = isa;
            unpack_block(codes, self.bits, scale, zero, dst);
        }
    }
}

/// One block's codes as `(code - zero) · scale`.
fn unpack_block(codes: &[u8], bits: usize, scale: f32, zero: f32, out: &mut [f32]) {
    if bits == 8 {
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = (c as f32 - zero) * scale;
        }
        return;
    }
    for (pair, &byte) in out.chunks_exact_mut(2).zip(codes) {
        pair[0] = ((byte & 15) as f32 - zero) * scale;
        pair[1] = ((byte >> 4) as f32 - zero) * scale;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn unpack_block_avx2(codes: &[u8], bits: usize, scale: f32, zero: f32, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let (s, z) = (_mm256_set1_ps(scale), _mm256_set1_ps(zero));
    let len = out.len();
    let dst = out.as_mut_ptr();
    // Each store writes the 8 floats at `at`, with at + 8 ≤ out.len() (the callers'
    // steps; out.len() is a multiple of 16).
    let store = |bytes: __m128i, at: usize| {
        let v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
        // SAFETY: at + 8 ≤ len, and `dst` is `out`'s, borrowed mutably for the call.
        unsafe { _mm256_storeu_ps(dst.add(at), _mm256_mul_ps(_mm256_sub_ps(v, z), s)) };
    };
    if bits == 8 {
        for i in (0..len).step_by(8) {
            // SAFETY: 8 codes from i, and `codes` holds len ≥ i + 8 of them.
            let b = unsafe { _mm_loadl_epi64(codes.as_ptr().add(i) as *const __m128i) };
            store(b, i);
        }
        return;
    }
    let low = _mm_set1_epi8(15);
    for i in (0..len).step_by(16) {
        // 8 bytes = 16 codes, low nibble first: interleave the low and high nibbles.
        // SAFETY: bytes i/2 .. i/2 + 8, and `codes` holds len/2 ≥ i/2 + 8 bytes.
        let b = unsafe { _mm_loadl_epi64(codes.as_ptr().add(i / 2) as *const __m128i) };
        let lo = _mm_and_si128(b, low);
        let hi = _mm_and_si128(_mm_srli_epi16(b, 4), low);
        let codes16 = _mm_unpacklo_epi8(lo, hi);
        store(codes16, i);
        store(_mm_srli_si128(codes16, 8), i + 8);
    }
}

/// The horizontal sum of the eight lanes, in one fixed order for every path.
fn reduce8(l: [f32; LANES]) -> f32 {
    ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

/// `a · w_c` for the `TILE_N` columns `w_c = w[c·stride ..][..a.len()]`.
fn dot_tile(isa: Isa, a: &[f32], w: &[f32], stride: usize) -> [f32; TILE_N] {
    let k = a.len();
    let full = k - k % LANES;
    let mut lanes = [[0f32; LANES]; TILE_N];
    #[cfg(target_arch = "x86_64")]
    if isa.includes(Isa::Avx2) {
        // SAFETY: AVX2 and FMA are present (checked by `Isa`); `w` holds TILE_N
        // columns of `stride ≥ k` floats.
        unsafe { dot_tile_avx2(a, w, stride, full, &mut lanes) };
    } else {
        dot_tile_portable(a, w, stride, full, &mut lanes);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        dot_tile_portable(a, w, stride, full, &mut lanes);
    }
    let mut out = [0f32; TILE_N];
    for (c, o) in out.iter_mut().enumerate() {
        let mut s = reduce8(lanes[c]);
        for i in full..k {
            s = a[i].mul_add(w[c * stride + i], s);
        }
        *o = s;
    }
    out
}

fn dot_tile_portable(
    a: &[f32],
    w: &[f32],
    stride: usize,
    full: usize,
    lanes: &mut [[f32; LANES]; TILE_N],
) {
    for i in (0..full).step_by(LANES) {
        for (c, acc) in lanes.iter_mut().enumerate() {
            for (l, v) in acc.iter_mut().enumerate() {
                *v = a[i + l].mul_add(w[c * stride + i + l], *v);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_tile_avx2(
    a: &[f32],
    w: &[f32],
    stride: usize,
    full: usize,
    lanes: &mut [[f32; LANES]; TILE_N],
) {
    use std::arch::x86_64::*;
    let mut acc = [_mm256_setzero_ps(); TILE_N];
    for i in (0..full).step_by(LANES) {
        // SAFETY: i + 8 ≤ full ≤ a.len(), and c·stride + i + 8 ≤ w.len().
        let x = unsafe { _mm256_loadu_ps(a.as_ptr().add(i)) };
        for (c, v) in acc.iter_mut().enumerate() {
            // SAFETY: c·stride + i + 8 ≤ (TILE_N - 1)·stride + k ≤ w.len().
            let y = unsafe { _mm256_loadu_ps(w.as_ptr().add(c * stride + i)) };
            *v = _mm256_fmadd_ps(x, y, *v);
        }
    }
    for (c, v) in acc.iter().enumerate() {
        // SAFETY: lanes[c] holds 8 floats.
        unsafe { _mm256_storeu_ps(lanes[c].as_mut_ptr(), *v) };
    }
}

/// `y = a · W` for `m` rows of `a` (each K long): `[m, N]`. Tiles of columns run in
/// parallel when the product is big enough to pay for it.
pub fn matmul_nbits(isa: Isa, a: &[f32], m: usize, w: &NbitsWeights) -> Vec<f32> {
    let n = w.n;
    let tiles: Vec<usize> = (0..n).step_by(TILE_N).collect();
    let work = m.saturating_mul(n).saturating_mul(w.k);
    let columns: Vec<Vec<f32>> = if work >= 1 << 18 {
        tiles
            .par_iter()
            .map(|&n0| tile_product(isa, a, m, w, n0))
            .collect()
    } else {
        tiles
            .iter()
            .map(|&n0| tile_product(isa, a, m, w, n0))
            .collect()
    };
    let mut y = vec![0f32; m * n];
    for (&n0, tile) in tiles.iter().zip(&columns) {
        let cols = TILE_N.min(n - n0);
        for row in 0..m {
            y[row * n + n0..row * n + n0 + cols]
                .copy_from_slice(&tile[row * cols..(row + 1) * cols]);
        }
    }
    y
}

/// Columns `n0..n0 + TILE_N` (fewer at the end) of the product, `[m, cols]`.
fn tile_product(isa: Isa, a: &[f32], m: usize, w: &NbitsWeights, n0: usize) -> Vec<f32> {
    let k = w.k;
    let stride = w.k_blocks() * w.block;
    let cols = TILE_N.min(w.n - n0);
    // Columns past N (a last partial tile) stay zeros, and their sums are unused.
    let mut tile = vec![0f32; TILE_N * stride];
    for c in 0..cols {
        w.unpack_column(isa, n0 + c, &mut tile[c * stride..(c + 1) * stride]);
    }
    let mut out = Vec::with_capacity(m * cols);
    for row in 0..m {
        let sums = dot_tile(isa, &a[row * k..(row + 1) * k], &tile, stride);
        out.extend_from_slice(&sums[..cols]);
    }
    out
}

/// The packed weight of `qlower.matmul_nbits` (operands 1-5: packed codes
/// `[N, k_blocks, blob]` u8, scales `[N · k_blocks]` f32, zero points
/// `[N · k_blocks]` u8, K, bits).
fn weights_of(
    packed: &Value,
    scales: &Value,
    zero_points: &Value,
    k: &Value,
    bits: &Value,
) -> Result<NbitsWeights> {
    let packed = packed.as_tensor()?;
    let [n, _, blob] = packed.shape[..] else {
        bail!("matmul_nbits: the packed codes must be a 3-D uint8 tensor");
    };
    let Data::F32(s) = &scales.as_tensor()?.data else {
        bail!("matmul_nbits: the scales must be f32");
    };
    let Data::U8(z) = &zero_points.as_tensor()?.data else {
        bail!("matmul_nbits: the zero points must be uint8");
    };
    let (k, bits) = (k.as_int()?, bits.as_int()?);
    let (Ok(k), Ok(bits @ (4 | 8))) = (usize::try_from(k), usize::try_from(bits)) else {
        bail!("matmul_nbits: K={k} and bits={bits} are not supported");
    };
    NbitsWeights::new(
        (k, n, bits, blob * 8 / bits),
        packed.clone(),
        s.clone(),
        z.clone(),
    )
}

/// `qlower.matmul_nbits`: a (f32, `[.., K]`), then the packed weight (see
/// `weights_of`); the result is `[.., N]`.
pub fn matmul_nbits_kernel(c: &Call) -> Result<Vec<Value>> {
    let w = weights_of(c.arg(1)?, c.arg(2)?, c.arg(3)?, c.arg(4)?, c.arg(5)?)?;
    run(c, &w)
}

/// `matmul_nbits_kernel` with the weight (operands 1-5) checked and kept once.
pub fn prepare_matmul_nbits(constants: &[Option<&Value>]) -> Option<Prepared> {
    let at = |i: usize| constants.get(i).copied().flatten();
    let w = weights_of(at(1)?, at(2)?, at(3)?, at(4)?, at(5)?).ok()?;
    Some(Arc::new(move |c: &Call| run(c, &w)))
}

fn run(c: &Call, w: &NbitsWeights) -> Result<Vec<Value>> {
    let a = args::tensor(c, 0)?;
    let Data::F32(av) = &a.data else {
        bail!("matmul_nbits: a must be f32");
    };
    match a.shape.last() {
        Some(&k) if k == w.k => {}
        _ => bail!("matmul_nbits: a has shape {:?}, but K is {}", a.shape, w.k),
    }
    let m = av.len() / w.k;
    let mut shape = a.shape.clone();
    if let Some(last) = shape.last_mut() {
        *last = w.n;
    }
    crate::kernels::tensor::bounded_count(&shape)?;
    let y = matmul_nbits(Isa::best(), av, m, w);
    args::ret(c, Tensor::new(shape, Data::F32(y))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(k: usize, n: usize, bits: usize, block: usize, seed: u64) -> NbitsWeights {
        let mut s = seed;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u32
        };
        let blocks = k.div_ceil(block);
        let packed: Vec<u8> = (0..n * blocks * block * bits / 8)
            .map(|_| next() as u8)
            .collect();
        let packed = Arc::new(Tensor::new(vec![packed.len()], Data::U8(packed)).unwrap());
        let scales = (0..n * blocks)
            .map(|_| (next() % 1000) as f32 / 7919.0 + 0.01)
            .collect();
        let zps = (0..n * blocks)
            .map(|_| (next() % (1 << bits)) as u8)
            .collect();
        NbitsWeights::new((k, n, bits, block), packed, scales, zps).unwrap()
    }

    /// The float64 product with the weight dequantized element by element.
    fn reference(a: &[f32], m: usize, w: &NbitsWeights) -> Vec<f64> {
        let mut y = vec![0f64; m * w.n];
        let per_col = w.column_bytes();
        for n in 0..w.n {
            for kk in 0..w.k {
                let (j, i) = (kk / w.block, kk % w.block);
                let byte_at = n * per_col + j * w.block * w.bits / 8;
                let code = if w.bits == 8 {
                    w.codes()[byte_at + i]
                } else {
                    (w.codes()[byte_at + i / 2] >> (4 * (i % 2))) & 15
                };
                let p = n * w.k_blocks() + j;
                let v = (code as f64 - w.zero_points[p] as f64) * w.scales[p] as f64;
                for r in 0..m {
                    y[r * w.n + n] += a[r * w.k + kk] as f64 * v;
                }
            }
        }
        y
    }

    #[test]
    fn every_instruction_set_gives_the_same_bytes_close_to_the_reference() {
        for &(k, n, bits, block, m) in &[
            (64, 5, 4, 32, 1),
            (100, 9, 4, 16, 3),
            (256, 4, 4, 128, 2),
            (77, 3, 8, 64, 4),
            (512, 7, 4, 256, 1),
            // Big enough for the tiles to run in parallel.
            (512, 66, 4, 32, 9),
        ] {
            let w = weights(k, n, bits, block, (k * n) as u64);
            let a: Vec<f32> = (0..m * k)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0)
                .collect();
            let want = reference(&a, m, &w);
            let portable = matmul_nbits(Isa::Portable, &a, m, &w);
            for isa in Isa::all_available() {
                let got = matmul_nbits(isa, &a, m, &w);
                assert_eq!(got, portable, "{isa:?} K={k} N={n} bits={bits}");
            }
            let norm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
            let err = portable
                .iter()
                .zip(&want)
                .map(|(g, w)| (*g as f64 - w).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(err <= 1e-6 * norm, "K={k} N={n}: {err} vs {norm}");
        }
    }

    fn bytes(n: usize) -> Arc<Tensor> {
        Arc::new(Tensor::new(vec![n], Data::U8(vec![0; n])).unwrap())
    }

    #[test]
    fn malformed_weights_are_refused() {
        let e = NbitsWeights::new((32, 2, 4, 32), bytes(31), vec![1.0; 2], vec![8; 2]);
        assert!(e.unwrap_err().to_string().contains("31 packed bytes"));
        let e = NbitsWeights::new((32, 2, 3, 32), bytes(0), vec![], vec![]);
        assert!(e.unwrap_err().to_string().contains("bits 3"));
        let e = NbitsWeights::new((32, 2, 4, 32), bytes(32), vec![1.0; 3], vec![8; 2]);
        assert!(e.unwrap_err().to_string().contains("3 scales"));
    }
}
