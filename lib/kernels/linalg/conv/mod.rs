//! `convolution`: 1-D to 3-D, grouped (depthwise included), strided, padded, dilated,
//! and transposed. A direct reference kernel: every output element sums, input
//! channel by input channel, over the kernel taps that land inside the input, in its
//! own element type (f32 without fused multiply-adds; i32 wrapping, like an int32
//! accumulator), then adds the bias. Work is split over (batch, output channel).
//!
//! Forward f32 convolutions take the fast path of `im2col` instead, and transposed ones
//! that of `transposed`, which round differently (fused multiply-adds, blocked sums);
//! the reference stays the path of every other case and the oracle the fast paths are
//! tested against.

use anyhow::{Context as _, Result, bail};
use rayon::prelude::*;

use crate::kernels::tensor::data::cast;
use crate::kernels::tensor::elem::{Elem, dispatch_numeric};
use crate::kernels::tensor::layout::{result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

// A child module, for `Geometry`; a flat file, like every kernel source.
mod im2col;
mod transposed;

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.convolution" | "aten._convolution" => convolution,
        "aten.conv1d" | "aten.conv2d" | "aten.conv3d" => conv_nd,
        _ => return None,
    })
}

/// The shape of a convolution, checked.
struct Geometry {
    batch: usize,
    c_in: usize,
    c_out: usize,
    groups: usize,
    input: Vec<usize>,
    kernel: Vec<usize>,
    output: Vec<usize>,
    stride: Vec<usize>,
    padding: Vec<usize>,
    dilation: Vec<usize>,
    transposed: bool,
}

/// The options after the three tensors, at operand indices `at`: stride, padding,
/// dilation, transposed, output_padding, groups.
struct Options {
    stride: usize,
    padding: usize,
    dilation: usize,
    transposed: Option<usize>,
    output_padding: Option<usize>,
    groups: usize,
}

fn geometry(c: &Call, x: &Tensor, w: &Tensor, at: &Options) -> Result<Geometry> {
    let rank = x.rank();
    if rank < 3 || w.rank() != rank {
        bail!(
            "convolution of input {:?} by weight {:?}: both need the same rank, 3 or more",
            x.shape,
            w.shape
        );
    }
    let n = rank - 2;
    let stride = args::per_axis(c, at.stride, n, "stride", 1)?;
    let padding = args::per_axis(c, at.padding, n, "padding", 0)?;
    let dilation = args::per_axis(c, at.dilation, n, "dilation", 1)?;
    let transposed = match at.transposed {
        Some(i) => args::boolean(c, i)?,
        None => false,
    };
    let output_padding = match at.output_padding {
        Some(i) if transposed => args::per_axis(c, i, n, "output_padding", 0)?,
        _ => vec![0; n],
    };
    let groups = args::size(args::int(c, at.groups)?, "groups")?;
    let (batch, c_in) = (x.shape[0], x.shape[1]);
    if groups == 0 || !c_in.is_multiple_of(groups) {
        bail!("{groups} groups do not divide {c_in} input channels");
    }
    let c_out = if transposed {
        if w.shape[0] != c_in {
            bail!(
                "transposed weight {:?} does not take {c_in} input channels",
                w.shape
            );
        }
        w.shape[1]
            .checked_mul(groups)
            .context("too many output channels")?
    } else {
        if w.shape[1].checked_mul(groups) != Some(c_in) {
            bail!(
                "weight {:?} expects {} channels per group, but the input has {c_in} in {groups} groups",
                w.shape,
                w.shape[1]
            );
        }
        if !w.shape[0].is_multiple_of(groups) {
            bail!(
                "{groups} groups do not divide {} output channels",
                w.shape[0]
            );
        }
        w.shape[0]
    };
    let input = x.shape[2..].to_vec();
    let kernel = w.shape[2..].to_vec();
    let mut output = Vec::with_capacity(n);
    for i in 0..n {
        let (size, k, s, p, d) = (input[i], kernel[i], stride[i], padding[i], dilation[i]);
        let extent = k
            .checked_sub(1)
            .and_then(|k| k.checked_mul(d))
            .and_then(|e| e.checked_add(1))
            .with_context(|| format!("kernel size {k} in spatial dimension {i}"))?;
        let o = if transposed {
            let op = output_padding[i];
            if op >= s && op >= d {
                bail!(
                    "output_padding {op} must be smaller than the stride {s} or the dilation {d}"
                );
            }
            // (size - 1)·s - 2p + extent + op, which must be positive.
            let full = (size as i128 - 1) * s as i128 + extent as i128 + op as i128;
            usize::try_from(full - 2 * p as i128)
                .ok()
                .filter(|&o| o > 0)
                .with_context(|| format!("spatial dimension {i} of the output would be empty"))?
        } else {
            let padded = p
                .checked_mul(2)
                .and_then(|p2| size.checked_add(p2))
                .context("padding too large")?;
            if padded < extent {
                bail!(
                    "spatial dimension {i}: input of size {size} padded by {p} is smaller than the kernel extent {extent}"
                );
            }
            (padded - extent) / s + 1
        };
        output.push(o);
    }
    Ok(Geometry {
        batch,
        c_in,
        c_out,
        groups,
        input,
        kernel,
        output,
        stride,
        padding,
        dilation,
        transposed,
    })
}

/// For every output position (row-major over the output's spatial dimensions), the
/// kernel taps that reach the input: pairs of (input offset, kernel offset) within a
/// channel's spatial block, in row-major kernel order. Kept as one flat list with the
/// start of each position's run.
struct Taps {
    starts: Vec<usize>,
    pairs: Vec<(usize, usize)>,
}

fn taps(g: &Geometry) -> Result<Taps> {
    let n = g.output.len();
    // Per axis and output coordinate: the (input coordinate, kernel coordinate) pairs.
    let mut axes: Vec<Vec<Vec<(usize, usize)>>> = Vec::with_capacity(n);
    for i in 0..n {
        // i128: products of sizes and strides given as i64 cannot overflow it.
        let (s, p, d) = (
            g.stride[i] as i128,
            g.padding[i] as i128,
            g.dilation[i] as i128,
        );
        let size = g.input[i] as i128;
        let per_out = (0..g.output[i] as i128)
            .map(|o| {
                (0..g.kernel[i] as i128)
                    .filter_map(|k| {
                        let at = if g.transposed {
                            // o = i·s - p + k·d  ⇒  i = (o + p - k·d) / s when exact.
                            let num = o + p - k * d;
                            if num < 0 || num % s != 0 {
                                return None;
                            }
                            num / s
                        } else {
                            o * s - p + k * d
                        };
                        (0..size).contains(&at).then_some((at as usize, k as usize))
                    })
                    .collect()
            })
            .collect();
        axes.push(per_out);
    }
    let in_strides = strides(&g.input);
    let k_strides = strides(&g.kernel);
    let count = result_count(&g.output)?;
    let mut starts = Vec::with_capacity(count + 1);
    let mut pairs = Vec::new();
    let mut coord = vec![0usize; n];
    for _ in 0..count {
        starts.push(pairs.len());
        // The Cartesian product of each axis's taps, last axis fastest.
        let lists: Vec<&Vec<(usize, usize)>> = (0..n).map(|i| &axes[i][coord[i]]).collect();
        if lists.iter().all(|l| !l.is_empty()) {
            let mut pick = vec![0usize; n];
            'product: loop {
                let (mut xi, mut ki) = (0, 0);
                for i in 0..n {
                    let (a, k) = lists[i][pick[i]];
                    xi += a * in_strides[i];
                    ki += k * k_strides[i];
                }
                pairs.push((xi, ki));
                let mut i = n;
                loop {
                    if i == 0 {
                        break 'product;
                    }
                    i -= 1;
                    pick[i] += 1;
                    if pick[i] < lists[i].len() {
                        break;
                    }
                    pick[i] = 0;
                }
            }
        }
        for i in (0..n).rev() {
            coord[i] += 1;
            if coord[i] < g.output[i] {
                break;
            }
            coord[i] = 0;
        }
    }
    starts.push(pairs.len());
    Ok(Taps { starts, pairs })
}

fn run<T: Elem>(g: &Geometry, x: &Data, w: &Data, bias: Option<&Data>) -> Result<Data> {
    let (Some(x), Some(w)) = (T::slice(x), T::slice(w)) else {
        bail!("the input and the weight have different element types");
    };
    let bias = match bias {
        Some(b) => Some(T::slice(b).context("the bias has another element type")?),
        None => None,
    };
    let in_block = result_count(&g.input)?;
    let k_block = result_count(&g.kernel)?;
    let out_block = result_count(&g.output)?;
    let total = result_count(&[g.batch, g.c_out, out_block])?;
    let mut out = vec![T::default(); total];
    if total == 0 {
        return Ok(T::wrap(out));
    }
    let taps = taps(g)?;
    let (cin_g, cout_g) = (g.c_in / g.groups, g.c_out / g.groups);
    out.par_chunks_mut(out_block)
        .enumerate()
        .for_each(|(chunk, y)| {
            let (n, oc) = (chunk / g.c_out, chunk % g.c_out);
            let group = oc / cout_g;
            for (pos, y) in y.iter_mut().enumerate() {
                let run = &taps.pairs[taps.starts[pos]..taps.starts[pos + 1]];
                let mut acc = T::default();
                for icg in 0..cin_g {
                    let ic = group * cin_g + icg;
                    let x_base = (n * g.c_in + ic) * in_block;
                    let w_base = if g.transposed {
                        (ic * cout_g + oc % cout_g) * k_block
                    } else {
                        (oc * cin_g + icg) * k_block
                    };
                    for &(xi, ki) in run {
                        acc = acc.add_product(x[x_base + xi], w[w_base + ki]);
                    }
                }
                if let Some(b) = bias {
                    acc = acc.plus(b[oc]);
                }
                *y = acc;
            }
        });
    Ok(T::wrap(out))
}

fn convolve(c: &Call, at: &Options) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let w = args::tensor(c, 1)?;
    let bias = args::opt_tensor(c, 2)?;
    for (name, t) in [("input", Some(x)), ("weight", Some(w)), ("bias", bias)] {
        if let Some(t) = t
            && t.quant.is_some()
        {
            bail!(
                "the {name} is a quantized {} tensor; convolution takes plain values",
                t.dtype()
            );
        }
    }
    let g = geometry(c, x, w, at)?;
    if x.data.dtype() != w.data.dtype() {
        bail!("the input is {} but the weight is {}", x.dtype(), w.dtype());
    }
    let bias = match bias {
        Some(b) if b.shape != [g.c_out] => {
            bail!("the bias has shape {:?}, expected [{}]", b.shape, g.c_out)
        }
        Some(b) => Some(cast(&b.data, x.data.dtype())),
        None => None,
    };
    let fast = match (&x.data, &w.data, bias.as_ref()) {
        (Data::F32(x), Data::F32(w), None) if g.transposed => transposed::convolve(&g, x, w, None),
        (Data::F32(x), Data::F32(w), Some(Data::F32(b))) if g.transposed => {
            transposed::convolve(&g, x, w, Some(b))
        }
        (Data::F32(x), Data::F32(w), None) => im2col::convolve(&g, x, w, None),
        (Data::F32(x), Data::F32(w), Some(Data::F32(b))) => im2col::convolve(&g, x, w, Some(b)),
        _ => None,
    };
    let data = match fast {
        Some(y) => Ok(Data::F32(y)),
        None => dispatch_numeric!(
            &x.data,
            run(&g, &x.data, &w.data, bias.as_ref()),
            bail!("convolution of {} tensors is not supported", x.dtype())
        ),
    }?;
    let mut shape = vec![g.batch, g.c_out];
    shape.extend(&g.output);
    args::ret(c, Tensor::new(shape, data)?)
}

/// `convolution(input, weight, bias?, stride, padding, dilation, transposed,
/// output_padding, groups)`.
pub(crate) fn convolution(c: &Call) -> Result<Vec<Value>> {
    // Quantized operands (the form fuse-quantized-ops writes) accumulate in int32.
    if args::tensor(c, 0)?.quant.is_some() {
        return crate::kernels::quantized::quantized_operands::quantized_conv(c);
    }
    convolve(
        c,
        &Options {
            stride: 3,
            padding: 4,
            dilation: 5,
            transposed: Some(6),
            output_padding: Some(7),
            groups: 8,
        },
    )
}

/// `convNd(input, weight, bias?, stride, padding, dilation, groups)` with padding as
/// a list.
fn conv_nd(c: &Call) -> Result<Vec<Value>> {
    if matches!(c.arg(4)?, Value::Str(_)) {
        bail!("string padding modes of conv are not supported");
    }
    convolve(
        c,
        &Options {
            stride: 3,
            padding: 4,
            dilation: 5,
            transposed: None,
            output_padding: None,
            groups: 6,
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    struct Conv {
        x: (Vec<usize>, Vec<f32>),
        w: (Vec<usize>, Vec<f32>),
        bias: Option<Vec<f32>>,
        stride: Vec<i64>,
        padding: Vec<i64>,
        dilation: Vec<i64>,
        transposed: bool,
        output_padding: Vec<i64>,
        groups: i64,
    }

    impl Conv {
        fn args(&self) -> Vec<Value> {
            vec![
                f32s(&self.x.0, &self.x.1),
                f32s(&self.w.0, &self.w.1),
                match &self.bias {
                    Some(b) => f32s(&[b.len()], b),
                    None => Value::None,
                },
                ints(&self.stride),
                ints(&self.padding),
                ints(&self.dilation),
                Value::Bool(self.transposed),
                ints(&self.output_padding),
                Value::Int(self.groups),
            ]
        }

        fn run(&self) -> (Vec<usize>, Vec<f32>) {
            let t = run1("aten.convolution", &self.args(), unknown()).unwrap();
            (t.shape.clone(), f32_values(&t))
        }
    }

    fn ramp(n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|i| (i as f32 * scale) - 1.0).collect()
    }

    /// The textbook formula for a 2-D convolution, one output element at a time.
    #[allow(clippy::too_many_arguments)]
    fn naive_2d(
        x: &[f32],
        xs: [usize; 4],
        w: &[f32],
        ws: [usize; 4],
        bias: &[f32],
        s: [usize; 2],
        p: [usize; 2],
        d: [usize; 2],
        groups: usize,
    ) -> (Vec<usize>, Vec<f32>) {
        let [n, c, h, wd] = xs;
        let [m, cg, kh, kw] = ws;
        let oh = (h + 2 * p[0] - d[0] * (kh - 1) - 1) / s[0] + 1;
        let ow = (wd + 2 * p[1] - d[1] * (kw - 1) - 1) / s[1] + 1;
        let mut out = Vec::new();
        for b in 0..n {
            for oc in 0..m {
                let g = oc / (m / groups);
                for y in 0..oh {
                    for z in 0..ow {
                        let mut acc = 0.0f32;
                        for icg in 0..cg {
                            let ic = g * cg + icg;
                            for i in 0..kh {
                                for j in 0..kw {
                                    let iy = (y * s[0] + i * d[0]) as i64 - p[0] as i64;
                                    let iz = (z * s[1] + j * d[1]) as i64 - p[1] as i64;
                                    if iy < 0 || iz < 0 || iy >= h as i64 || iz >= wd as i64 {
                                        continue;
                                    }
                                    let xv = x[((b * c + ic) * h + iy as usize) * wd + iz as usize];
                                    let wv = w[((oc * cg + icg) * kh + i) * kw + j];
                                    acc += xv * wv;
                                }
                            }
                        }
                        out.push(acc + bias[oc]);
                    }
                }
            }
        }
        (vec![n, m, oh, ow], out)
    }

    #[test]
    fn grouped_strided_dilated_padded_2d_matches_the_formula() {
        // 4 input channels in 2 groups, 4 output channels, stride (2,1), padding (1,2),
        // dilation (1,2).
        let xs = [2, 4, 5, 6];
        let ws = [4, 2, 3, 2];
        let x = ramp(xs.iter().product(), 0.1);
        let w = ramp(ws.iter().product(), 0.05);
        let bias = vec![0.5, -0.5, 1.0, 0.0];
        let conv = Conv {
            x: (xs.to_vec(), x.clone()),
            w: (ws.to_vec(), w.clone()),
            bias: Some(bias.clone()),
            stride: vec![2, 1],
            padding: vec![1, 2],
            dilation: vec![1, 2],
            transposed: false,
            output_padding: vec![0, 0],
            groups: 2,
        };
        let expected = naive_2d(&x, xs, &w, ws, &bias, [2, 1], [1, 2], [1, 2], 2);
        // The f32 fast path rounds its sums differently from the formula's order.
        let (shape, got) = conv.run();
        assert_eq!(shape, expected.0);
        for (a, b) in got.iter().zip(&expected.1) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
        }
    }

    #[test]
    fn depthwise_1d_and_3d() {
        let conv = Conv {
            x: (
                vec![1, 2, 4],
                vec![1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
            ),
            w: (vec![2, 1, 2], vec![1.0, 1.0, 1.0, -1.0]),
            bias: None,
            stride: vec![1],
            padding: vec![0],
            dilation: vec![1],
            transposed: false,
            output_padding: vec![0],
            groups: 2,
        };
        assert_eq!(
            conv.run(),
            (vec![1, 2, 3], vec![3.0, 5.0, 7.0, -10.0, -10.0, -10.0])
        );
        // A 2x2x2 sum over a 2x2x3 volume.
        let conv = Conv {
            x: (vec![1, 1, 2, 2, 3], ramp(12, 1.0)),
            w: (vec![1, 1, 2, 2, 2], vec![1.0; 8]),
            bias: Some(vec![100.0]),
            stride: vec![1],
            padding: vec![0],
            dilation: vec![1],
            transposed: false,
            output_padding: vec![0],
            groups: 1,
        };
        // Values are i - 1; windows start at 0 and 1: sums of {0,1,3,4,6,7,9,10} - 8.
        assert_eq!(conv.run(), (vec![1, 1, 1, 1, 2], vec![132.0, 140.0]));
    }

    #[test]
    fn transposed_convolution_scatters_each_input() {
        // 1-D, stride 2, kernel [1, 2, 3], padding 1, output_padding 1:
        // full output (len (2-1)*2 + 3 = 5) of x=[1, 10] is [1, 2, 3+10, 20, 30];
        // padding 1 crops one from each side, output_padding adds one at the end.
        let conv = Conv {
            x: (vec![1, 1, 2], vec![1.0, 10.0]),
            w: (vec![1, 1, 3], vec![1.0, 2.0, 3.0]),
            bias: Some(vec![0.5]),
            stride: vec![2],
            padding: vec![1],
            dilation: vec![1],
            transposed: true,
            output_padding: vec![1],
            groups: 1,
        };
        assert_eq!(conv.run(), (vec![1, 1, 4], vec![2.5, 13.5, 20.5, 30.5]));
        // Two groups: weight [C_in, C_out/groups, k].
        let conv = Conv {
            x: (vec![1, 2, 1], vec![1.0, 2.0]),
            w: (vec![2, 1, 2], vec![1.0, 2.0, 3.0, 4.0]),
            bias: None,
            stride: vec![1],
            padding: vec![0],
            dilation: vec![1],
            transposed: true,
            output_padding: vec![0],
            groups: 2,
        };
        assert_eq!(conv.run(), (vec![1, 2, 2], vec![1.0, 2.0, 6.0, 8.0]));
    }

    #[test]
    fn transposed_convolution_with_dilation() {
        // Kernel taps at 0 and 2: x=[1, 2] with stride 1 gives [1, 2, 1, 2].
        let conv = Conv {
            x: (vec![1, 1, 2], vec![1.0, 2.0]),
            w: (vec![1, 1, 2], vec![1.0, 1.0]),
            bias: None,
            stride: vec![1],
            padding: vec![0],
            dilation: vec![2],
            transposed: true,
            output_padding: vec![0],
            groups: 1,
        };
        assert_eq!(conv.run(), (vec![1, 1, 4], vec![1.0, 2.0, 1.0, 2.0]));
    }

    #[test]
    fn int32_convolution_wraps() {
        let args = vec![
            i32s(&[1, 1, 2], &[i32::MAX, 1]),
            i32s(&[1, 1, 2], &[1, 1]),
            i32s(&[1], &[1]),
            ints(&[1]),
            ints(&[0]),
            ints(&[1]),
            Value::Bool(false),
            ints(&[0]),
            Value::Int(1),
        ];
        let t = run1("aten.convolution", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![i32::MIN.wrapping_add(1)]));
    }

    #[test]
    fn bad_geometry_is_an_error() {
        let base = || Conv {
            x: (vec![1, 2, 3], vec![0.0; 6]),
            w: (vec![1, 2, 2], vec![0.0; 4]),
            bias: None,
            stride: vec![1],
            padding: vec![0],
            dilation: vec![1],
            transposed: false,
            output_padding: vec![0],
            groups: 1,
        };
        let fails = |f: &dyn Fn(&mut Conv)| {
            let mut conv = base();
            f(&mut conv);
            run("aten.convolution", &conv.args(), &[unknown()]).is_err()
        };
        assert!(!fails(&|_| {}));
        assert!(fails(&|c| c.groups = 3));
        assert!(fails(&|c| c.stride = vec![0]));
        assert!(fails(&|c| c.w = (vec![1, 2, 4], vec![0.0; 8])));
        assert!(fails(&|c| c.bias = Some(vec![0.0; 2])));
        assert!(fails(&|c| c.padding = vec![0, 0]));
        assert!(fails(&|c| c.x = (vec![2, 3], vec![0.0; 6])));
        assert!(fails(&|c| {
            c.transposed = true;
            c.w = (vec![2, 1, 2], vec![0.0; 4]);
            c.output_padding = vec![1];
        }));
    }

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn values(&mut self, n: usize) -> Vec<f32> {
            (0..n)
                .map(|_| (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
                .collect()
        }
    }

    /// The transposed fast path against the reference kernel on random transposed
    /// convolutions: 1-D to 3-D, groups, strides, dilations, padding, output padding,
    /// with and without bias, bounded as the im2col test bounds it.
    #[test]
    fn transposed_matches_the_reference_on_random_shapes() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for case in 0..90 {
            let rank = 1 + case % 3;
            let groups = [1, 1, 2, 3][rng.below(4)];
            let (cin_g, cout_g) = (1 + rng.below(4), 1 + rng.below(5));
            let batch = 1 + rng.below(2);
            let mut xs = vec![batch, cin_g * groups];
            let mut ws = vec![cin_g * groups, cout_g];
            let (mut stride, mut padding, mut dilation, mut extra) =
                (vec![], vec![], vec![], vec![]);
            for axis in 0..rank {
                let (mut k, mut st, mut d) = (1 + rng.below(3), 1 + rng.below(3), 1 + rng.below(2));
                let mut p = rng.below((d * (k - 1)) / 2 + 1);
                let mut e = rng.below(st);
                if axis == rank - 1 && case % 4 == 3 {
                    // A last axis the taps tile (the interleaved path): 2x2 or 3x3
                    // stride-equal upsampling.
                    (k, st, d, p, e) = (2 + case / 4 % 2, 2 + case / 4 % 2, 1, 0, 0);
                }
                xs.push(1 + rng.below(5));
                ws.push(k);
                stride.push(st as i64);
                padding.push(p as i64);
                dilation.push(d as i64);
                extra.push(e as i64);
            }
            let x = rng.values(xs.iter().product());
            let w = rng.values(ws.iter().product());
            let bias = (case % 2 == 0).then(|| rng.values(cout_g * groups));
            let values = vec![
                f32s(&xs, &x),
                f32s(&ws, &w),
                match &bias {
                    Some(b) => f32s(&[b.len()], b),
                    None => Value::None,
                },
                ints(&stride),
                ints(&padding),
                ints(&dilation),
                Value::Bool(true),
                ints(&extra),
                Value::Int(groups as i64),
            ];
            let results = [unknown()];
            let call = super::Call {
                args: &values,
                results: &results,
            };
            let options = super::Options {
                stride: 3,
                padding: 4,
                dilation: 5,
                transposed: Some(6),
                output_padding: Some(7),
                groups: 8,
            };
            let (xt, wt) = (
                crate::kernels::args::tensor(&call, 0).unwrap(),
                crate::kernels::args::tensor(&call, 1).unwrap(),
            );
            let g = super::geometry(&call, xt, wt, &options).unwrap();
            let reference = |x: &[f32], w: &[f32], b: &Option<Vec<f32>>| {
                let b = b.clone().map(Data::F32);
                match super::run::<f32>(
                    &g,
                    &Data::F32(x.to_vec()),
                    &Data::F32(w.to_vec()),
                    b.as_ref(),
                )
                .unwrap()
                {
                    Data::F32(v) => v,
                    _ => unreachable!(),
                }
            };
            let want = reference(&x, &w, &bias);
            let abs = |v: &[f32]| v.iter().map(|a| a.abs()).collect::<Vec<_>>();
            let magnitude = reference(&abs(&x), &abs(&w), &bias.as_deref().map(abs));
            let depth = (cin_g * ws[2..].iter().product::<usize>()) as f32;
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool
                    .install(|| super::transposed::convolve(&g, &x, &w, bias.as_deref()))
                    .unwrap();
                assert_eq!(got.len(), want.len(), "case {case}");
                for (i, ((a, b), m)) in got.iter().zip(&want).zip(&magnitude).enumerate() {
                    let bound = 2.0 * (depth + 1.0) * f32::EPSILON * m;
                    assert!(
                        (a - b).abs() <= bound,
                        "case {case} ({xs:?} by {ws:?}, stride {stride:?}, padding {padding:?}, \
                         dilation {dilation:?}, output padding {extra:?}, groups {groups}, \
                         {threads} threads): element {i} is {a}, the reference {b}"
                    );
                }
            }
        }
    }

    /// The im2col path against the reference kernel on random forward convolutions:
    /// 1-D to 3-D, groups, strides, dilations, padding, with and without bias, small
    /// column tiles, and 1 or 2 threads. Each element may differ from the reference by a
    /// few roundings of the largest partial sum, which `|x|·|w|` (the convolution of the
    /// magnitudes) bounds.
    #[test]
    fn im2col_matches_the_reference_on_random_shapes() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..120 {
            let rank = 1 + case % 3;
            let groups = [1, 1, 2, 3][rng.below(4)];
            let cin_g = 1 + rng.below(4);
            let cout_g = 1 + rng.below(5);
            let batch = 1 + rng.below(2);
            let mut xs = vec![batch, cin_g * groups];
            let mut ws = vec![cout_g * groups, cin_g];
            let (mut stride, mut padding, mut dilation) = (vec![], vec![], vec![]);
            for _ in 0..rank {
                let k = 1 + rng.below(3);
                let (s, d) = (1 + rng.below(3), 1 + rng.below(2));
                let p = rng.below(3);
                let extent = (k - 1) * d + 1;
                let size = (extent + rng.below(6)).saturating_sub(2 * p).max(1);
                let size = if size + 2 * p < extent { extent } else { size };
                xs.push(size);
                ws.push(k);
                stride.push(s as i64);
                padding.push(p as i64);
                dilation.push(d as i64);
            }
            // Every few cases a pointwise kernel, which skips the column matrix.
            if case % 7 == 0 {
                for i in 0..rank {
                    ws[2 + i] = 1;
                    stride[i] = 1;
                    padding[i] = 0;
                }
            }
            let x = rng.values(xs.iter().product());
            let w = rng.values(ws.iter().product());
            let bias = (case % 2 == 0).then(|| rng.values(cout_g * groups));
            let args = |x: &[f32], w: &[f32], b: &Option<Vec<f32>>| {
                vec![
                    f32s(&xs, x),
                    f32s(&ws, w),
                    match b {
                        Some(b) => f32s(&[b.len()], b),
                        None => Value::None,
                    },
                    ints(&stride),
                    ints(&padding),
                    ints(&dilation),
                    Value::Bool(false),
                    ints(&vec![0; rank]),
                    Value::Int(groups as i64),
                ]
            };
            let values = args(&x, &w, &bias);
            let results = [unknown()];
            let call = super::Call {
                args: &values,
                results: &results,
            };
            let options = super::Options {
                stride: 3,
                padding: 4,
                dilation: 5,
                transposed: Some(6),
                output_padding: Some(7),
                groups: 8,
            };
            let (xt, wt) = (
                crate::kernels::args::tensor(&call, 0).unwrap(),
                crate::kernels::args::tensor(&call, 1).unwrap(),
            );
            let g = super::geometry(&call, xt, wt, &options).unwrap();
            let reference = |x: &[f32], w: &[f32], b: &Option<Vec<f32>>| {
                let b = b.clone().map(Data::F32);
                match super::run::<f32>(
                    &g,
                    &Data::F32(x.to_vec()),
                    &Data::F32(w.to_vec()),
                    b.as_ref(),
                )
                .unwrap()
                {
                    Data::F32(v) => v,
                    _ => unreachable!(),
                }
            };
            let want = reference(&x, &w, &bias);
            let abs = |v: &[f32]| v.iter().map(|a| a.abs()).collect::<Vec<_>>();
            let magnitude = reference(&abs(&x), &abs(&w), &bias.as_deref().map(abs));
            let depth = (cin_g * ws[2..].iter().product::<usize>()) as f32;
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                for tile in [1 << 20, 7] {
                    let got = pool
                        .install(|| {
                            super::im2col::convolve_in_tiles(&g, &x, &w, bias.as_deref(), tile)
                        })
                        .unwrap();
                    assert_eq!(got.len(), want.len());
                    for (i, ((a, b), m)) in got.iter().zip(&want).zip(&magnitude).enumerate() {
                        let bound = 2.0 * (depth + 1.0) * f32::EPSILON * m;
                        assert!(
                            (a - b).abs() <= bound,
                            "case {case} ({xs:?} by {ws:?}, stride {stride:?}, padding \
                             {padding:?}, dilation {dilation:?}, groups {groups}, \
                             {threads} threads, tile {tile}): element {i} is {a}, \
                             the reference {b}"
                        );
                    }
                }
            }
        }
    }
}
