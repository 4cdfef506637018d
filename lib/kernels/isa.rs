//! The instruction set of every fast path, detected once at run time. Kernels never
//! test CPU features themselves: they ask `Isa::best()` (or take an `Isa`, so that
//! tests can run each path this CPU has) and branch on it, so one decision covers the
//! GEMM tiles, im2col, requantization and the elementwise loops alike.
//!
//! Levels are cumulative: a CPU at a level has every feature of the levels below it,
//! so code compiled for `Avx2` may run wherever `Isa::best().includes(Isa::Avx2)`.

use std::sync::OnceLock;

/// An instruction-set level, ordered from least to most capable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Plain Rust, for any CPU.
    Portable,
    /// AVX2 with FMA (the vector part of x86-64-v3): the elementwise loops use the
    /// fused multiply-add, so the level promises both.
    Avx2,
    /// AVX-512 F, BW, VL and VNNI (`vpdpbusd`), on top of `Avx2`.
    Avx512Vnni,
}

impl Isa {
    /// The most capable level this CPU supports, decided once. `QLOWER_MAX_ISA`
    /// (`avx2` or `portable`) caps it, so one machine can time the paths of another;
    /// any other value leaves it as detected.
    pub fn best() -> Isa {
        static BEST: OnceLock<Isa> = OnceLock::new();
        *BEST.get_or_init(|| {
            let cap = match std::env::var("QLOWER_MAX_ISA").as_deref() {
                Ok("avx2") => Isa::Avx2,
                Ok("portable") => Isa::Portable,
                _ => Isa::Avx512Vnni,
            };
            [Isa::Avx512Vnni, Isa::Avx2]
                .into_iter()
                .find(|isa| *isa <= cap && isa.detect())
                .unwrap_or(Isa::Portable)
        })
    }

    /// Whether this CPU has every feature of this level (and of the levels below).
    /// Kernels ask per tile and per row, so this is one load of the level decided once.
    #[inline]
    pub fn available(self) -> bool {
        self <= Isa::best()
    }

    /// Asks the CPU whether it has every feature of this level.
    fn detect(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512Vnni => {
                Isa::Avx2.detect()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512vnni")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            Isa::Portable => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// Whether code compiled for `level` may run at this level.
    pub fn includes(self, level: Isa) -> bool {
        self >= level
    }

    /// Every level this CPU can run, most capable first, for tests that compare them.
    #[cfg(test)]
    pub fn all_available() -> Vec<Isa> {
        [Isa::Avx512Vnni, Isa::Avx2, Isa::Portable]
            .into_iter()
            .filter(|isa| isa.available())
            .collect()
    }
}

/// Whether the CPU has AMX-INT8 tiles and the OS lets this process use them: Linux
/// keeps the tile registers disabled until a process asks for them
/// (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), once for all its threads.
/// Set `QLOWER_NO_AMX` to leave them unused (to compare with the AVX-512 path).
pub fn int8_tiles() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        {
            const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
            const XFEATURE_XTILEDATA: libc::c_long = 18;
            let leaf = std::arch::x86_64::__cpuid_count(7, 0);
            let (tile, int8) = ((leaf.edx >> 24) & 1 == 1, (leaf.edx >> 25) & 1 == 1);
            tile && int8
                && Isa::Avx512Vnni.available()
                && std::env::var_os("QLOWER_NO_AMX").is_none()
                // SAFETY: a plain system call with integer arguments; it only changes
                // which register states the kernel lets this process use.
                && unsafe {
                    libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
                } == 0
        }
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
        {
            false
        }
    })
}

/// Whether the CPU has AVX-512 VBMI's byte permutes (`vpermi2b`, `vpermb`) on top of
/// `Isa::Avx512Vnni`: a 256-entry byte table then fits four registers, and a depthwise
/// convolution gathers each output's inputs with one permute. Not a level of its own,
/// since AVX-512 VNNI CPUs without it exist and every level's code runs on both; only
/// byte table lookups and the depthwise convolution ask.
pub fn byte_permutes() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            Isa::Avx512Vnni.available() && is_x86_feature_detected!("avx512vbmi")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_cumulative() {
        let all = Isa::all_available();
        assert_eq!(all.first(), Some(&Isa::best()));
        assert_eq!(all.last(), Some(&Isa::Portable));
        for isa in all {
            assert!(Isa::best().includes(isa), "{isa:?}");
        }
        assert!(!Isa::Portable.includes(Isa::Avx2));
    }
}
