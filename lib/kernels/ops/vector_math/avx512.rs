//! `Lanes` on sixteen AVX-512 lanes.
//!
//! The type is only built inside functions compiled with `avx512f` (and AVX2, FMA) and called after
//! `Isa::Avx512Vnni` was detected (see `mod.rs`), which is what every intrinsic below needs.

use std::arch::x86_64::*;

use super::lanes::Lanes;

#[derive(Clone, Copy)]
pub(super) struct Avx512(__m512);

macro_rules! avx512 {
    ($e:expr) => {
        // SAFETY: only reached from `#[target_feature(enable = "avx512f")]` code run
        // on a CPU that has it (module docs).
        unsafe { $e }
    };
}

impl Lanes for Avx512 {
    type Mask = __mmask16;
    type Int = __m512i;
    const N: usize = 16;

    #[inline(always)]
    fn load(src: &[f32]) -> Self {
        assert!(src.len() >= 16);
        Avx512(avx512!(_mm512_loadu_ps(src.as_ptr())))
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32]) {
        assert!(dst.len() >= 16);
        avx512!(_mm512_storeu_ps(dst.as_mut_ptr(), self.0))
    }
    #[inline(always)]
    fn store_to(self, dst: &mut [std::mem::MaybeUninit<f32>]) {
        assert!(dst.len() >= 16);
        avx512!(_mm512_storeu_ps(dst.as_mut_ptr().cast::<f32>(), self.0))
    }
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Avx512(avx512!(_mm512_set1_ps(v)))
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_add_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_sub_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_mul_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_div_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Avx512(avx512!(_mm512_fmadd_ps(self.0, b.0, c.0)))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Avx512(avx512!(_mm512_sqrt_ps(self.0)))
    }
    #[inline(always)]
    fn cube(self) -> Self {
        // Each half of eight lanes widened to f64, cubed, narrowed, and put back.
        let lo = avx512!(_mm512_cvtps_pd(_mm512_castps512_ps256(self.0)));
        let hi = avx512!(_mm512_cvtps_pd(_mm256_castpd_ps(
            _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(self.0))
        )));
        let lo = avx512!(_mm512_cvtpd_ps(_mm512_mul_pd(lo, _mm512_mul_pd(lo, lo))));
        let hi = avx512!(_mm512_cvtpd_ps(_mm512_mul_pd(hi, _mm512_mul_pd(hi, hi))));
        Avx512(avx512!(_mm512_castpd_ps(_mm512_insertf64x4::<1>(
            _mm512_castps_pd(_mm512_castps256_ps512(lo)),
            _mm256_castps_pd(hi)
        ))))
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_min_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_max_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_castsi512_ps(_mm512_and_si512(
            _mm512_castps_si512(self.0),
            _mm512_castps_si512(b.0)
        ))))
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        Avx512(avx512!(_mm512_castsi512_ps(_mm512_or_si512(
            _mm512_castps_si512(self.0),
            _mm512_castps_si512(b.0)
        ))))
    }
    #[inline(always)]
    fn lt(self, b: Self) -> __mmask16 {
        avx512!(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, b.0))
    }
    #[inline(always)]
    fn is_nan(self) -> __mmask16 {
        avx512!(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0))
    }
    #[inline(always)]
    fn select(m: __mmask16, a: Self, b: Self) -> Self {
        Avx512(avx512!(_mm512_mask_blend_ps(m, b.0, a.0)))
    }
    #[inline(always)]
    fn bits(self) -> __m512i {
        avx512!(_mm512_castps_si512(self.0))
    }
    #[inline(always)]
    fn from_bits(i: __m512i) -> Self {
        Avx512(avx512!(_mm512_castsi512_ps(i)))
    }
    #[inline(always)]
    fn isplat(v: i32) -> __m512i {
        avx512!(_mm512_set1_epi32(v))
    }
    #[inline(always)]
    fn iadd(a: __m512i, b: __m512i) -> __m512i {
        avx512!(_mm512_add_epi32(a, b))
    }
    #[inline(always)]
    fn isub(a: __m512i, b: __m512i) -> __m512i {
        avx512!(_mm512_sub_epi32(a, b))
    }
    #[inline(always)]
    fn iand(a: __m512i, b: __m512i) -> __m512i {
        avx512!(_mm512_and_si512(a, b))
    }
    #[inline(always)]
    fn shl23(a: __m512i) -> __m512i {
        avx512!(_mm512_slli_epi32::<23>(a))
    }
    #[inline(always)]
    fn sra23(a: __m512i) -> __m512i {
        avx512!(_mm512_srai_epi32::<23>(a))
    }
    #[inline(always)]
    fn sra1(a: __m512i) -> __m512i {
        avx512!(_mm512_srai_epi32::<1>(a))
    }
    #[inline(always)]
    fn to_float(a: __m512i) -> Self {
        Avx512(avx512!(_mm512_cvtepi32_ps(a)))
    }
    /// `vscalefps`: p·2^n with one rounding (subnormal results included), as the two
    /// multiplies round it, in one instruction instead of eight.
    #[inline(always)]
    fn times_pow2(p: Self, n: Self, _ni: __m512i, scale: i32) -> Self {
        let n = if scale == 0 {
            n.0
        } else {
            avx512!(_mm512_add_ps(n.0, _mm512_set1_ps(scale as f32)))
        };
        Avx512(avx512!(_mm512_scalef_ps(p.0, n)))
    }
}
