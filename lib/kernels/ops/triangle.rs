//! `triu(self, diagonal)` and `tril(self, diagonal)`: keep the elements on and above
//! (or on and below) a diagonal of the last two dimensions, zero the rest. Diagonal 0
//! is the main one; positive ones lie above it.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::gather_or_fill;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.triu" => |c| triangle(c, true),
        "aten.tril" => |c| triangle(c, false),
        _ => return None,
    })
}

fn triangle(c: &Call, upper: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let diagonal = args::int(c, 1)?;
    if x.quant.is_some() {
        bail!("triu and tril of a quantized tensor: apply them to its values");
    }
    let rank = x.rank();
    if rank < 2 {
        bail!(
            "triu and tril need at least 2 dimensions, got {:?}",
            x.shape
        );
    }
    let (rows, cols) = (x.shape[rank - 2], x.shape[rank - 1]);
    let keep: Vec<Option<usize>> = (0..x.data.len())
        .map(|i| {
            let within = i % (rows * cols).max(1);
            let (r, col) = (within / cols.max(1), within % cols.max(1));
            // Column minus row, compared with the diagonal in i128 so no value overflows.
            let offset = col as i128 - r as i128;
            let kept = if upper {
                offset >= diagonal as i128
            } else {
                offset <= diagonal as i128
            };
            kept.then_some(i)
        })
        .collect();
    let zero = crate::kernels::tensor::data::from_i64(x.data.dtype(), &[0]);
    let data = gather_or_fill(&x.data, &keep, &zero);
    args::ret(c, Tensor::new(x.shape.clone(), data)?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn upper_and_lower_triangles() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let t = run1("aten.triu", &[x.clone(), Value::Int(0)], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 3.0, 0.0, 5.0, 6.0]);
        let t = run1("aten.triu", &[x.clone(), Value::Int(1)], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.0, 2.0, 3.0, 0.0, 0.0, 6.0]);
        let t = run1("aten.tril", &[x.clone(), Value::Int(-1)], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.0, 0.0, 0.0, 4.0, 0.0, 0.0]);
        assert!(
            run(
                "aten.tril",
                &[f32s(&[3], &[1.0, 2.0, 3.0]), Value::Int(0)],
                &[unknown()]
            )
            .is_err()
        );
    }
}
