//! How close the integer tile comes to its instruction's peak on this CPU:
//! `cargo run --release --example tile_peak`. Each path of `qgemm` (AMX four tiles at
//! a time, AVX-512 VNNI, AVX2, portable) multiplies operands that stay in L1 over and
//! over; the report is its multiply-accumulates per core clock against the documented
//! throughput of the instruction it is built on. The clock is measured, not read from
//! the CPU's name: a chain of dependent adds retires one add per cycle.
//!
//! Timing on shared machines moves between runs (other tenants use the same cores and
//! the same AMX unit), so each figure is the best of several rounds.

use std::time::Instant;

use qlower::kernels::isa::{self, Isa};
use qlower::kernels::linalg::qgemm::{self, Aligned, MR, NR, Signs, Tile};

/// Quads of K per call: 256 values, the K of a 3×3 convolution over 28 channels, and
/// small enough that 32 rows and one panel (16 KB) stay in L1.
const KQ: usize = 64;
const ROUNDS: usize = 7;

/// Core clock in Hz, from the time a chain of dependent adds takes.
fn clock_hz() -> f64 {
    let adds: u64 = 200_000_000;
    let mut best = f64::MAX;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        chain(adds);
        best = best.min(start.elapsed().as_secs_f64());
    }
    adds as f64 / best
}

/// `n` adds, each waiting for the one before: one cycle each on every x86 core since
/// the Pentium Pro. Register operands, not immediates: recent Intel cores fold chains
/// of immediate adds at rename. Four per loop iteration keep the loop's own branch off
/// the path.
fn chain(n: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        let (mut x, one) = (0u64, std::hint::black_box(1u64));
        // SAFETY: register arithmetic only.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {x}, {one}",
                "add {x}, {one}",
                "add {x}, {one}",
                "add {x}, {one}",
                "sub {n}, 4",
                "jnz 2b",
                x = inout(reg) x,
                one = in(reg) one,
                n = inout(reg) n => _,
                options(nomem, nostack),
            )
        };
        std::hint::black_box(x);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut x = 0u64;
        for _ in 0..n {
            x = std::hint::black_box(x + 1);
        }
    }
}

/// One path of the tile: its name, the instruction set, how many 8-row tiles one call
/// covers, and the instruction's documented multiply-accumulates per cycle.
struct Path {
    name: &'static str,
    isa: Isa,
    tiles: usize,
    peak: f64,
    basis: &'static str,
}

fn paths() -> Vec<Path> {
    let mut out = Vec::new();
    if qgemm::prefers_tiles4(Isa::best()) {
        out.push(Path {
            name: "AMX-INT8 (4 tiles a call)",
            isa: Isa::Avx512Vnni,
            tiles: 4,
            peak: 1024.0,
            basis: "tdpbusd: 16x16x64 per 16 cycles",
        });
    }
    if Isa::Avx512Vnni.available() {
        out.push(Path {
            name: "AVX-512 VNNI",
            isa: Isa::Avx512Vnni,
            tiles: 1,
            peak: 128.0,
            basis: "vpdpbusd zmm: 64, two a cycle (cores with one 512-bit FMA unit: one)",
        });
    }
    if Isa::Avx2.available() {
        out.push(Path {
            name: "AVX2 (16-bit products, 4 tiles a call)",
            isa: Isa::Avx2,
            tiles: 4,
            peak: 32.0,
            basis: "vpmaddwd ymm: 16, two a cycle (its vpaddd shares the ports)",
        });
    }
    out.push(Path {
        name: "portable",
        isa: Isa::Portable,
        tiles: 1,
        peak: f64::NAN,
        basis: "-",
    });
    out
}

/// Best multiply-accumulates per second of `path` over `ROUNDS` rounds.
fn macs_per_second(path: &Path) -> f64 {
    let stride = qgemm::lhs_stride(KQ * 4);
    let mut lhs = Aligned::zeroed(path.tiles * MR * stride);
    for (i, b) in lhs.iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }
    let mut rhs = Aligned::zeroed(KQ * NR * 4);
    for (i, b) in rhs.iter_mut().enumerate() {
        *b = (i * 13 % 251) as u8;
    }
    let mut out: Vec<Tile> = vec![[[0; NR]; MR]; path.tiles];
    let call_macs = (path.tiles * MR * NR * KQ * 4) as f64;
    // About 20 ms a round on the fast paths.
    let calls = if path.isa == Isa::Portable {
        200
    } else {
        20_000 / path.tiles
    };
    let mut best = 0f64;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..calls {
            qgemm::tiles(path.isa, Signs::SignedLhs, &lhs, stride, &rhs, KQ, &mut out);
            std::hint::black_box(&mut out);
        }
        best = best.max(call_macs * calls as f64 / start.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let hz = clock_hz();
    println!(
        "core clock {:.2} GHz (dependent adds); best of {ROUNDS} rounds, K = {}, operands in L1",
        hz / 1e9,
        KQ * 4
    );
    println!(
        "AMX tiles usable: {}; AVX-512 VNNI: {}; AVX2: {}",
        isa::int8_tiles(),
        Isa::Avx512Vnni.available(),
        Isa::Avx2.available()
    );
    println!(
        "\n| path | GMAC/s | MAC per cycle | instruction peak | fraction | peak from |\n|---|---|---|---|---|---|"
    );
    for path in paths() {
        let rate = macs_per_second(&path);
        let per_cycle = rate / hz;
        let fraction = if path.peak.is_nan() {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * per_cycle / path.peak)
        };
        println!(
            "| {} | {:.0} | {:.1} | {} | {fraction} | {} |",
            path.name,
            rate / 1e9,
            per_cycle,
            if path.peak.is_nan() {
                "-".to_string()
            } else {
                format!("{:.0}", path.peak)
            },
            path.basis
        );
    }
}
