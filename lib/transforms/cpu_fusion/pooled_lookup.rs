//! Part of `compose-lookups`: a max pool of a float lookup (one row, or one per
//! channel), `max_poolNd(qlower.dequantized_lookup(x, table))`, becomes the lookup of a
//! max pool of x's bytes, `qlower.dequantized_lookup(qlower.qmax_pool(x), table)`, when
//! the table (each row) never decreases along x's integer order. QDQ models that leave a
//! ReLU and a MaxPool in float after a quantized convolution (a ResNet stem) then pool
//! a quarter of the bytes and look up a quarter of the elements.
//!
//! Why the results are the same bits: with a non-decreasing table, the largest of a
//! window's looked-up floats equals the lookup of its largest byte. Equal floats have
//! equal bits unless they are 0.0 and -0.0, and NaN is unordered, so a table holding
//! either declines. A window wholly in the padding would be -inf in the float pool but
//! a byte in the pool of bytes, so geometries that have one decline too.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_bool, constant_int, defining, named};
use crate::kernels::tensor::Data;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::runtime::ir_values::constant_value;

/// What the rewrite of a pool needs: x (the lookup's bytes), the lookup's table and
/// axis operands, and the type of x pooled.
pub(super) struct PooledLookup<'c, 'a> {
    pub x: MlirValue<'c, 'a>,
    pub table: MlirValue<'c, 'a>,
    pub axis: MlirValue<'c, 'a>,
    pub pooled_type: TensorType,
}

/// The match for `pool`, a `torch.aten.max_poolNd` (operands x, kernel, stride,
/// padding, dilation, ceil_mode), or `None`.
pub(super) fn match_pool<'c: 'a, 'a>(pool: OperationRef<'c, 'a>) -> Option<PooledLookup<'c, 'a>> {
    let spatial = super::max_pool::spatial_axes(pool)?;
    if pool.operand_count() != 6 || pool.result_count() != 1 {
        return None;
    }
    let lookup = named(
        pool.operand(0).ok()?,
        crate::dialect::qlower::DEQUANTIZED_LOOKUP,
    )?;
    let x = lookup.operand(0).ok()?;
    let Ok(Some(Value::Tensor(table))) = constant_value(defining(lookup.operand(1).ok()?)?) else {
        return None;
    };
    let Data::F32(entries) = &table.data else {
        return None;
    };
    let x_type = TensorType::parse(&x.r#type().to_string())?;
    let signed = match x_type.dtype? {
        DType::U8 | DType::QUInt8 => false,
        DType::I8 | DType::QInt8 => true,
        _ => return None,
    };
    // One row, or one per channel along an axis the pool does not slide over (a
    // per-channel BatchNorm folded after a stem conv): each window then reads one row.
    let [rows, 256] = table.shape[..] else {
        return None;
    };
    if rows == 0 || !entries.chunks_exact(256).all(|row| ascending(row, signed)) {
        return None;
    }
    if rows > 1 {
        let rank = x_type.shape.as_ref()?.len();
        let axis = usize::try_from(constant_int(lookup.operand(2).ok()?)?).ok()?;
        if axis + spatial >= rank {
            return None;
        }
    }
    let out_type = TensorType::parse(&pool.result(0).ok()?.r#type().to_string())?;
    if !every_window_reads_input(pool, spatial, &x_type, &out_type) {
        return None;
    }
    Some(PooledLookup {
        x,
        table: lookup.operand(1).ok()?,
        axis: lookup.operand(2).ok()?,
        pooled_type: TensorType {
            dtype: x_type.dtype,
            shape: out_type.shape,
        },
    })
}

/// Whether every window of `pool`, a `torch.aten.max_poolNd` over `spatial` axes from
/// `x_type` to `out_type`, has a tap inside the input: in the float pool, one wholly in
/// the padding is -inf, which no byte is. Without ceil mode, whatever the sizes, zero
/// padding keeps every tap inside, and so does a padding below the kernel without
/// dilation (each window then spans the input's first or last position, or lies
/// between them); otherwise each axis is checked from the declared sizes, and dynamic
/// ones decline.
pub(super) fn every_window_reads_input(
    pool: OperationRef,
    spatial: usize,
    x_type: &TensorType,
    out_type: &TensorType,
) -> bool {
    let list = |i| -> Option<Vec<i64>> {
        let l = named(pool.operand(i).ok()?, "torch.prim.ListConstruct")?;
        let v: Option<Vec<i64>> = l.operands().map(constant_int).collect();
        v.filter(|v| v.len() == spatial)
    };
    let (Some(kernel), Some(stride), Some(padding), Some(dilation), Some(ceil)) = (
        list(1),
        list(2),
        list(3),
        list(4),
        pool.operand(5).ok().and_then(constant_bool),
    ) else {
        return false;
    };
    let short_padding = (0..spatial)
        .all(|a| padding[a] == 0 || (dilation[a] == 1 && (0..kernel[a]).contains(&padding[a])));
    if short_padding && !ceil {
        return true;
    }
    let (Some(x_dims), Some(out_dims)) = (x_type.static_dims(), out_type.static_dims()) else {
        return false;
    };
    if x_dims.len() != out_dims.len() || x_dims.len() < spatial {
        return false;
    }
    let lead = x_dims.len() - spatial;
    (0..spatial).all(|a| {
        let window = Window {
            input: x_dims[lead + a],
            kernel: kernel[a],
            stride: stride[a],
            padding: padding[a],
            dilation: dilation[a],
        };
        window.every_one_reads_input(out_dims[lead + a])
    })
}

/// Whether the 256 entries, indexed by a byte's bits, never decrease from the lowest
/// integer to the highest (bytes 128..=255 come first when they are signed), and hold
/// neither NaN nor -0.0.
fn ascending(entries: &[f32], signed: bool) -> bool {
    let order = (0..256usize).map(|i| if signed { (i + 128) % 256 } else { i });
    let mut previous = f32::NEG_INFINITY;
    for i in order {
        let Some(&v) = entries.get(i) else {
            return false;
        };
        if v.is_nan() || v.to_bits() == (-0.0f32).to_bits() || v < previous {
            return false;
        }
        previous = v;
    }
    true
}

/// Windows along one axis beyond which a pool is left alone.
const MAX_WINDOWS: i64 = 1 << 20;

/// One spatial axis of a pool.
struct Window {
    input: i64,
    kernel: i64,
    stride: i64,
    padding: i64,
    dilation: i64,
}

impl Window {
    /// Whether each of `outputs` windows has a tap inside the input. Sizes that are not
    /// positive (a malformed pool) and more than `MAX_WINDOWS` windows answer no: the
    /// sizes come from the model, and each window is checked in turn.
    fn every_one_reads_input(&self, outputs: i64) -> bool {
        if self.input <= 0 || self.kernel <= 0 || self.stride <= 0 || self.dilation <= 0 {
            return false;
        }
        if !(0..=MAX_WINDOWS).contains(&outputs) {
            return false;
        }
        // In i128, no product of these i64 sizes overflows.
        let [n, k, s, p, d] = [
            self.input,
            self.kernel,
            self.stride,
            self.padding,
            self.dilation,
        ]
        .map(i128::from);
        (0..i128::from(outputs)).all(|j| {
            let start = j * s - p;
            // The window's first tap at or past column 0; it is inside the input, or
            // none is.
            let first = if start >= 0 { 0 } else { (-start + d - 1) / d };
            first < k && start + first * d < n
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_follows_the_integer_order_of_the_bytes() {
        let unsigned: Vec<f32> = (0..256).map(|i| (i as f32 - 100.0).max(0.0)).collect();
        assert!(ascending(&unsigned, false));
        // Read as int8, byte 255 (-1) would come before byte 0.
        assert!(!ascending(&unsigned, true));
        let signed: Vec<f32> = (0..256).map(|i| (i as u8 as i8) as f32).collect();
        assert!(ascending(&signed, true));
        assert!(!ascending(&signed, false));
        let mut with_nan = unsigned.clone();
        with_nan[3] = f32::NAN;
        assert!(!ascending(&with_nan, false));
        let mut negative_zero = unsigned.clone();
        negative_zero[0] = -0.0;
        assert!(!ascending(&negative_zero, false));
        assert!(!ascending(&unsigned[..255], false));
    }

    #[test]
    fn a_window_wholly_in_the_padding_is_found() {
        let w = |kernel, stride, padding, dilation| Window {
            input: 4,
            kernel,
            stride,
            padding,
            dilation,
        };
        // 3x3 stride 2 pad 1 on 4: windows at -1, 1.
        assert!(w(3, 2, 1, 1).every_one_reads_input(2));
        // Padding 2 with a kernel of 2: the first window covers -2 and -1 only.
        assert!(!w(2, 1, 2, 1).every_one_reads_input(7));
        // Dilation 3 from -2 reads -2 and 1.
        assert!(w(2, 1, 2, 3).every_one_reads_input(1));
        // A ceil-mode window starting past the input.
        assert!(!w(2, 2, 0, 1).every_one_reads_input(3));
        assert!(!w(0, 1, 0, 1).every_one_reads_input(1));
        // A kernel of any size answers at once, and sizes whose products overflow i64
        // do not wrap: from -MAX, dilation MAX reaches column 0; the second window of
        // stride MAX starts past the input.
        assert!(w(i64::MAX, 1, 0, 1).every_one_reads_input(1));
        assert!(w(2, 1, i64::MAX, i64::MAX).every_one_reads_input(1));
        assert!(!w(2, i64::MAX, 0, i64::MAX).every_one_reads_input(2));
        // Too many windows decline.
        assert!(!w(3, 1, 1, 1).every_one_reads_input(MAX_WINDOWS + 1));
    }
}
