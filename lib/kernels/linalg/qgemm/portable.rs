//! The tile in plain Rust: the reference the SIMD paths are tested against, and the
//! path on CPUs without them.

use super::{MR, NR, Signs, Tile};

pub fn tile(signs: Signs, lhs: &[u8], lhs_stride: usize, rhs: &[u8], kq: usize, out: &mut Tile) {
    *out = [[0; NR]; MR];
    for q in 0..kq {
        let panel = &rhs[q * NR * 4..(q + 1) * NR * 4];
        for (r, row) in out.iter_mut().enumerate().take(MR) {
            let l = &lhs[r * lhs_stride + q * 4..r * lhs_stride + q * 4 + 4];
            for (j, o) in row.iter_mut().enumerate() {
                let x = &panel[j * 4..j * 4 + 4];
                let mut sum = 0i32;
                for t in 0..4 {
                    sum += match signs {
                        Signs::SignedLhs => l[t] as i8 as i32 * x[t] as i32,
                        Signs::UnsignedLhs => l[t] as i32 * x[t] as i8 as i32,
                    };
                }
                *o = o.wrapping_add(sum);
            }
        }
    }
}
