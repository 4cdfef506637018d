//! An 8-bit quantized tensor mapped through a table: the kernel of
//! `qlower.qlinear_lookup`, which stands for an element-wise float function of one
//! 8-bit per-tensor quantized input, requantized per tensor (QDQ models leave batch
//! normalizations, GELUs and activations in float between a DequantizeLinear and a
//! QuantizeLinear). Such a function has at most 256 distinct inputs per channel, so
//! `fuse-for-cpu` evaluates it once on every input with the very kernels the unfused
//! ops run, and each element then costs one load: the results are those of the
//! unfused ops, byte for byte.

use std::mem::MaybeUninit;

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::lookup_gather::Entry;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, args};

/// Operands: x (8-bit integers, quantized or raw), table ([channels, 256] of the
/// result's storage, row `c` indexed by the bit pattern of x), axis (the channel axis
/// of x; unused for one channel), y_scale, y_zero_point. The result carries y_scale and
/// y_zero_point as `quantize_per_tensor`'s does.
pub fn qlinear_lookup(c: &Call) -> Result<Vec<Value>> {
    let data = tabulated(c)?;
    if !matches!(data, Data::U8(_) | Data::I8(_)) {
        bail!(
            "the lookup table must hold 8-bit integers, but holds {}",
            data.dtype()
        );
    }
    let mut y = Tensor::new(args::tensor(c, 0)?.shape.clone(), data)?;
    y.quant = Some(Quant::PerTensor {
        scale: args::float(c, 3)?,
        zero_point: args::int(c, 4)?,
    });
    args::ret(c, y)
}

/// Operands: x, table ([channels, 256] of f32), axis, as `qlinear_lookup`; the result
/// is the float function's value.
pub fn dequantized_lookup(c: &Call) -> Result<Vec<Value>> {
    let data = tabulated(c)?;
    if !matches!(data, Data::F32(_)) {
        bail!("the lookup table must hold f32, but holds {}", data.dtype());
    }
    args::ret(c, Tensor::new(args::tensor(c, 0)?.shape.clone(), data)?)
}

/// x (operand 0) looked up in the table (operand 1) along the axis (operand 2).
fn tabulated(c: &Call) -> Result<Data> {
    let x = args::tensor(c, 0)?;
    let table = args::tensor(c, 1)?;
    let axis = args::int(c, 2)?;
    let channels = match table.shape.as_slice() {
        [channels, 256] if *channels > 0 => *channels,
        other => bail!("the lookup table has shape {other:?}, expected [channels, 256]"),
    };
    let inner = if channels == 1 {
        1
    } else {
        let Some(axis) = usize::try_from(axis).ok().filter(|&a| a < x.rank()) else {
            bail!("axis {axis} is out of range for rank {}", x.rank());
        };
        if x.shape[axis] != channels {
            bail!(
                "the lookup table has {channels} rows, but axis {axis} of x has {}",
                x.shape[axis]
            );
        }
        x.shape[axis + 1..].iter().product()
    };
    let converted;
    let indices: &[u8] = match &x.data {
        Data::U8(q) => q,
        Data::I8(q) => {
            converted = q.iter().map(|&v| v as u8).collect::<Vec<u8>>();
            &converted
        }
        other => bail!("x must hold 8-bit integers, but holds {}", other.dtype()),
    };
    Ok(match &table.data {
        Data::U8(t) => Data::U8(look_up_bytes(indices, t, channels, inner)),
        Data::I8(t) => {
            // SAFETY: i8 and u8 have the same size and alignment, and every bit
            // pattern is valid for both.
            let t = unsafe { std::slice::from_raw_parts(t.as_ptr() as *const u8, t.len()) };
            let y = look_up_bytes(indices, t, channels, inner);
            Data::I8(y.into_iter().map(|b| b as i8).collect())
        }
        Data::F32(t) => Data::F32(look_up(indices, t, channels, inner)),
        other => bail!("a lookup table of {} is not supported", other.dtype()),
    })
}

/// `look_up` of byte tables: with AVX-512 VBMI, when each channel's elements come in
/// runs, 64 elements at a time by byte permutes over the row held in four registers.
fn look_up_bytes(x: &[u8], table: &[u8], channels: usize, inner: usize) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::isa::byte_permutes() && (channels == 1 || inner >= 16) {
        let rows = table.len() / 256;
        if rows > 0 {
            let channels = channels.clamp(1, rows);
            // One channel's run at a time, whole runs to a task. A byte permute
            // looks up 64 elements in a few cycles, so tasks are few: YOLOv8n's SiLU
            // tables over 400K elements took 27 µs at 1 thread and 35 µs at 2 in
            // tasks of 64K.
            let unit = if channels == 1 { 1 } else { inner };
            let per_task = task_len(x.len(), Cost::Move, unit);
            let run = if channels == 1 { per_task } else { inner };
            // Not zeroed first: a zeroing pass on this thread cost as much as the
            // parallel lookup (PP-OCR det's 150 lookups, a serial memset each).
            let mut y: Vec<u8> = Vec::with_capacity(x.len());
            let work = |(k, (out, x)): (usize, (&mut [MaybeUninit<u8>], &[u8]))| {
                let first = k * per_task / run;
                for (r, (out, x)) in out.chunks_mut(run).zip(x.chunks(run)).enumerate() {
                    let channel = (first + r) % channels;
                    let row = &table[channel * 256..][..256];
                    // SAFETY: byte_permutes() detected avx512f/bw/vbmi on this CPU;
                    // the row is 256 bytes and `out` as long as `x`.
                    unsafe { look_up_vbmi(x, row.try_into().unwrap_or(&[0; 256]), out) }
                }
            };
            let spare = &mut y.spare_capacity_mut()[..x.len()];
            let tasks = spare.par_chunks_mut(per_task).zip(x.par_chunks(per_task));
            tasks.enumerate().for_each(work);
            // SAFETY: the tasks' chunks cover all x.len() bytes, and each chunk's runs
            // pair an output run with an input run of the same length, every byte of
            // which look_up_vbmi writes.
            unsafe { y.set_len(x.len()) };
            return y;
        }
    }
    look_up(x, table, channels, inner)
}

/// `out[i] = row[x[i]]` for one 256-byte row, with byte permutes where the CPU has
/// them.
pub(crate) fn look_up_row(x: &[u8], row: &[u8; 256], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::isa::byte_permutes() {
        // SAFETY: byte_permutes() detected avx512f/bw/vbmi on this CPU; viewing
        // initialized bytes as possibly uninitialized ones is always sound.
        unsafe {
            let out = std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                out.len(),
            );
            look_up_vbmi(x, row, out)
        };
        return;
    }
    for (y, &q) in out.iter_mut().zip(x) {
        *y = row[usize::from(q)];
    }
}

/// `out[i] = row[x[i]]`: the row's halves in two pairs of registers, `vpermi2b` picks
/// from each pair by the low seven bits, the top bit chooses the pair.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn look_up_vbmi(x: &[u8], row: &[u8; 256], out: &mut [MaybeUninit<u8>]) {
    use std::arch::x86_64::*;
    // SAFETY: the row is 256 bytes, four unaligned 64-byte loads.
    let [t0, t1, t2, t3] =
        [0, 64, 128, 192].map(|at| unsafe { _mm512_loadu_si512(row.as_ptr().add(at) as *const _) });
    let n = x.len().min(out.len());
    let mut i = 0;
    while i < n {
        let m = (n - i).min(64);
        let mask: __mmask64 = if m == 64 { !0 } else { (1u64 << m) - 1 };
        // SAFETY: the mask limits the load and the store to the `m` bytes left.
        unsafe {
            let v = _mm512_maskz_loadu_epi8(mask, x.as_ptr().add(i) as *const _);
            let low = _mm512_permutex2var_epi8(t0, v, t1);
            let high = _mm512_permutex2var_epi8(t2, v, t3);
            let y = _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high);
            _mm512_mask_storeu_epi8(out.as_mut_ptr().add(i) as *mut _, mask, y);
        }
        i += m;
    }
}

/// `y[i] = table[channel(i)][x[i]]`, where element `i` is in channel
/// `(i / inner) % channels`. Runs of one channel are looked up together.
fn look_up<T: Entry>(x: &[u8], table: &[T], channels: usize, inner: usize) -> Vec<T> {
    let mut y = vec![T::default(); x.len()];
    let inner = inner.max(1);
    let rows: Vec<&[T; 256]> = table
        .chunks_exact(256)
        .filter_map(|r| r.try_into().ok())
        .collect();
    if rows.is_empty() {
        return y;
    }
    let channels = channels.clamp(1, rows.len());
    let chunk = task_len(x.len(), Cost::Move, 1);
    let work = |(k, out): (usize, &mut [T])| {
        let start = k * chunk;
        let x = &x[start..start + out.len()];
        if channels == 1 && T::gather_row(x, rows[0], out) {
            return;
        }
        if inner == 1 {
            // Channels along the last axis: the row changes at every element.
            let mut channel = start % channels;
            for (y, &q) in out.iter_mut().zip(x) {
                *y = rows[channel][usize::from(q)];
                channel += 1;
                if channel == channels {
                    channel = 0;
                }
            }
            return;
        }
        let mut i = 0;
        while i < out.len() {
            let at = start + i;
            let channel = (at / inner) % channels;
            let run = (inner - at % inner).min(out.len() - i);
            let row = rows[channel];
            if !T::gather_row(&x[i..i + run], row, &mut out[i..i + run]) {
                for (y, &q) in out[i..i + run].iter_mut().zip(&x[i..i + run]) {
                    *y = row[usize::from(q)];
                }
            }
            i += run;
        }
    };
    if inner == 1 && channels > BLOCK && x.len().is_multiple_of(channels) {
        blocked(x, table, channels, &mut y);
    } else if x.len() > chunk {
        y.par_chunks_mut(chunk).enumerate().for_each(work);
    } else {
        work((0, &mut y));
    }
    y
}

/// Channels whose table rows a pass of `blocked` keeps in L1 (16 KB of bytes).
const BLOCK: usize = 64;

/// `look_up` with the channels along the last axis, `x` whole rows of `channels`:
/// block by block of `BLOCK` channels, every row's elements of those channels, so
/// that the rows of the table they read stay in L1 (a whole table, 1536 channels of a
/// transformer's hidden layer, does not).
fn blocked<T: Entry>(x: &[u8], table: &[T], channels: usize, y: &mut [T]) {
    let per_task = task_len(x.len(), Cost::Move, channels);
    let tasks = y.par_chunks_mut(per_task).zip(x.par_chunks(per_task));
    tasks.for_each(|(out, x)| {
        for first in (0..channels).step_by(BLOCK) {
            let end = (first + BLOCK).min(channels);
            let rows = &table[first * 256..end * 256];
            for (out, x) in out.chunks_exact_mut(channels).zip(x.chunks_exact(channels)) {
                let (out, x) = (&mut out[first..end], &x[first..end]);
                if !T::gather(x, rows, end - first, 0, out) {
                    for (c, (y, &q)) in out.iter_mut().zip(x).enumerate() {
                        *y = rows[c * 256 + usize::from(q)];
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::ResultType;

    /// Longer than a task of a lookup at 2 threads (`split::task_len`), so that inputs
    /// of a few of these are split at task boundaries.
    const CHUNK: usize = 1 << 19;
    const BYTE_TASK: usize = CHUNK;

    fn call(x: Tensor, table: Tensor, axis: i64) -> Result<Vec<Value>> {
        let args = [
            Value::tensor(x),
            Value::tensor(table),
            Value::Int(axis),
            Value::Float(0.5),
            Value::Int(3),
        ];
        qlinear_lookup(&Call {
            args: &args,
            results: &[ResultType::None],
        })
    }

    #[test]
    fn each_channel_reads_its_own_row() {
        let table: Vec<u8> = (0..2 * 256)
            .map(|i| (i % 256) as u8 ^ (i / 256) as u8)
            .collect();
        let x = Tensor::new(vec![1, 2, 3], Data::U8(vec![0, 1, 255, 0, 1, 255])).unwrap();
        let t = Tensor::new(vec![2, 256], Data::U8(table)).unwrap();
        let y = call(x, t, 1).unwrap();
        let y = y[0].as_tensor().unwrap();
        assert_eq!(y.data, Data::U8(vec![0, 1, 255, 1, 0, 254]));
        assert_eq!(
            y.quant,
            Some(Quant::PerTensor {
                scale: 0.5,
                zero_point: 3
            })
        );
    }

    #[test]
    fn int8_inputs_index_by_bit_pattern() {
        let table: Vec<i8> = (0..256).map(|i| (i as u8).wrapping_add(1) as i8).collect();
        let x = Tensor::new(vec![3], Data::I8(vec![-128, -1, 5])).unwrap();
        let t = Tensor::new(vec![1, 256], Data::I8(table)).unwrap();
        let y = call(x, t, 0).unwrap();
        assert_eq!(y[0].as_tensor().unwrap().data, Data::I8(vec![-127, 0, 6]));
    }

    #[test]
    fn long_inputs_split_across_tasks_at_any_boundary() {
        let n = 3 * CHUNK + 17;
        let x: Vec<u8> = (0..n).map(|i| (i * 7 % 256) as u8).collect();
        let table: Vec<u8> = (0..3 * 256).map(|i| (i * 13 % 251) as u8).collect();
        let inner = n / 3 + 1;
        let y = look_up(&x, &table, 3, inner);
        for (i, (&q, &v)) in x.iter().zip(&y).enumerate() {
            assert_eq!(v, table[(i / inner) % 3 * 256 + usize::from(q)], "{i}");
        }
    }

    #[test]
    fn malformed_operands_are_refused() {
        let x = || Tensor::new(vec![1, 2], Data::U8(vec![0, 1])).unwrap();
        let t = |c: usize| Tensor::new(vec![c, 256], Data::U8(vec![0; c * 256])).unwrap();
        assert!(
            call(x(), t(3), 1)
                .unwrap_err()
                .to_string()
                .contains("3 rows")
        );
        assert!(
            call(x(), t(2), 5)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
        let short = Tensor::new(vec![1, 255], Data::U8(vec![0; 255])).unwrap();
        assert!(call(x(), short, 0).is_err());
        let f = Tensor::new(vec![2], Data::F32(vec![0.0; 2])).unwrap();
        assert!(call(f, t(1), 0).unwrap_err().to_string().contains("8-bit"));
        let floats = Tensor::new(vec![1, 256], Data::F32(vec![0.0; 256])).unwrap();
        assert!(
            call(x(), floats, 0)
                .unwrap_err()
                .to_string()
                .contains("8-bit")
        );
    }

    #[test]
    fn a_float_table_gives_floats_without_quantization() {
        let table: Vec<f32> = (0..256).map(|i| i as f32 * 0.5 - 3.0).collect();
        let x = Tensor::new(vec![2, 2], Data::U8(vec![0, 6, 7, 255])).unwrap();
        let t = Tensor::new(vec![1, 256], Data::F32(table)).unwrap();
        let args = [Value::tensor(x), Value::tensor(t), Value::Int(0)];
        let y = dequantized_lookup(&Call {
            args: &args,
            results: &[ResultType::None],
        })
        .unwrap();
        let y = y[0].as_tensor().unwrap();
        assert_eq!(y.data, Data::F32(vec![-3.0, 0.0, 0.5, 124.5]));
        assert_eq!(y.quant, None);
    }

    #[test]
    fn channels_along_the_last_axis_run_block_by_block() {
        // More channels than a block, with a last block too narrow to gather; one
        // task and several; byte and float tables.
        use crate::kernels::testing::test_bytes;
        for (seed, channels, rows) in [(1u64, 65usize, 3usize), (2, 200, 7), (3, 1536, 50)] {
            let n = channels * rows;
            let x = test_bytes(seed, n);
            let bytes = test_bytes(seed + 9, channels * 256);
            let floats: Vec<f32> = bytes.iter().map(|&b| f32::from(b) - 100.5).collect();
            let want = |i: usize| i % channels * 256 + usize::from(x[i]);
            let y = look_up(&x, &bytes, channels, 1);
            assert!(
                y.iter().enumerate().all(|(i, &v)| v == bytes[want(i)]),
                "{seed}"
            );
            let y = look_up(&x, &floats, channels, 1);
            assert!(
                y.iter().enumerate().all(|(i, &v)| v == floats[want(i)]),
                "{seed}"
            );
        }
    }

    #[test]
    fn byte_permutes_and_the_scalar_loop_agree() {
        // Whole and partial 64-byte blocks, runs shorter and longer than a task, one
        // table and several (on CPUs without VBMI both sides run the scalar loop).
        use crate::kernels::testing::test_bytes;
        for (seed, channels, inner, batches) in [
            (1u64, 1usize, 1usize, 3 * CHUNK + 77),
            (2, 3, 64, 2),
            (3, 5, 100, 3),
            (4, 2, CHUNK + 9, 1),
            (5, 4, 63, 2),
            (6, 7, 17, 2),
        ] {
            let n = channels * inner * batches;
            let x = test_bytes(seed, n);
            let table = test_bytes(seed + 9, channels * 256);
            let want = look_up(&x, &table, channels, inner);
            assert_eq!(
                look_up_bytes(&x, &table, channels, inner),
                want,
                "seed {seed}"
            );
        }
    }

    #[test]
    fn byte_lookups_split_over_threads_give_the_scalar_bytes() {
        // Several tasks and a ragged last one, so every task's unzeroed output is
        // written whole at each pool size.
        use crate::kernels::testing::test_bytes;
        for (seed, channels, inner) in [(11u64, 1usize, 2 * BYTE_TASK + 131), (12, 3, 4099)] {
            let n = channels * inner * 3;
            let x = test_bytes(seed, n);
            let table = test_bytes(seed + 9, channels * 256);
            let want = look_up(&x, &table, channels, inner);
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a test pool");
                let got = pool.install(|| look_up_bytes(&x, &table, channels, inner));
                assert_eq!(got, want, "seed {seed}, {threads} threads");
            }
        }
    }
}
