//! The 2-D max pool of 8-bit integers (`qlower.qmax_pool`'s usual case, a ResNet's or
//! a detector's stem pool). Each output row first takes the maxima of the input rows
//! its window covers, whole contiguous rows at a time; that row, padded with the
//! lowest value, then gives the maxima over the column windows. Strides 1 and 2 read
//! every tap as one contiguous run (stride 2 from the row split into its even and odd
//! bytes), so every loop is a lane-wise maximum of bytes. Compiled for AVX2 where the
//! CPU has it.

use rayon::prelude::*;

use crate::kernels::split::{Cost, units_per_task};

mod wide;

/// Pool geometry along the columns: kernel, stride, padding, dilation.
#[derive(Clone, Copy)]
pub(super) struct Columns {
    pub(super) kernel: usize,
    pub(super) stride: usize,
    pub(super) padding: usize,
    pub(super) dilation: usize,
    /// Output columns.
    pub(super) outputs: usize,
}

impl Columns {
    /// Padded row positions the windows read, from input column `-padding` on.
    pub(super) fn span(&self) -> usize {
        (self.outputs.max(1) - 1) * self.stride + (self.kernel.max(1) - 1) * self.dilation + 1
    }
}

/// Max pool of `x`'s planes (`ih × iw` each) into `out` (`row_taps.len() × outputs`
/// each): output row `r` covers the input rows `row_taps[r]`. `flip` is 0x80 for int8
/// bytes (XOR makes their order the unsigned one) and 0 for uint8; the lowest value,
/// which fills the padding and windows of nothing, is then byte 0.
pub(super) fn max_pool(
    x: &[u8],
    out: &mut [u8],
    [ih, iw]: [usize; 2],
    row_taps: &[&[usize]],
    cols: Columns,
    flip: u8,
) {
    let plane_out = row_taps.len() * cols.outputs;
    if plane_out == 0 {
        return;
    }
    // Whole blocks past the row's last position, so no block is cut short (and as
    // long as the wide path reads).
    let len = (cols.span().max(cols.padding + iw).next_multiple_of(BLOCK) + 2 * BLOCK)
        .max(wide::len(iw, cols));
    let planes = out.len() / plane_out;
    // Costed per input byte as requantizing arithmetic, not a move: the row and
    // column passes and the stride-2 split come to about 0.27 ns a byte (ResNet-18's
    // stem pool, 64 planes of 112x112: 0.21 ms at 1 thread, which `Move` judged one
    // task's work, so a second core never helped).
    out.par_chunks_mut(plane_out)
        .zip(x.par_chunks(ih * iw))
        .with_min_len(units_per_task(planes, ih * iw, Cost::Requantize))
        .for_each_init(
            || Rows {
                padded: vec![0; len],
                halves: vec![0; len + BLOCK],
                acc: vec![0; cols.outputs.next_multiple_of(BLOCK)],
            },
            |rows, (y, plane)| {
                #[cfg(target_arch = "x86_64")]
                if wide::applies(cols) {
                    // SAFETY: `applies` checked the CPU's features.
                    unsafe { wide::plane(&mut rows.padded, plane, iw, row_taps, cols, flip, y) };
                    return;
                }
                super::zip::with_avx2(
                    #[inline(always)]
                    || rows.plane(plane, iw, row_taps, cols, flip, y),
                )
            },
        );
}

/// One worker's rows, each whole blocks long: the maxima down a window's rows padded
/// on both sides, for stride 2 its even bytes then its odd ones, and the output row
/// before `flip`. Lanes past a row's end hold whatever they hold; no kept lane
/// depends on them.
struct Rows {
    padded: Vec<u8>,
    halves: Vec<u8>,
    acc: Vec<u8>,
}

impl Rows {
    #[inline(always)]
    fn plane(
        &mut self,
        plane: &[u8],
        iw: usize,
        row_taps: &[&[usize]],
        cols: Columns,
        flip: u8,
        y: &mut [u8],
    ) {
        let Columns {
            kernel: k,
            stride: s,
            padding: p,
            dilation: d,
            outputs: ow,
        } = cols;
        let span = cols.span();
        let row_blocks = iw.div_ceil(BLOCK) * BLOCK;
        for (taps, y) in row_taps.iter().zip(y.chunks_exact_mut(ow)) {
            // Position i of the padded row is input column i - p.
            let padded = &mut self.padded[..];
            padded[..p].fill(0);
            let down = &mut padded[p..p + row_blocks];
            down.fill(0);
            for &r in *taps {
                max_into(down, &plane[r * iw..], flip);
            }
            padded[p + iw..].fill(0);
            let acc = &mut self.acc[..];
            acc.fill(0);
            match s {
                1 => {
                    for t in 0..k {
                        max_into(acc, &padded[t * d..], 0);
                    }
                }
                2 => {
                    // Even positions first, then odd: tap t reads from position
                    // 2·o + t·d, so from one half at o + (t·d)/2.
                    let half = span.div_ceil(2 * BLOCK) * BLOCK;
                    let (even, odd) = self.halves[..2 * half].split_at_mut(half);
                    for ((e, o), at) in even
                        .as_chunks_mut::<BLOCK>()
                        .0
                        .iter_mut()
                        .zip(odd.as_chunks_mut::<BLOCK>().0)
                        .zip((0..).step_by(2 * BLOCK))
                    {
                        split_block(&block_at::<{ 2 * BLOCK }>(padded, at), e, o);
                    }
                    for t in 0..k {
                        let at = t * d;
                        let from = if at % 2 == 0 { &*even } else { &*odd };
                        max_into(acc, &from[at / 2..], 0);
                    }
                }
                _ => {
                    for (o, m) in acc[..ow].iter_mut().enumerate() {
                        for t in 0..k {
                            *m = (*m).max(padded[o * s + t * d]);
                        }
                    }
                }
            }
            // Whole blocks; the last one ends at the row's end, overlapping the one
            // before with the same bytes.
            let mut at = 0;
            while at < ow {
                let start = if at + BLOCK <= ow {
                    at
                } else {
                    ow.saturating_sub(BLOCK)
                };
                let mut flipped = block_at::<BLOCK>(acc, start);
                for v in &mut flipped {
                    *v ^= flip;
                }
                match y[start..].first_chunk_mut::<BLOCK>() {
                    Some(dst) => *dst = flipped,
                    None => {
                        for (dst, v) in y[start..].iter_mut().zip(flipped) {
                            *dst = v;
                        }
                    }
                }
                at += BLOCK;
            }
        }
    }
}

/// Bytes per block: one AVX2 register.
const BLOCK: usize = 32;

/// The `N` bytes of `src` from `at` on, zeros past its end: whole blocks, copied
/// (the compiler cannot tell a source from the row it updates, and would otherwise go
/// byte by byte).
#[inline(always)]
fn block_at<const N: usize>(src: &[u8], at: usize) -> [u8; N] {
    let rest = src.get(at..).unwrap_or(&[]);
    match rest.first_chunk::<N>() {
        Some(b) => *b,
        None => {
            let mut b = [0; N];
            b[..rest.len()].copy_from_slice(rest);
            b
        }
    }
}

/// `y[i] = max(y[i], run[i] ^ flip)` for every `i` of `y` (whole blocks).
#[inline(always)]
fn max_into(y: &mut [u8], run: &[u8], flip: u8) {
    for (at, m) in (0..).step_by(BLOCK).zip(y.as_chunks_mut::<BLOCK>().0) {
        let (run, mut v) = (block_at::<BLOCK>(run, at), *m);
        for (v, r) in v.iter_mut().zip(run) {
            *v = (*v).max(r ^ flip);
        }
        *m = v;
    }
}

/// `even[i] = row[2i]`, `odd[i] = row[2i + 1]` for one block.
#[inline(always)]
fn split_block(row: &[u8; 2 * BLOCK], even: &mut [u8; BLOCK], odd: &mut [u8; BLOCK]) {
    // As little-endian 16-bit words: the even byte is the low half, the odd the high.
    let (mut e, mut o) = ([0; BLOCK], [0; BLOCK]);
    for (i, pair) in row.as_chunks::<2>().0.iter().enumerate() {
        let word = u16::from_le_bytes(*pair);
        e[i] = word as u8;
        o[i] = (word >> 8) as u8;
    }
    (*even, *odd) = (e, o);
}

#[cfg(test)]
mod tests {
    use crate::kernels::ops::pool::quantized_max_pool;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::kernels::testing::test_bytes;
    use crate::kernels::{Call, ResultType};

    /// The pool of `[planes, h, w]` bytes as `qlower.qmax_pool` computes it, and its
    /// output shape.
    fn pool(data: Data, shape: [usize; 3], kspd: [[i64; 2]; 4], ceil: bool) -> (Vec<usize>, Data) {
        let ints = |v: &[i64]| Value::IntList(v.to_vec());
        let x = Value::tensor(Tensor::new(shape.to_vec(), data).unwrap());
        let args = [
            x,
            ints(&kspd[0]),
            ints(&kspd[1]),
            ints(&kspd[2]),
            ints(&kspd[3]),
            Value::Bool(ceil),
            Value::Float(0.5),
            Value::Int(3),
        ];
        let results = [ResultType::None];
        let call = Call {
            args: &args,
            results: &results,
        };
        let y = quantized_max_pool(&call).unwrap().remove(0);
        let y = y.as_tensor().unwrap();
        (y.shape.clone(), y.data.clone())
    }

    /// Window by window, from the definition: the largest input inside the window,
    /// the lowest byte for a window wholly in the padding.
    fn reference(
        x: &[i32],
        [planes, h, w]: [usize; 3],
        [oh, ow]: [usize; 2],
        [k, s, p, d]: [[i64; 2]; 4],
        low: i32,
    ) -> Vec<i32> {
        let mut out = Vec::new();
        for plane in 0..planes {
            for oy in 0..oh as i64 {
                for ox in 0..ow as i64 {
                    let mut m = low;
                    for ky in 0..k[0] {
                        for kx in 0..k[1] {
                            let iy = oy * s[0] + ky * d[0] - p[0];
                            let ix = ox * s[1] + kx * d[1] - p[1];
                            if (0..h as i64).contains(&iy) && (0..w as i64).contains(&ix) {
                                m = m.max(x[plane * h * w + iy as usize * w + ix as usize]);
                            }
                        }
                    }
                    out.push(m);
                }
            }
        }
        out
    }

    #[test]
    fn byte_pools_match_the_window_by_window_definition() {
        let mut cases = 0;
        // Planes up to max_pool_small::MAX_PLANE bytes pool there when the stride is
        // 1; the 70x64 plane is larger, and pools here at every stride.
        for (w, h) in [
            (5, 4),
            (31, 3),
            (32, 5),
            (33, 6),
            (70, 5),
            (130, 3),
            (70, 64),
        ] {
            for k in 1..=4i64 {
                for s in 1..=3i64 {
                    for d in 1..=2i64 {
                        for p in 0..=k / 2 {
                            for ceil in [false, true] {
                                if (k - 1) * d + 1 > w as i64 + 2 * p || k > h as i64 + 2 * p {
                                    continue;
                                }
                                let kspd = [
                                    [k.min(3), k],
                                    [s.min(2), s],
                                    [p.min(k.min(3) / 2), p],
                                    [1, d],
                                ];
                                let shape = [2, h, w];
                                let bytes = test_bytes(cases as u64 + 5, 2 * h * w);
                                let (sh, got) = pool(Data::U8(bytes.clone()), shape, kspd, ceil);
                                let wide: Vec<i32> = bytes.iter().map(|&b| b as i32).collect();
                                let want = reference(&wide, shape, [sh[1], sh[2]], kspd, 0);
                                let Data::U8(got) = got else { panic!("not u8") };
                                let got: Vec<i32> = got.iter().map(|&b| b as i32).collect();
                                assert_eq!(got, want, "u8 {shape:?} {kspd:?} ceil={ceil}");
                                let signed: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
                                let (sh, got) = pool(Data::I8(signed.clone()), shape, kspd, ceil);
                                let wide: Vec<i32> = signed.iter().map(|&b| b as i32).collect();
                                let want = reference(&wide, shape, [sh[1], sh[2]], kspd, -128);
                                let Data::I8(got) = got else { panic!("not i8") };
                                let got: Vec<i32> = got.iter().map(|&b| b as i32).collect();
                                assert_eq!(got, want, "i8 {shape:?} {kspd:?} ceil={ceil}");
                                cases += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(cases > 300, "{cases} cases");
    }

    #[test]
    fn a_padding_far_past_a_small_plane_allocates_nothing_of_its_size() {
        // Row padding 2^40 with a kernel that still gives 2 output rows: the windows
        // read only the 2 input rows, and nothing is allocated per padded row.
        let p = 1i64 << 40;
        let kspd = [[2 * p + 1, 1], [1, 1], [p, 0], [1, 1]];
        let bytes = vec![3u8, 9, 4, 1];
        let (shape, got) = pool(Data::U8(bytes), [1, 2, 2], kspd, false);
        assert_eq!(shape, [1, 2, 2]);
        assert_eq!(got, Data::U8(vec![4, 9, 4, 9]));
    }
}
