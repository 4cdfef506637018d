//! f32 element-wise math in vectors: exp, log, sigmoid, SiLU, tanh, erf and both
//! GELUs. Each function is written once over `Lanes` (`lanes.rs`), whose plain-Rust
//! implementation is the reference and whose AVX2 and AVX-512 implementations
//! (`avx2.rs`, `avx512.rs`) round every step the same way, so the three paths give
//! the same bytes. The approximations are fitted polynomials after range reduction
//! (`exp.rs`, `log.rs`, `erf.rs`); `tests.rs` states their error bounds in ulps
//! against f64.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub(crate) mod chain;
mod erf;
mod exp;
mod lanes;
mod log;
mod softmax;
#[cfg(test)]
mod tests;

use rayon::prelude::*;

use crate::kernels::isa::Isa;
use crate::kernels::split::{Cost, task_len};
use lanes::Lanes;

/// The functions this module computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Exp,
    Log,
    Sigmoid,
    Silu,
    Tanh,
    Erf,
    /// GELU, approximate = "none".
    Gelu,
    /// GELU, approximate = "tanh".
    GeluTanh,
}

impl Func {
    #[cfg(test)]
    pub const ALL: [Func; 8] = [
        Func::Exp,
        Func::Log,
        Func::Sigmoid,
        Func::Silu,
        Func::Tanh,
        Func::Erf,
        Func::Gelu,
        Func::GeluTanh,
    ];
}

/// The four IEEE operations, for `chain`'s steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// `func` of each element of `x`, on the best instruction set, split over the pool
/// when `x` is large.
pub fn map(func: Func, x: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; x.len()];
    let isa = Isa::best();
    let chunk = task_len(x.len(), Cost::Transcendental, 1);
    if x.len() > chunk {
        x.par_chunks(chunk)
            .zip(out.par_chunks_mut(chunk))
            .for_each(|(x, y)| map_on(isa, func, x, y));
    } else {
        map_on(isa, func, x, &mut out);
    }
    out
}

/// `func` of each element of `x` into `out` (as long as `x`), on `isa`, which the CPU
/// must have.
pub(crate) fn map_on(isa: Isa, func: Func, x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if isa >= Isa::Avx512Vnni && isa.available() {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { on_avx512(func, x, out) };
        }
        if isa >= Isa::Avx2 && isa.available() {
            // SAFETY: as above.
            return unsafe { on_avx2(func, x, out) };
        }
    }
    let _ = isa;
    by_func::<f32>(func, x, out);
}

/// `exp(x - max) / Σ exp(x - max)` of each row of `n` elements of `x` (at most
/// `SOFTMAX_ROWS` rows) into `y` (as long), `max` being the row's maximum
/// (`softmax::softmax_rows` says how it rounds), on `isa`, which the CPU must have;
/// `false` when a row's sum is NaN, and `y` is to be recomputed.
pub(crate) fn softmax_rows_on(isa: Isa, x: &[f32], y: &mut [f32], n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if isa >= Isa::Avx512Vnni && isa.available() {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { softmax_avx512(x, y, n) };
        }
        if isa >= Isa::Avx2 && isa.available() {
            // SAFETY: as above.
            return unsafe { softmax_avx2(x, y, n) };
        }
    }
    let _ = isa;
    softmax::softmax_rows::<f32>(x, y, n)
}

/// Rows `softmax_rows_on` takes at once.
pub(crate) const SOFTMAX_ROWS: usize = softmax::GROUP_ROWS;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn softmax_avx2(x: &[f32], y: &mut [f32], n: usize) -> bool {
    softmax::softmax_rows::<avx2::Avx2>(x, y, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
fn softmax_avx512(x: &[f32], y: &mut [f32], n: usize) -> bool {
    softmax::softmax_rows::<avx512::Avx512>(x, y, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn on_avx2(func: Func, x: &[f32], out: &mut [f32]) {
    by_func::<avx2::Avx2>(func, x, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
fn on_avx512(func: Func, x: &[f32], out: &mut [f32]) {
    by_func::<avx512::Avx512>(func, x, out);
}

/// Each arm passes an `#[inline(always)]` closure: a function item would be called
/// through a shim compiled without the caller's target features, and not inlined.
#[inline(always)]
fn by_func<V: Lanes>(func: Func, x: &[f32], out: &mut [f32]) {
    match func {
        Func::Exp => each(
            x,
            out,
            #[inline(always)]
            |v: V| exp::exp(v),
        ),
        Func::Log => each(
            x,
            out,
            #[inline(always)]
            |v: V| log::log(v),
        ),
        Func::Sigmoid => each(
            x,
            out,
            #[inline(always)]
            |v: V| exp::sigmoid(v),
        ),
        Func::Silu => each(
            x,
            out,
            #[inline(always)]
            |v: V| exp::silu(v),
        ),
        Func::Tanh => each(
            x,
            out,
            #[inline(always)]
            |v: V| exp::tanh(v),
        ),
        Func::Erf => each(
            x,
            out,
            #[inline(always)]
            |v: V| erf::erf(v),
        ),
        Func::Gelu => each(
            x,
            out,
            #[inline(always)]
            |v: V| erf::gelu(v),
        ),
        Func::GeluTanh => each(
            x,
            out,
            #[inline(always)]
            |v: V| exp::gelu_tanh(v),
        ),
    }
}

/// `f` over whole vectors, the tail through a padded copy so it rounds as they do.
#[inline(always)]
fn each<V: Lanes>(x: &[f32], out: &mut [f32], f: impl Fn(V) -> V) {
    let n = x.len().min(out.len());
    let whole = n - n % V::N;
    for (x, y) in x[..whole]
        .chunks_exact(V::N)
        .zip(out[..whole].chunks_exact_mut(V::N))
    {
        f(V::load(x)).store(y);
    }
    if whole < n {
        let mut buf = [0.0f32; 16];
        buf[..n - whole].copy_from_slice(&x[whole..n]);
        let mut res = [0.0f32; 16];
        f(V::load(&buf)).store(&mut res);
        out[whole..n].copy_from_slice(&res[..n - whole]);
    }
}
