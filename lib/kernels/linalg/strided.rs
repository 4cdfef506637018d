//! Where a strided walk lands inside an extent: the one range computation behind the
//! convolutions' padding (im2col's runs, the pixel-row kernel's border taps, the
//! transposed convolution's scatter), so none needs a division or a check per step.

/// The steps `x` (below `count`) whose position `x·stride + offset` lies in
/// `0..extent`: one range `lo..hi`, empty as `lo == hi` (a stride of 0 counts as 1).
#[inline]
pub(crate) fn inside(offset: isize, stride: usize, extent: usize, count: usize) -> (usize, usize) {
    let stride = stride.max(1);
    // No division where none is needed (a stride of 1, a start inside): the pixel-row
    // kernel asks for three axes of eight pixels per block near the padding. Unsigned
    // and i128 arithmetic: strides and offsets come from a model's attributes, and no
    // value of them may overflow here.
    let lo = match offset {
        0.. => 0,
        _ if stride == 1 => offset.unsigned_abs(),
        _ => offset.unsigned_abs().div_ceil(stride),
    };
    let reach = extent as i128 - 1 - offset as i128;
    let hi = match reach {
        ..0 => 0,
        d if stride == 1 => d + 1,
        d => d / stride as i128 + 1,
    };
    let hi = hi.min(count as i128) as usize;
    (lo.min(hi), hi)
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
        // Extremes a model's attributes can reach give the defined range, not an
        // overflow (the positions checked in i128).
        for (offset, stride, extent) in [
            (isize::MIN, usize::MAX, 5),
            (-1, usize::MAX, usize::MAX),
            (isize::MAX, 1, usize::MAX),
            (isize::MIN, 1, usize::MAX),
            (isize::MAX, usize::MAX, 7),
        ] {
            let (lo, hi) = inside(offset, stride, extent, 3);
            let lands = |x: usize| {
                let p = x as i128 * stride as i128 + offset as i128;
                (0..extent as i128).contains(&p)
            };
            let want: Vec<usize> = (0..3).filter(|&x| lands(x)).collect();
            assert_eq!(
                (lo..hi).collect::<Vec<_>>(),
                want,
                "{offset} {stride} {extent}"
            );
        }
    }
}
