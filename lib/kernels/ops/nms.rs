//! `qlower.non_max_suppression`: ONNX NonMaxSuppression, one kernel for the whole op.
//! torch has no op with its semantics (torchvision's `nms` has no per-class limit, no
//! score threshold, no centre-point boxes and no flipped corners), so the lowering keeps
//! it as qlower's own `torch.operator` (see `dialect::qlower`).
//!
//! Operands: boxes `[B, N, 4]` f32, scores `[B, C, N]` f32, max_output_boxes_per_class
//! (an int64 tensor or none: none selects nothing), iou_threshold (f32 tensor or none:
//! 0), score_threshold (f32 tensor or none: no threshold), center_point_box (int).
//! Result: `[n, 3]` int64 rows (batch, class, box), per batch then per class, each
//! class's boxes in the order they were selected.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, bounded_bytes};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    match op {
        "qlower.non_max_suppression" => Some(non_max_suppression),
        _ => None,
    }
}

/// A box as its sorted corners, in f32 as ONNX Runtime computes them.
#[derive(Clone, Copy)]
struct Corners {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

impl Corners {
    /// `[y1, x1, y2, x2]` (any two diagonal corners) or, with `center`,
    /// `[x_center, y_center, width, height]`.
    fn of(b: &[f32], center: bool) -> Corners {
        if center {
            let (hw, hh) = (b[2] / 2.0, b[3] / 2.0);
            Corners {
                x0: b[0] - hw,
                x1: b[0] + hw,
                y0: b[1] - hh,
                y1: b[1] + hh,
            }
        } else {
            Corners {
                x0: b[1].min(b[3]),
                x1: b[1].max(b[3]),
                y0: b[0].min(b[2]),
                y1: b[0].max(b[2]),
            }
        }
    }

    fn area(&self) -> f32 {
        (self.x1 - self.x0) * (self.y1 - self.y0)
    }
}

/// Whether `b` overlaps the already selected `a` by more than `threshold` (intersection
/// over union, strictly greater). Boxes that do not overlap, or have no area, never
/// suppress each other.
fn suppresses(a: &Corners, b: &Corners, threshold: f32) -> bool {
    let (ix0, ix1) = (a.x0.max(b.x0), a.x1.min(b.x1));
    let (iy0, iy1) = (a.y0.max(b.y0), a.y1.min(b.y1));
    if ix1 <= ix0 || iy1 <= iy0 {
        return false;
    }
    let inter = (ix1 - ix0) * (iy1 - iy0);
    let (area_a, area_b) = (a.area(), b.area());
    let union = area_a + area_b - inter;
    if inter <= 0.0 || area_a <= 0.0 || area_b <= 0.0 || union <= 0.0 {
        return false;
    }
    inter / union > threshold
}

/// The single value of an optional scalar operand, or `None` when it is absent.
fn scalar(c: &Call, i: usize, name: &str) -> Result<Option<f64>> {
    let Some(t) = args::opt_tensor(c, i)? else {
        return Ok(None);
    };
    match t.data.to_f64()[..] {
        [] => Ok(None),
        [v] => Ok(Some(v)),
        _ => bail!("{name} has shape {:?}, but must hold one value", t.shape),
    }
}

fn non_max_suppression(c: &Call) -> Result<Vec<Value>> {
    let boxes = args::tensor(c, 0)?;
    let scores = args::tensor(c, 1)?;
    let [batches, n, 4] = boxes.shape[..] else {
        bail!(
            "boxes has shape {:?}, but must be [batch, boxes, 4]",
            boxes.shape
        );
    };
    let [score_batches, classes, score_n] = scores.shape[..] else {
        bail!(
            "scores has shape {:?}, but must be [batch, classes, boxes]",
            scores.shape
        );
    };
    if (score_batches, score_n) != (batches, n) {
        bail!(
            "boxes {:?} and scores {:?} disagree on the batch or the number of boxes",
            boxes.shape,
            scores.shape
        );
    }
    // An i64 limit: a count above the number of boxes selects them all.
    let limit = match args::opt_tensor(c, 2)? {
        None => 0,
        Some(t) => match t.data.to_i64()[..] {
            [] => 0,
            [v] => v,
            _ => bail!(
                "max_output_boxes_per_class has shape {:?}, but must hold one value",
                t.shape
            ),
        },
    };
    let iou = scalar(c, 3, "iou_threshold")?.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&iou) {
        bail!("iou_threshold is {iou}, but must be in [0, 1]");
    }
    let score_threshold = scalar(c, 4, "score_threshold")?.map(|s| s as f32);
    let center = match args::int(c, 5)? {
        0 => false,
        1 => true,
        other => bail!("center_point_box is {other}, but must be 0 or 1"),
    };
    let limit = usize::try_from(limit.max(0)).unwrap_or(usize::MAX).min(n);
    let box_data: Vec<f32> = boxes.data.to_f64().iter().map(|&v| v as f32).collect();
    let score_data: Vec<f32> = scores.data.to_f64().iter().map(|&v| v as f32).collect();
    let iou = iou as f32;

    let mut out: Vec<i64> = Vec::new();
    for b in 0..batches {
        let corners: Vec<Corners> = (0..n)
            .map(|i| Corners::of(&box_data[(b * n + i) * 4..][..4], center))
            .collect();
        for class in 0..classes {
            let s = &score_data[(b * classes + class) * n..][..n];
            let mut order: Vec<usize> = (0..n)
                .filter(|&i| score_threshold.is_none_or(|t| s[i] > t))
                .collect();
            // Highest score first; among equal scores the lower index, which a stable
            // sort keeps. NaN scores sort last.
            order.sort_by(|&i, &j| {
                s[j].partial_cmp(&s[i])
                    .unwrap_or_else(|| s[i].is_nan().cmp(&s[j].is_nan()))
            });
            let mut selected: Vec<usize> = Vec::new();
            for i in order {
                if selected.len() >= limit {
                    break;
                }
                if selected
                    .iter()
                    .all(|&k| !suppresses(&corners[k], &corners[i], iou))
                {
                    selected.push(i);
                }
            }
            for i in selected {
                out.extend([b as i64, class as i64, i as i64]);
            }
        }
    }
    let rows = out.len() / 3;
    bounded_bytes(&[rows, 3], DType::I64)?;
    args::ret(c, Tensor::new(vec![rows, 3], Data::I64(out))?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use anyhow::{Result, bail};

    use crate::kernels::Call;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::kernels::testing::{f32s, tensor, unknown};

    /// Runs the kernel by its `qlower.` name, as the plan does.
    fn run(args: &[Value]) -> Result<Arc<Tensor>> {
        let Some(kernel) = crate::kernels::lookup("qlower.non_max_suppression") else {
            bail!("no kernel");
        };
        let results = [unknown()];
        match kernel(&Call {
            args,
            results: &results,
        })?
        .into_iter()
        .next()
        {
            Some(Value::Tensor(t)) => Ok(t),
            other => bail!("expected a tensor, got {other:?}"),
        }
    }

    fn limit(v: i64) -> Value {
        tensor(&[1], Data::I64(vec![v]))
    }

    /// ONNX's `test_nonmaxsuppression_suppress_by_IOU` boxes, one class.
    fn boxes() -> Value {
        f32s(
            &[1, 6, 4],
            &[
                0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0, 11.0,
                0.0, 10.1, 1.0, 11.1, 0.0, 100.0, 1.0, 101.0,
            ],
        )
    }

    fn scores() -> Value {
        f32s(&[1, 1, 6], &[0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    }

    #[test]
    fn overlapping_boxes_are_suppressed_in_score_order() {
        let args = [
            boxes(),
            scores(),
            limit(3),
            f32s(&[1], &[0.5]),
            f32s(&[1], &[0.0]),
            Value::Int(0),
        ];
        let t = run(&args).unwrap();
        assert_eq!(t.shape, vec![3, 3]);
        assert_eq!(t.data.to_i64(), vec![0, 0, 3, 0, 0, 0, 0, 0, 5]);
    }

    #[test]
    fn thresholds_and_limits_cut_the_selection() {
        let args = [
            boxes(),
            scores(),
            limit(3),
            f32s(&[1], &[0.5]),
            f32s(&[1], &[0.4]),
            Value::Int(0),
        ];
        let t = run(&args).unwrap();
        assert_eq!(t.data.to_i64(), vec![0, 0, 3, 0, 0, 0]);
        // Without a limit operand nothing is selected.
        let args = [
            boxes(),
            scores(),
            Value::None,
            Value::None,
            Value::None,
            Value::Int(0),
        ];
        let t = run(&args).unwrap();
        assert_eq!(t.shape, vec![0, 3]);
        let args = [
            boxes(),
            scores(),
            limit(1),
            f32s(&[1], &[1.5]),
            Value::None,
            Value::Int(0),
        ];
        let e = run(&args).unwrap_err();
        assert_eq!(e.to_string(), "iou_threshold is 1.5, but must be in [0, 1]");
    }
}
