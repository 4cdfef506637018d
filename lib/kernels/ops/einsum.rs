//! `einsum(equation, tensors, path)`: products of the operands summed over the labels
//! the output leaves out, as numpy and torch define it: letters name dimensions, a
//! letter repeated within one operand takes its diagonal, `...` stands for the same
//! broadcast dimensions in every operand, and without `->` the output is the
//! ellipsis then the letters used once, in alphabetical order. The equation parser is
//! shared with shape inference. Floats accumulate in f64 and round once; integers
//! wrap.

use anyhow::{Result, bail};

use crate::kernels::tensor::data::{Prec, from_f64, from_i64, is_float};
use crate::kernels::tensor::layout::strides;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Tensor, bounded_count};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.einsum" => einsum,
        _ => return None,
    })
}

/// An equation resolved against the operands' ranks: each operand's dimensions and
/// the output's as label numbers in `0..labels`.
#[derive(Debug, PartialEq)]
pub struct Resolved {
    pub inputs: Vec<Vec<usize>>,
    pub output: Vec<usize>,
    pub labels: usize,
}

/// One operand's term: its letters, with the ellipsis's position when it has one.
struct Term {
    letters: Vec<char>,
    ellipsis: Option<usize>,
}

fn term(text: &str, what: &str) -> Result<Term> {
    let mut letters = vec![];
    let mut ellipsis = None;
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("...") {
            if ellipsis.replace(letters.len()).is_some() {
                bail!("{what} '{text}' has two ellipses");
            }
            rest = r;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if !c.is_ascii_alphabetic() {
            bail!("{what} '{text}' has '{c}', which is neither a letter nor '...'");
        }
        letters.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(Term { letters, ellipsis })
}

/// Resolves `equation` for operands of the given ranks.
pub fn resolve(equation: &str, ranks: &[usize]) -> Result<Resolved> {
    let (lhs, rhs) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation, None),
    };
    let terms = lhs
        .split(',')
        .map(|t| term(t, "operand term"))
        .collect::<Result<Vec<_>>>()?;
    if terms.len() != ranks.len() {
        bail!(
            "the equation '{equation}' has {} operand terms but there are {} operands",
            terms.len(),
            ranks.len()
        );
    }
    // Every operand's ellipsis covers the dimensions its letters leave; they line up
    // from the right, as broadcasting does.
    let mut spans = Vec::with_capacity(terms.len());
    for (i, (t, &rank)) in terms.iter().zip(ranks).enumerate() {
        let span = match t.ellipsis {
            Some(_) if rank >= t.letters.len() => rank - t.letters.len(),
            None if rank == t.letters.len() => 0,
            _ => bail!(
                "operand {i} has rank {rank}, but its term in '{equation}' names {} dimensions",
                t.letters.len()
            ),
        };
        spans.push(span);
    }
    let width = spans.iter().copied().max().unwrap_or(0);
    // Labels: the ellipsis dimensions first, then each letter in order of first use.
    let mut letters: Vec<char> = vec![];
    let mut label_of = |c: char| -> usize {
        match letters.iter().position(|&l| l == c) {
            Some(p) => width + p,
            None => {
                letters.push(c);
                width + letters.len() - 1
            }
        }
    };
    let mut inputs = Vec::with_capacity(terms.len());
    for (t, &span) in terms.iter().zip(&spans) {
        let mut dims = vec![];
        for (k, &c) in t.letters.iter().enumerate() {
            if t.ellipsis == Some(k) {
                dims.extend(width - span..width);
            }
            dims.push(label_of(c));
        }
        if t.ellipsis == Some(t.letters.len()) {
            dims.extend(width - span..width);
        }
        inputs.push(dims);
    }
    let output = match rhs {
        Some(r) => {
            let t = term(r, "output term")?;
            let mut dims = vec![];
            for (k, &c) in t.letters.iter().enumerate() {
                if t.ellipsis == Some(k) {
                    dims.extend(0..width);
                }
                let Some(p) = letters.iter().position(|&l| l == c) else {
                    bail!("the output of '{equation}' names '{c}', which no operand has");
                };
                if dims.contains(&(width + p)) {
                    bail!("the output of '{equation}' names '{c}' twice");
                }
                dims.push(width + p);
            }
            if t.ellipsis == Some(t.letters.len()) {
                dims.extend(0..width);
            }
            if t.ellipsis.is_none() && width > 0 {
                bail!("the operands of '{equation}' have an ellipsis but its output does not");
            }
            dims
        }
        None => {
            let mut once: Vec<char> = letters
                .iter()
                .copied()
                .filter(|&c| {
                    terms
                        .iter()
                        .flat_map(|t| &t.letters)
                        .filter(|&&l| l == c)
                        .count()
                        == 1
                })
                .collect();
            once.sort_unstable();
            let mut dims: Vec<usize> = (0..width).collect();
            dims.extend(
                once.iter()
                    .filter_map(|c| letters.iter().position(|l| l == c).map(|p| width + p)),
            );
            dims
        }
    };
    Ok(Resolved {
        inputs,
        output,
        labels: width + letters.len(),
    })
}

/// The size of every label, from the operands' shapes: a letter's sizes must agree;
/// an ellipsis dimension of size 1 broadcasts.
fn label_sizes(r: &Resolved, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut sizes: Vec<Option<usize>> = vec![None; r.labels];
    for (dims, shape) in r.inputs.iter().zip(shapes) {
        for (&l, &n) in dims.iter().zip(shape.iter()) {
            sizes[l] = match sizes[l] {
                None => Some(n),
                Some(m) if m == n || n == 1 => Some(m),
                Some(1) => Some(n),
                Some(m) => bail!("a label has size {m} in one operand and {n} in another"),
            };
        }
    }
    Ok(sizes.into_iter().map(|s| s.unwrap_or(1)).collect())
}

fn einsum(c: &Call) -> Result<Vec<Value>> {
    let equation = args::string(c, 0)?;
    let operands: Vec<&Tensor> = match c.arg(1)? {
        Value::TensorList(v) => v.iter().map(|t| t.as_ref()).collect(),
        other => bail!("operand 1 must be a list of tensors, got {}", other.kind()),
    };
    if operands.iter().any(|t| t.quant.is_some()) {
        bail!("einsum of a quantized tensor: apply it to the values");
    }
    let Some(first) = operands.first() else {
        bail!("einsum needs at least one operand");
    };
    let dtype = args::declared_dtype(c).unwrap_or(first.data.dtype());
    let ranks: Vec<usize> = operands.iter().map(|t| t.rank()).collect();
    let r = resolve(equation, &ranks)?;
    let shapes: Vec<&[usize]> = operands.iter().map(|t| t.shape.as_slice()).collect();
    let sizes = label_sizes(&r, &shapes)?;
    bounded_count(&sizes)?;
    let out_shape: Vec<usize> = r.output.iter().map(|&l| sizes[l]).collect();
    let out_strides = strides(&out_shape);
    // Each label's step in every operand (zero where the operand broadcasts it) and in
    // the output.
    let mut steps = vec![vec![0usize; r.labels]; operands.len() + 1];
    for (k, (dims, t)) in r.inputs.iter().zip(&operands).enumerate() {
        let st = strides(&t.shape);
        for (d, &l) in dims.iter().enumerate() {
            if t.shape[d] != 1 || sizes[l] == 1 {
                steps[k][l] += st[d];
            }
        }
    }
    for (d, &l) in r.output.iter().enumerate() {
        steps[operands.len()][l] += out_strides[d];
    }
    let n_out: usize = out_shape.iter().product();
    let total: usize = sizes.iter().product();
    let float = is_float(dtype);
    let fvals: Vec<Vec<f64>> = if float {
        operands.iter().map(|t| t.data.to_f64()).collect()
    } else {
        vec![]
    };
    let ivals: Vec<Vec<i64>> = if float {
        vec![]
    } else {
        operands.iter().map(|t| t.data.to_i64()).collect()
    };
    let mut fout = vec![0.0f64; if float { n_out } else { 0 }];
    let mut iout = vec![0i64; if float { 0 } else { n_out }];
    let mut index = vec![0usize; r.labels];
    let mut offsets = vec![0usize; operands.len() + 1];
    for _ in 0..total {
        if float {
            let p: f64 = fvals
                .iter()
                .enumerate()
                .map(|(k, v)| v[offsets[k]])
                .product();
            fout[offsets[operands.len()]] += p;
        } else {
            let p = ivals
                .iter()
                .enumerate()
                .fold(1i64, |acc, (k, v)| acc.wrapping_mul(v[offsets[k]]));
            let o = &mut iout[offsets[operands.len()]];
            *o = o.wrapping_add(p);
        }
        // Odometer over the labels, the last fastest, keeping the offsets current.
        for l in (0..r.labels).rev() {
            index[l] += 1;
            for (off, st) in offsets.iter_mut().zip(&steps) {
                *off += st[l];
            }
            if index[l] < sizes[l] {
                break;
            }
            for (off, st) in offsets.iter_mut().zip(&steps) {
                *off -= st[l] * sizes[l];
            }
            index[l] = 0;
        }
    }
    let data = if float {
        let p = Prec(dtype);
        let rounded: Vec<f64> = fout.into_iter().map(|x| p.round(x)).collect();
        from_f64(dtype, &rounded)
    } else {
        from_i64(dtype, &iout)
    };
    args::ret(c, Tensor::new(out_shape, data)?)
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn list(items: &[Value]) -> Value {
        Value::TensorList(
            items
                .iter()
                .map(|v| v.as_tensor().unwrap().clone())
                .collect(),
        )
    }

    #[test]
    fn equations_resolve_to_labels() {
        let r = resolve("ij,jk->ik", &[2, 2]).unwrap();
        assert_eq!(
            (r.inputs, r.output, r.labels),
            (vec![vec![0, 1], vec![1, 2]], vec![0, 2], 3)
        );
        // Implicit output: letters used once, sorted.
        assert_eq!(resolve("ba,ac", &[2, 2]).unwrap().output, vec![0, 2]);
        // Ellipses line up from the right.
        let r = resolve("...ij,...jk->...ik", &[4, 3]).unwrap();
        assert_eq!(r.inputs, vec![vec![0, 1, 2, 3], vec![1, 3, 4]]);
        assert_eq!(r.output, vec![0, 1, 2, 4]);
        assert!(resolve("ij,jk->ik", &[2]).is_err());
        assert!(resolve("ij->iz", &[2]).is_err());
        assert!(resolve("i1->i", &[2]).is_err());
    }

    #[test]
    fn contractions_match_matmul_and_traces() {
        let a = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let b = f32s(&[2, 2], &[5.0, 6.0, 7.0, 8.0]);
        let args = [
            Value::Str("ij,jk->ik".into()),
            list(&[a.clone(), b.clone()]),
            Value::None,
        ];
        let t = run1("aten.einsum", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![19.0, 22.0, 43.0, 50.0]);
        let args = [
            Value::Str("ii".into()),
            list(std::slice::from_ref(&a)),
            Value::None,
        ];
        let t = run1("aten.einsum", &args, unknown()).unwrap();
        assert_eq!((t.shape.clone(), f32_values(&t)), (vec![], vec![5.0]));
        let args = [
            Value::Str("bij,bjk->bik".into()),
            list(&[
                f32s(&[1, 2, 2], &[1.0, 2.0, 3.0, 4.0]),
                f32s(&[1, 2, 1], &[1.0, 1.0]),
            ]),
            Value::None,
        ];
        let t = run1("aten.einsum", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![1, 2, 1], vec![3.0, 7.0])
        );
        let args = [
            Value::Str("ij,jk->ik".into()),
            list(&[a, f32s(&[3, 1], &[1.0, 1.0, 1.0])]),
            Value::None,
        ];
        assert!(run("aten.einsum", &args, &[unknown()]).is_err());
    }
}
