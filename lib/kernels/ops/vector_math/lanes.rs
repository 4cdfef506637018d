//! The operations the vector math functions are written in, once, for every
//! instruction set. Each implementation must round exactly as the others: the
//! arithmetic is IEEE (with a fused multiply-add), `min`/`max` return their second
//! operand when either is NaN (as `vminps` does), and conversions round to nearest
//! even. So one function body gives the same bytes on every path.

pub(super) trait Lanes: Copy {
    type Mask: Copy;
    type Int: Copy;
    /// Lanes per vector.
    const N: usize;

    /// Reads `N` values. `src` must hold at least `N`.
    fn load(src: &[f32]) -> Self;
    /// Writes `N` values. `dst` must hold at least `N`.
    fn store(self, dst: &mut [f32]);
    /// Writes `N` values into memory that may not be initialized yet. `dst` must hold
    /// at least `N`.
    fn store_to(self, dst: &mut [std::mem::MaybeUninit<f32>]);
    fn splat(v: f32) -> Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    /// `self * b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    /// The square root, correctly rounded.
    fn sqrt(self) -> Self;
    /// `x·x²` computed in f64 and rounded once to f32 (how `pow(x, 3)` rounds).
    fn cube(self) -> Self;
    /// `self` where `self < b`, else `b` (so `b` when either is NaN).
    fn min(self, b: Self) -> Self;
    /// `self` where `self > b`, else `b`.
    fn max(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn lt(self, b: Self) -> Self::Mask;
    fn is_nan(self) -> Self::Mask;
    /// `a` in the lanes of `m`, else `b`.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    fn bits(self) -> Self::Int;
    fn from_bits(i: Self::Int) -> Self;
    fn isplat(v: i32) -> Self::Int;
    fn iadd(a: Self::Int, b: Self::Int) -> Self::Int;
    fn isub(a: Self::Int, b: Self::Int) -> Self::Int;
    fn iand(a: Self::Int, b: Self::Int) -> Self::Int;
    fn shl23(a: Self::Int) -> Self::Int;
    /// Arithmetic shifts right.
    fn sra23(a: Self::Int) -> Self::Int;
    fn sra1(a: Self::Int) -> Self::Int;
    /// The integer as a float, rounded to nearest even.
    fn to_float(a: Self::Int) -> Self;

    /// `p·2^(n + scale)` rounded once, for `p` within [0.5, 2], `n` an integer in
    /// [-150, 128] given as a float and as an integer `ni`, and `scale` 0 or 24: two
    /// multiplies by powers of two within the normal range, the first exact. A CPU
    /// with a scaling instruction rounds the same product once in one.
    #[inline(always)]
    fn times_pow2(p: Self, n: Self, ni: Self::Int, scale: i32) -> Self {
        let _ = n;
        let n1 = Self::sra1(ni);
        let n2 = Self::isub(ni, n1);
        let s1 = Self::from_bits(Self::shl23(Self::iadd(n1, Self::isplat(127))));
        let s2 = Self::from_bits(Self::shl23(Self::iadd(n2, Self::isplat(127 + scale))));
        p.mul(s1).mul(s2)
    }
}

/// One lane in plain Rust: the reference every vector path must equal.
impl Lanes for f32 {
    type Mask = bool;
    type Int = i32;
    const N: usize = 1;

    fn load(src: &[f32]) -> Self {
        src[0]
    }
    fn store(self, dst: &mut [f32]) {
        dst[0] = self;
    }
    fn store_to(self, dst: &mut [std::mem::MaybeUninit<f32>]) {
        dst[0].write(self);
    }
    fn splat(v: f32) -> Self {
        v
    }
    fn add(self, b: Self) -> Self {
        self + b
    }
    fn sub(self, b: Self) -> Self {
        self - b
    }
    fn mul(self, b: Self) -> Self {
        self * b
    }
    fn div(self, b: Self) -> Self {
        self / b
    }
    fn fma(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    fn cube(self) -> Self {
        let x = self as f64;
        (x * (x * x)) as f32
    }
    fn min(self, b: Self) -> Self {
        if self < b { self } else { b }
    }
    fn max(self, b: Self) -> Self {
        if self > b { self } else { b }
    }
    fn and(self, b: Self) -> Self {
        f32::from_bits(self.to_bits() & b.to_bits())
    }
    fn or(self, b: Self) -> Self {
        f32::from_bits(self.to_bits() | b.to_bits())
    }
    fn lt(self, b: Self) -> bool {
        self < b
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    fn bits(self) -> i32 {
        self.to_bits() as i32
    }
    fn from_bits(i: i32) -> Self {
        f32::from_bits(i as u32)
    }
    fn isplat(v: i32) -> i32 {
        v
    }
    fn iadd(a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
    fn isub(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    fn iand(a: i32, b: i32) -> i32 {
        a & b
    }
    fn shl23(a: i32) -> i32 {
        a.wrapping_shl(23)
    }
    fn sra23(a: i32) -> i32 {
        a >> 23
    }
    fn sra1(a: i32) -> i32 {
        a >> 1
    }
    fn to_float(a: i32) -> Self {
        a as f32
    }
}

/// `c[0] + c[1]·x + c[2]·x² + …` by Horner's rule, one fused multiply-add a step, so
/// every instruction set rounds it alike.
#[inline(always)]
pub(super) fn poly<V: Lanes>(x: V, c: &[f32]) -> V {
    let mut p = V::splat(c[c.len() - 1]);
    for &k in c[..c.len() - 1].iter().rev() {
        p = p.fma(x, V::splat(k));
    }
    p
}

/// |x|, the sign bit cleared (NaN stays NaN).
#[inline(always)]
pub(super) fn abs<V: Lanes>(x: V) -> V {
    V::from_bits(V::iand(x.bits(), V::isplat(i32::MAX)))
}
