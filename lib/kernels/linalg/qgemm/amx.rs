//! Four tiles at once with AMX-INT8, where the CPU and the OS offer it
//! (`isa::int8_tiles`): one `tdpbusd` (or `tdpbsud` for signed L) multiplies a
//! 16-row×64-byte tile of L by a 16-quad×16-column tile of R and adds the products to
//! a 16×16 tile of int32 sums, exactly and without saturation, as `vpdpbusd` does lane
//! by lane; the sums are the other paths' to the bit. The panel layout is already
//! AMX's: quad q's 32 columns are 128 bytes, so a panel's two halves are two tiles of
//! rows 128 bytes apart.
//!
//! Loading tiles, not multiplying them, bounds AMX here, so each call covers 4·MR = 32
//! rows against one panel: per step of 16 quads, two L tiles and two R tiles (4 KB)
//! feed four products. Tiles 0–3 hold the sums (rows 0–15 and 16–31 by columns 0–15
//! and 16–31), 4 and 5 the two halves of L, 6 and 7 the two halves of R. Quads left
//! after whole steps are copied into one zero-padded step. The instructions are
//! written with `asm!`: Rust has no stable AMX intrinsics, and the compiler never
//! allocates tile registers itself.

#![cfg(target_arch = "x86_64")]

use std::arch::asm;
use std::cell::Cell;

use super::{MR, NR, Signs, Tile};

/// Quads per step: a tile row is 64 bytes.
const STEP: usize = 16;
/// Rows of one L tile and of one sum tile.
const ROWS: usize = 16;
/// Bytes of one quad's row of a panel.
const PANEL_ROW: usize = NR * 4;

const _: () = assert!(NR == 32 && 4 * MR == 2 * ROWS);

thread_local! {
    /// Whether this thread's tiles hold `config()`; nothing else in the process
    /// configures tiles, and loading a configuration costs more than a step.
    static CONFIGURED: Cell<bool> = const { Cell::new(false) };
}

/// The zero-padded last step of L's 32 rows and of the panel, kept per thread: clearing
/// 4 KB on every call cost as much as a step when K is small (a pointwise conv over
/// 24 channels is one padded step and nothing else).
struct RestStep {
    a: Lines<{ 2 * ROWS * STEP * 4 }>,
    b: Lines<{ STEP * PANEL_ROW }>,
    /// Quads per row the last call copied; every byte past them is zero.
    written: usize,
}

/// Bytes on 64-byte lines, as tile rows load best.
#[repr(C, align(64))]
struct Lines<const N: usize>([u8; N]);

thread_local! {
    static REST: std::cell::RefCell<RestStep> = const {
        std::cell::RefCell::new(RestStep {
            a: Lines([0; 2 * ROWS * STEP * 4]),
            b: Lines([0; STEP * PANEL_ROW]),
            written: 0,
        })
    };
}

/// The 64-byte operand of `ldtilecfg`: palette 1, then each tile's bytes per row and
/// rows; every tile is 16 rows of 64 bytes.
#[repr(C, align(64))]
struct Config([u8; 64]);

fn config() -> Config {
    let mut c = Config([0; 64]);
    c.0[0] = 1;
    for t in 0..8 {
        c.0[16 + 2 * t..18 + 2 * t].copy_from_slice(&64u16.to_le_bytes());
        c.0[48 + t] = ROWS as u8;
    }
    c
}

/// One step: L's 16 quads at `a` (32 rows `sa` apart) times the panel's 16 quads at
/// `b`, added to the four sum tiles.
///
/// # Safety
/// The tiles are configured; `a` is readable for 32 rows of 64 bytes, `b` for 16 rows
/// of `PANEL_ROW` bytes.
#[inline(always)]
unsafe fn step(signs: Signs, a: *const u8, sa: usize, b: *const u8) {
    macro_rules! run {
        ($dp:literal) => {
            // SAFETY: forwarded from the caller.
            unsafe {
                asm!(
                    "tileloadd tmm4, [{a} + {sa}*1]",
                    "tileloadd tmm6, [{b} + {sb}*1]",
                    "tileloadd tmm7, [{b2} + {sb}*1]",
                    "tileloadd tmm5, [{a2} + {sa}*1]",
                    concat!($dp, " tmm0, tmm4, tmm6"),
                    concat!($dp, " tmm1, tmm4, tmm7"),
                    concat!($dp, " tmm2, tmm5, tmm6"),
                    concat!($dp, " tmm3, tmm5, tmm7"),
                    a = in(reg) a, a2 = in(reg) a.add(ROWS * sa), sa = in(reg) sa,
                    b = in(reg) b, b2 = in(reg) b.add(64), sb = in(reg) PANEL_ROW,
                    options(nostack, readonly),
                )
            }
        };
    }
    match signs {
        Signs::UnsignedLhs => run!("tdpbusd"),
        Signs::SignedLhs => run!("tdpbsud"),
    }
}

/// `out[i]` = rows `i·MR..(i+1)·MR` of `lhs` against one panel, as `super::tile`.
///
/// # Safety
/// `isa::int8_tiles()` is true; `lhs` is readable for `(4·MR-1)·lhs_stride + 4·kq`
/// bytes and `rhs` for `4·NR·kq` bytes.
pub unsafe fn tiles4(
    signs: Signs,
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut [Tile; 4],
) {
    if !CONFIGURED.get() {
        let config = config();
        // SAFETY: the caller guarantees AMX is usable; the configuration is valid for
        // the palette every AMX CPU has.
        unsafe {
            asm!(
                "ldtilecfg [{config}]",
                config = in(reg) config.0.as_ptr(),
                options(nostack, readonly),
            )
        };
        CONFIGURED.set(true);
    }
    // SAFETY: the tiles are configured.
    unsafe {
        asm!(
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "tilezero tmm3",
            options(nostack, nomem)
        )
    };
    let (full, rest) = (kq / STEP, kq % STEP);
    for s in 0..full {
        // SAFETY: step s < full lies inside the bounds the caller guarantees.
        unsafe {
            step(
                signs,
                lhs.add(s * STEP * 4),
                lhs_stride,
                rhs.add(s * STEP * PANEL_ROW),
            )
        };
    }
    if rest > 0 {
        REST.with_borrow_mut(|buffers| {
            let RestStep { a, b, written } = buffers;
            // The last quads, zero padded to a whole step: zeros add nothing. Only
            // quads an earlier call wrote past `rest` need clearing (one conv or
            // matmul has one `rest`, so mostly none).
            if *written > rest {
                for row in a.0.chunks_exact_mut(STEP * 4) {
                    row[rest * 4..*written * 4].fill(0);
                }
                b.0[rest * PANEL_ROW..*written * PANEL_ROW].fill(0);
            }
            *written = rest;
            // SAFETY: the copies read the last `rest` quads of the 32 rows of L and of
            // the panel, inside the bounds the caller guarantees, into buffers of 32
            // rows of a step and of a step of the panel; the padded step reads them.
            unsafe {
                for r in 0..2 * ROWS {
                    std::ptr::copy_nonoverlapping(
                        lhs.add(r * lhs_stride + full * STEP * 4),
                        a.0.as_mut_ptr().add(r * STEP * 4),
                        rest * 4,
                    );
                }
                std::ptr::copy_nonoverlapping(
                    rhs.add(full * STEP * PANEL_ROW),
                    b.0.as_mut_ptr(),
                    rest * PANEL_ROW,
                );
                step(signs, a.0.as_ptr(), STEP * 4, b.0.as_ptr());
            }
        });
    }
    // The four tiles are 32 consecutive rows of NR i32s (128 bytes each).
    let c = out.as_mut_ptr() as *mut u8;
    // SAFETY: `out` is 32 rows of 128 bytes; each sum tile is 16 rows of 64 bytes at a
    // 128-byte stride, at its row and column offset.
    unsafe {
        asm!(
            "tilestored [{c} + {sc}*1], tmm0",
            "tilestored [{c1} + {sc}*1], tmm1",
            "tilestored [{c2} + {sc}*1], tmm2",
            "tilestored [{c3} + {sc}*1], tmm3",
            c = in(reg) c, c1 = in(reg) c.add(64),
            c2 = in(reg) c.add(ROWS * PANEL_ROW), c3 = in(reg) c.add(ROWS * PANEL_ROW + 64),
            sc = in(reg) PANEL_ROW,
            options(nostack),
        );
    }
}
