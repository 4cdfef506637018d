//! `Lanes` on eight AVX2 lanes with FMA.
//!
//! The type is only built inside functions compiled with `avx2,fma` and called after
//! `Isa::Avx2` was detected (see `mod.rs`), which is what every intrinsic below needs.

use std::arch::x86_64::*;

use super::lanes::Lanes;

#[derive(Clone, Copy)]
pub(super) struct Avx2(__m256);

macro_rules! avx2 {
    ($e:expr) => {
        // SAFETY: only reached from `#[target_feature(enable = "avx2,fma")]` code run
        // on a CPU that has both (module docs).
        unsafe { $e }
    };
}

impl Lanes for Avx2 {
    type Mask = __m256;
    type Int = __m256i;
    const N: usize = 8;

    #[inline(always)]
    fn load(src: &[f32]) -> Self {
        assert!(src.len() >= 8);
        Avx2(avx2!(_mm256_loadu_ps(src.as_ptr())))
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32]) {
        assert!(dst.len() >= 8);
        avx2!(_mm256_storeu_ps(dst.as_mut_ptr(), self.0))
    }
    #[inline(always)]
    fn store_to(self, dst: &mut [std::mem::MaybeUninit<f32>]) {
        assert!(dst.len() >= 8);
        avx2!(_mm256_storeu_ps(dst.as_mut_ptr().cast::<f32>(), self.0))
    }
    #[inline(always)]
    fn splat(v: f32) -> Self {
        Avx2(avx2!(_mm256_set1_ps(v)))
    }
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_add_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_sub_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_mul_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_div_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Avx2(avx2!(_mm256_fmadd_ps(self.0, b.0, c.0)))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Avx2(avx2!(_mm256_sqrt_ps(self.0)))
    }
    #[inline(always)]
    fn cube(self) -> Self {
        // Each half of four lanes widened to f64, cubed, narrowed, and put back.
        let lo = avx2!(_mm256_cvtps_pd(_mm256_castps256_ps128(self.0)));
        let hi = avx2!(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(self.0)));
        let lo = avx2!(_mm256_cvtpd_ps(_mm256_mul_pd(lo, _mm256_mul_pd(lo, lo))));
        let hi = avx2!(_mm256_cvtpd_ps(_mm256_mul_pd(hi, _mm256_mul_pd(hi, hi))));
        Avx2(avx2!(_mm256_insertf128_ps::<1>(
            _mm256_castps128_ps256(lo),
            hi
        )))
    }
    #[inline(always)]
    fn min(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_min_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn max(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_max_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_and_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        Avx2(avx2!(_mm256_or_ps(self.0, b.0)))
    }
    #[inline(always)]
    fn lt(self, b: Self) -> __m256 {
        avx2!(_mm256_cmp_ps::<_CMP_LT_OQ>(self.0, b.0))
    }
    #[inline(always)]
    fn is_nan(self) -> __m256 {
        avx2!(_mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0))
    }
    #[inline(always)]
    fn select(m: __m256, a: Self, b: Self) -> Self {
        Avx2(avx2!(_mm256_blendv_ps(b.0, a.0, m)))
    }
    #[inline(always)]
    fn bits(self) -> __m256i {
        avx2!(_mm256_castps_si256(self.0))
    }
    #[inline(always)]
    fn from_bits(i: __m256i) -> Self {
        Avx2(avx2!(_mm256_castsi256_ps(i)))
    }
    #[inline(always)]
    fn isplat(v: i32) -> __m256i {
        avx2!(_mm256_set1_epi32(v))
    }
    #[inline(always)]
    fn iadd(a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_add_epi32(a, b))
    }
    #[inline(always)]
    fn isub(a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_sub_epi32(a, b))
    }
    #[inline(always)]
    fn iand(a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_and_si256(a, b))
    }
    #[inline(always)]
    fn shl23(a: __m256i) -> __m256i {
        avx2!(_mm256_slli_epi32::<23>(a))
    }
    #[inline(always)]
    fn sra23(a: __m256i) -> __m256i {
        avx2!(_mm256_srai_epi32::<23>(a))
    }
    #[inline(always)]
    fn sra1(a: __m256i) -> __m256i {
        avx2!(_mm256_srai_epi32::<1>(a))
    }
    #[inline(always)]
    fn to_float(a: __m256i) -> Self {
        Avx2(avx2!(_mm256_cvtepi32_ps(a)))
    }
}
