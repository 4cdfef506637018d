//! Torch ops typed from dimensions the caller tracks (a size known only at run time is
//! `None`, and read with `size.int`), so that lowerings made of many ops over sizes
//! known only at run time (attention, GatherND) read as the computation rather than as
//! operand lists.

use anyhow::{Result, bail};
use melior::ir::Value;

use crate::conversion::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::dtype::DType;

/// A dimension size: its value as a `!torch.int` and, when known, the number.
#[derive(Clone, Copy)]
pub struct Size<'c, 'a> {
    pub known: Dim,
    pub value: Value<'c, 'a>,
}

/// A tensor value with the dimensions its type declares.
#[derive(Clone)]
pub struct Tensor<'c, 'a> {
    pub value: Value<'c, 'a>,
    pub dims: Vec<Dim>,
    pub dtype: DType,
}

impl<'c, 'a> Tensor<'c, 'a> {
    pub fn new(value: Value<'c, 'a>, ty: &TensorType, name: &str) -> Result<Self> {
        let (Some(dtype), Some(dims)) = (ty.dtype, ty.shape.clone()) else {
            bail!("input {name} is {ty}: its element type and rank must be known");
        };
        Ok(Tensor { value, dims, dtype })
    }

    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// `axis` counted from the front (negative counts from the back).
    fn axis(&self, axis: i64) -> Result<usize> {
        let r = self.rank() as i64;
        if axis < -r || axis >= r {
            bail!("axis {axis} is out of range for rank {r}");
        }
        Ok((if axis < 0 { axis + r } else { axis }) as usize)
    }
}

/// Input `i` (called `name`) of the node.
pub fn tensor<'c, 'a>(b: &Binder<'c, 'a>, i: usize, name: &str) -> Result<Tensor<'c, 'a>> {
    Tensor::new(b.input(i, name)?, &b.input_type(i, name)?, name)
}

/// Input `i` when the node gives it.
pub fn optional<'c, 'a>(
    b: &Binder<'c, 'a>,
    i: usize,
    name: &str,
) -> Result<Option<Tensor<'c, 'a>>> {
    if b.has_input(i) {
        Ok(Some(tensor(b, i, name)?))
    } else {
        Ok(None)
    }
}

pub struct Ops<'t, 'c, 'a> {
    pub t: &'t TorchBuilder<'c, 'a>,
}

impl<'t, 'c, 'a> Ops<'t, 'c, 'a> {
    pub fn new(t: &'t TorchBuilder<'c, 'a>) -> Self {
        Ops { t }
    }

    fn make(
        &self,
        name: &str,
        operands: &[Value<'c, 'a>],
        dtype: DType,
        dims: Vec<Dim>,
    ) -> Result<Tensor<'c, 'a>> {
        let ty = TensorType::new(dtype, dims.clone());
        let value = self.t.aten_tensor(name, operands, &ty)?;
        Ok(Tensor { value, dims, dtype })
    }

    pub fn int(&self, v: i64) -> Result<Size<'c, 'a>> {
        Ok(Size {
            known: Some(v),
            value: self.t.int(v)?,
        })
    }

    /// The size of `x`'s dimension `axis`, a constant when the type knows it.
    pub fn size(&self, x: &Tensor<'c, 'a>, axis: i64) -> Result<Size<'c, 'a>> {
        let a = x.axis(axis)?;
        match x.dims[a] {
            Some(n) => self.int(n),
            None => Ok(Size {
                known: None,
                value: self.t.aten(
                    "size.int",
                    &[x.value, self.t.int(a as i64)?],
                    self.t.torch_type("int")?,
                )?,
            }),
        }
    }

    /// The product of sizes: a constant when all are known, else `mul.int` at run time.
    pub fn product(&self, sizes: &[Size<'c, 'a>]) -> Result<Size<'c, 'a>> {
        let known = sizes
            .iter()
            .try_fold(1i64, |acc, s| s.known.and_then(|n| acc.checked_mul(n)));
        if let Some(n) = known {
            return self.int(n);
        }
        // Sizes of 1 change nothing; a lone size is its own product.
        let factors: Vec<&Size> = sizes.iter().filter(|s| s.known != Some(1)).collect();
        let Some((first, rest)) = factors.split_first() else {
            return self.int(1);
        };
        let mut value = first.value;
        for s in rest {
            value = self
                .t
                .aten("mul.int", &[value, s.value], self.t.torch_type("int")?)?;
        }
        Ok(Size { known: None, value })
    }

    /// The sizes of `x`'s dimensions `range`.
    pub fn sizes(
        &self,
        x: &Tensor<'c, 'a>,
        range: std::ops::Range<usize>,
    ) -> Result<Vec<Size<'c, 'a>>> {
        range.map(|a| self.size(x, a as i64)).collect()
    }

    pub fn reshape(&self, x: &Tensor<'c, 'a>, sizes: &[Size<'c, 'a>]) -> Result<Tensor<'c, 'a>> {
        let values: Vec<_> = sizes.iter().map(|s| s.value).collect();
        let list = self.t.list(&values, "int")?;
        let dims = sizes.iter().map(|s| s.known).collect();
        self.make("reshape", &[x.value, list], x.dtype, dims)
    }

    pub fn permute(&self, x: &Tensor<'c, 'a>, perm: &[usize]) -> Result<Tensor<'c, 'a>> {
        if perm.len() != x.rank() {
            bail!(
                "a permutation of {} axes for a rank-{} tensor",
                perm.len(),
                x.rank()
            );
        }
        let dims = perm.iter().map(|&p| x.dims[p]).collect();
        let list = self
            .t
            .int_list(&perm.iter().map(|&p| p as i64).collect::<Vec<_>>())?;
        self.make("permute", &[x.value, list], x.dtype, dims)
    }

    /// The last two axes swapped.
    pub fn transpose_last(&self, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        let r = x.rank();
        if r < 2 {
            bail!("transposing a rank-{r} tensor");
        }
        let mut perm: Vec<usize> = (0..r).collect();
        perm.swap(r - 2, r - 1);
        self.permute(x, &perm)
    }

    pub fn unsqueeze(&self, x: &Tensor<'c, 'a>, axis: usize) -> Result<Tensor<'c, 'a>> {
        let mut dims = x.dims.clone();
        if axis > dims.len() {
            bail!("unsqueeze at {axis} of a rank-{} tensor", dims.len());
        }
        dims.insert(axis, Some(1));
        self.make(
            "unsqueeze",
            &[x.value, self.t.int(axis as i64)?],
            x.dtype,
            dims,
        )
    }

    /// `x[..., start:end]` along `axis`.
    pub fn slice(
        &self,
        x: &Tensor<'c, 'a>,
        axis: i64,
        start: i64,
        end: i64,
    ) -> Result<Tensor<'c, 'a>> {
        let a = x.axis(axis)?;
        let mut dims = x.dims.clone();
        dims[a] = Some(end - start);
        let operands = [
            x.value,
            self.t.int(a as i64)?,
            self.t.int(start)?,
            self.t.int(end)?,
            self.t.int(1)?,
        ];
        self.make("slice.Tensor", &operands, x.dtype, dims)
    }

    pub fn select(&self, x: &Tensor<'c, 'a>, axis: i64, index: i64) -> Result<Tensor<'c, 'a>> {
        let a = x.axis(axis)?;
        let mut dims = x.dims.clone();
        dims.remove(a);
        let operands = [x.value, self.t.int(a as i64)?, self.t.int(index)?];
        self.make("select.int", &operands, x.dtype, dims)
    }

    /// Tensors of one rank joined along `axis` (a new one when `stack`).
    fn join(
        &self,
        name: &str,
        xs: &[&Tensor<'c, 'a>],
        axis: usize,
        dims: Vec<Dim>,
    ) -> Result<Tensor<'c, 'a>> {
        let values: Vec<_> = xs.iter().map(|x| x.value).collect();
        let list = self.t.list(&values, "vtensor")?;
        self.make(name, &[list, self.t.int(axis as i64)?], xs[0].dtype, dims)
    }

    pub fn cat(&self, xs: &[&Tensor<'c, 'a>], axis: i64) -> Result<Tensor<'c, 'a>> {
        let Some(first) = xs.first() else {
            bail!("concatenating no tensors");
        };
        let a = first.axis(axis)?;
        let mut dims = first.dims.clone();
        dims[a] = xs
            .iter()
            .try_fold(0, |acc, x| Some(acc + x.dims.get(a).copied().flatten()?));
        self.join("cat", xs, a, dims)
    }

    pub fn stack_last(&self, xs: &[&Tensor<'c, 'a>]) -> Result<Tensor<'c, 'a>> {
        let Some(first) = xs.first() else {
            bail!("stacking no tensors");
        };
        let mut dims = first.dims.clone();
        dims.push(Some(xs.len() as i64));
        self.join("stack", xs, first.rank(), dims)
    }

    pub fn stack_first(&self, xs: &[&Tensor<'c, 'a>]) -> Result<Tensor<'c, 'a>> {
        let Some(first) = xs.first() else {
            bail!("stacking no tensors");
        };
        let mut dims = vec![Some(xs.len() as i64)];
        dims.extend(first.dims.iter().copied());
        self.join("stack", xs, 0, dims)
    }

    /// An element-wise op of two tensors, broadcast as numpy does.
    pub fn binary(
        &self,
        name: &str,
        a: &Tensor<'c, 'a>,
        b: &Tensor<'c, 'a>,
        dtype: DType,
    ) -> Result<Tensor<'c, 'a>> {
        let dims = broadcast(&a.dims, &b.dims)?;
        let mut operands = vec![a.value, b.value];
        if name == "add.Tensor" || name == "sub.Tensor" {
            operands.push(self.t.int(1)?);
        }
        self.make(name, &operands, dtype, dims)
    }

    pub fn mul(&self, a: &Tensor<'c, 'a>, b: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        self.binary("mul.Tensor", a, b, a.dtype)
    }

    pub fn add(&self, a: &Tensor<'c, 'a>, b: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        self.binary("add.Tensor", a, b, a.dtype)
    }

    pub fn sub(&self, a: &Tensor<'c, 'a>, b: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        self.binary("sub.Tensor", a, b, a.dtype)
    }

    /// `x · s`, `x / s` or `x + s` for a float `s` (`mul.Scalar`, `div.Scalar`, `add.Scalar`).
    pub fn scalar(
        &self,
        name: &str,
        x: &Tensor<'c, 'a>,
        s: Value<'c, 'a>,
    ) -> Result<Tensor<'c, 'a>> {
        let mut operands = vec![x.value, s];
        if name == "add.Scalar" || name == "sub.Scalar" {
            operands.push(self.t.int(1)?);
        }
        self.make(name, &operands, x.dtype, x.dims.clone())
    }

    /// `x <op> s` for a scalar `s` (`ne.Scalar`, `lt.Scalar`, ...): a bool tensor.
    pub fn compare_scalar(
        &self,
        name: &str,
        x: &Tensor<'c, 'a>,
        s: Value<'c, 'a>,
    ) -> Result<Tensor<'c, 'a>> {
        self.make(name, &[x.value, s], DType::Bool, x.dims.clone())
    }

    pub fn logical_not(&self, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        self.make("logical_not", &[x.value], DType::Bool, x.dims.clone())
    }

    pub fn unary(&self, name: &str, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        self.make(name, &[x.value], x.dtype, x.dims.clone())
    }

    pub fn matmul(&self, a: &Tensor<'c, 'a>, b: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        let (ra, rb) = (a.rank(), b.rank());
        if ra < 2 || rb < 2 {
            bail!("matmul of ranks {ra} and {rb}");
        }
        let mut dims = broadcast(&a.dims[..ra - 2], &b.dims[..rb - 2])?;
        dims.push(a.dims[ra - 2]);
        dims.push(b.dims[rb - 1]);
        self.make("matmul", &[a.value, b.value], a.dtype, dims)
    }

    pub fn softmax_last(&self, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        let operands = [x.value, self.t.int(-1)?, self.t.none()?];
        self.make("softmax.int", &operands, x.dtype, x.dims.clone())
    }

    /// `cond ? x : value` element-wise, `value` a float constant.
    pub fn where_else(
        &self,
        cond: &Tensor<'c, 'a>,
        x: &Tensor<'c, 'a>,
        value: f64,
    ) -> Result<Tensor<'c, 'a>> {
        let dims = broadcast(&cond.dims, &x.dims)?;
        let operands = [cond.value, x.value, self.t.float(value)?];
        self.make("where.ScalarOther", &operands, x.dtype, dims)
    }

    /// `cond ? a : b` element-wise.
    pub fn where_self(
        &self,
        cond: &Tensor<'c, 'a>,
        a: &Tensor<'c, 'a>,
        b: &Tensor<'c, 'a>,
    ) -> Result<Tensor<'c, 'a>> {
        let dims = broadcast(&broadcast(&cond.dims, &a.dims)?, &b.dims)?;
        self.make("where.self", &[cond.value, a.value, b.value], a.dtype, dims)
    }

    /// The slices of `x` along `axis` at the int64 positions `index` (1-D).
    pub fn index_select(
        &self,
        x: &Tensor<'c, 'a>,
        axis: usize,
        index: &Tensor<'c, 'a>,
    ) -> Result<Tensor<'c, 'a>> {
        if index.rank() != 1 || axis >= x.rank() {
            bail!(
                "index_select along {axis} of rank {} with indices of rank {}",
                x.rank(),
                index.rank()
            );
        }
        let mut dims = x.dims.clone();
        dims[axis] = index.dims[0];
        let operands = [x.value, self.t.int(axis as i64)?, index.value];
        self.make("index_select", &operands, x.dtype, dims)
    }

    /// `x` converted to `dtype`.
    pub fn cast(&self, x: &Tensor<'c, 'a>, dtype: DType) -> Result<Tensor<'c, 'a>> {
        if x.dtype == dtype {
            return Ok(x.clone());
        }
        let ty = TensorType::new(dtype, x.dims.clone());
        let value = self.t.cast(x.value, &ty)?;
        Ok(Tensor {
            value,
            dims: x.dims.clone(),
            dtype,
        })
    }

    /// `[0, 1, ..., n-1]` as int64.
    pub fn arange(&self, n: Size<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        let none = self.t.none()?;
        let operands = [
            self.t.int(0)?,
            n.value,
            self.t.int(1)?,
            self.t.int(DType::I64.torch_scalar_type())?,
            none,
            none,
            none,
        ];
        self.make("arange.start_step", &operands, DType::I64, vec![n.known])
    }

    /// Rows `indices` (int64, any shape) of the 2-D `table`: `indices.shape + [columns]`.
    /// `x` as one axis (`-1` in the reshape when a size is known only at run time).
    pub fn flatten(&self, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
        let count = x.dims.iter().try_fold(1, |acc, d| Some(acc * (*d)?));
        let size = match count {
            Some(n) => self.int(n)?,
            None => Size {
                known: None,
                ..self.int(-1)?
            },
        };
        self.reshape(x, &[size])
    }

    pub fn gather_rows(
        &self,
        table: &Tensor<'c, 'a>,
        indices: &Tensor<'c, 'a>,
    ) -> Result<Tensor<'c, 'a>> {
        if table.rank() != 2 {
            bail!("a table of rank {} where rank 2 was expected", table.rank());
        }
        let flat = self.flatten(indices)?;
        let count = flat.dims[0];
        let rows = self.make(
            "index_select",
            &[table.value, self.t.int(0)?, flat.value],
            table.dtype,
            vec![count, table.dims[1]],
        )?;
        let mut sizes = Vec::with_capacity(indices.rank() + 1);
        for axis in 0..indices.rank() {
            sizes.push(self.size(indices, axis as i64)?);
        }
        sizes.push(self.size(table, 1)?);
        self.reshape(&rows, &sizes)
    }
}

/// Numpy broadcasting of two shapes; a size known on one side only is taken when the
/// other is unknown, since the run-time check would fail otherwise anyway.
pub fn broadcast(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>> {
    let rank = a.len().max(b.len());
    let at = |s: &[Dim], i: usize| -> Dim {
        let pad = rank - s.len();
        if i < pad { Some(1) } else { s[i - pad] }
    };
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (Some(1), d) | (d, Some(1)) => Ok(d),
            (Some(x), Some(y)) if x != y => bail!("sizes {x} and {y} do not broadcast"),
            (Some(x), _) | (_, Some(x)) => Ok(Some(x)),
            (None, None) => Ok(None),
        })
        .collect()
}
