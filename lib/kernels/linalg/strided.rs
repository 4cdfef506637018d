//! Where a strided walk lands inside an extent: the one range computation behind the
//! convolutions' padding (im2col's runs, the pixel-row kernel's border taps, the
//! transposed convolution's scatter), so none needs a division or a check per step.

/// The steps `x` (below `count`) whose position `x·stride + offset` lies in
/// `0..extent`: one range `lo..hi`, empty as `lo == hi`. `stride` is at least 1.
#[inline]
pub(crate) fn inside(offset: isize, stride: usize, extent: usize, count: usize) -> (usize, usize) {
    let (s, last) = (stride as isize, extent as isize - 1);
    // No division where none is needed (a stride of 1, a start inside): the pixel-row
    // kernel asks for three axes of eight pixels per block near the padding.
    let lo = match offset {
        0.. => 0,
        _ if s == 1 => -offset,
        _ => (-offset + s - 1) / s,
    };
    let hi = match last - offset {
        ..0 => 0,
        d if s == 1 => d + 1,
        d => d / s + 1,
    };
    let hi = (hi.max(0) as usize).min(count);
    ((lo as usize).min(hi), hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against stepping through every position.
    #[test]
    fn the_range_is_every_step_that_lands_inside() {
        for offset in -7isize..8 {
            for stride in 1..4 {
                for extent in 0..6 {
                    for count in 0..6 {
                        let (lo, hi) = inside(offset, stride, extent, count);
                        let want: Vec<usize> = (0..count)
                            .filter(|&x| {
                                (0..extent as isize)
                                    .contains(&(x as isize * stride as isize + offset))
                            })
                            .collect();
                        let got: Vec<usize> = (lo..hi).collect();
                        assert_eq!(got, want, "{offset} {stride} {extent} {count}");
                    }
                }
            }
        }
    }
}
