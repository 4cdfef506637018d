//! What the expansion reads of a `qlower.lstm` / `qlower.gru`. Operands
//! (conversion/recurrent.rs): the ONNX inputs (LSTM: X, W, R, B, sequence_lens,
//! initial_h, initial_c, P; GRU: the first six), then direction, hidden_size, layout,
//! clip, input_forget / linear_before_reset, activations (names joined by commas), their
//! alphas and betas (one each per activation, ONNX's defaults filled in).

use anyhow::{Result, anyhow};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{ValueLike, attribute::StringAttribute};

use super::activations::Activation;
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::defining;
use crate::kernels::tensor::value::Value as Constant;
use crate::onnx::dtype::DType;
use crate::runtime::ir_values::constant_value;

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Lstm { input_forget: bool },
    Gru { linear_before_reset: bool },
}

impl Kind {
    pub(super) fn gates(self) -> i64 {
        match self {
            Kind::Lstm { .. } => 4,
            Kind::Gru { .. } => 3,
        }
    }

    /// How many states the layer carries (H and C, or H) and returns after Y.
    pub(super) fn states(self) -> usize {
        match self {
            Kind::Lstm { .. } => 2,
            Kind::Gru { .. } => 1,
        }
    }

    /// Activations per direction: f, g, h (LSTM) or f, g (GRU).
    fn activations(self) -> usize {
        match self {
            Kind::Lstm { .. } => 3,
            Kind::Gru { .. } => 2,
        }
    }
}

pub(super) struct Layer {
    pub kind: Kind,
    /// Per direction: whether it walks the sequence backwards.
    pub directions: Vec<bool>,
    pub hidden: i64,
    /// X as the op reads it (batch first with `batch_first`).
    pub x: TensorType,
    /// DynamicQuantizeLSTM: X, W and R are quantized tensors.
    pub quantized: bool,
    /// Per direction, `kind.activations()` of them.
    pub activations: Vec<Activation>,
    pub clip: Option<f64>,
    pub batch_first: bool,
    /// The optional inputs given: sequence_lens, and LSTM's peepholes P.
    pub lengths: bool,
    pub peepholes: bool,
}

/// `qlower.lstm` or `qlower.gru` for a `torch.operator` of that name.
pub(super) fn recurrent_name(op: OperationRef) -> Option<&'static str> {
    if op.name().as_string_ref().as_str() != Ok("torch.operator") {
        return None;
    }
    let name = op
        .attribute("name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())?;
    [qlower::LSTM, qlower::GRU]
        .into_iter()
        .find(|n| name.value() == *n)
}

fn constant(op: OperationRef, i: usize) -> Result<Option<Constant>> {
    match defining(op.operand(i)?) {
        Some(def) => constant_value(def),
        None => Ok(None),
    }
}

pub(super) fn is_none(op: OperationRef, i: usize) -> Result<bool> {
    Ok(matches!(constant(op, i)?, Some(Constant::None)))
}

/// A `torch.prim.ListConstruct` of float constants.
fn float_list(op: OperationRef, i: usize) -> Result<Option<Vec<f64>>> {
    let Some(list) = defining(op.operand(i)?) else {
        return Ok(None);
    };
    if list.name().as_string_ref().as_str() != Ok("torch.prim.ListConstruct") {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(list.operand_count());
    for k in 0..list.operand_count() {
        match constant(list, k)? {
            Some(Constant::Float(v)) => out.push(v),
            Some(Constant::Int(v)) => out.push(v as f64),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

fn tensor_type(op: OperationRef, i: usize) -> Result<TensorType> {
    TensorType::parse(&op.operand(i)?.r#type().to_string())
        .ok_or_else(|| anyhow!("operand {i} is not a tensor"))
}

impl Layer {
    /// The layer, when the loop form expresses it; `None` to leave it as it is.
    pub(super) fn read(op: OperationRef) -> Result<Option<Layer>> {
        let lstm = recurrent_name(op) == Some(qlower::LSTM);
        let (inputs, results) = if lstm { (8, 3) } else { (6, 2) };
        if op.operand_count() != inputs + 8 || op.result_count() != results {
            return Ok(None);
        }
        let int = |i| -> Result<Option<i64>> {
            Ok(match constant(op, i)? {
                Some(Constant::Int(n)) => Some(n),
                _ => None,
            })
        };
        let (Some(Constant::Str(direction)), Some(Constant::Str(names))) =
            (constant(op, inputs)?, constant(op, inputs + 5)?)
        else {
            return Ok(None);
        };
        let directions = match direction.as_str() {
            "forward" => vec![false],
            "reverse" => vec![true],
            "bidirectional" => vec![false, true],
            _ => return Ok(None),
        };
        let kind = match (lstm, int(inputs + 4)?) {
            (true, Some(f @ (0 | 1))) => Kind::Lstm {
                input_forget: f == 1,
            },
            (false, Some(f @ (0 | 1))) => Kind::Gru {
                linear_before_reset: f == 1,
            },
            _ => return Ok(None),
        };
        let batch_first = match int(inputs + 2)? {
            Some(0) => false,
            Some(1) => true,
            _ => return Ok(None),
        };
        let clip = match constant(op, inputs + 3)? {
            Some(Constant::None) => None,
            Some(Constant::Float(c)) => Some(c),
            _ => return Ok(None),
        };
        let (Some(alphas), Some(betas)) =
            (float_list(op, inputs + 6)?, float_list(op, inputs + 7)?)
        else {
            return Ok(None);
        };
        let names: Vec<&str> = names.split(',').collect();
        let wanted = kind.activations() * directions.len();
        if names.len() != wanted || alphas.len() != wanted || betas.len() != wanted {
            return Ok(None);
        }
        let Some(activations) = names
            .iter()
            .zip(alphas.iter().zip(&betas))
            .map(|(n, (&a, &b))| Activation::parse(n, a, b))
            .collect::<Option<Vec<_>>>()
        else {
            return Ok(None);
        };
        let (Some(hidden), x) = (int(inputs + 1)?, tensor_type(op, 0)?) else {
            return Ok(None);
        };
        let quantized = lstm && x.dtype == Some(DType::QUInt8);
        let quantized_weight = |i: usize| -> Result<bool> {
            let t = tensor_type(op, i)?;
            Ok(matches!(t.dtype, Some(DType::QInt8 | DType::QUInt8)) && t.rank() == Some(3))
        };
        let dtype_ok = x.dtype == Some(DType::F32)
            || (quantized && quantized_weight(1)? && quantized_weight(2)?);
        if !dtype_ok || x.rank() != Some(3) || x.shape.is_none() {
            return Ok(None);
        }
        Ok(Some(Layer {
            kind,
            directions,
            hidden,
            x,
            quantized,
            activations,
            clip,
            batch_first,
            lengths: !is_none(op, 4)?,
            peepholes: lstm && !is_none(op, 7)?,
        }))
    }

    /// Direction `d`'s activations.
    pub(super) fn activations_of(&self, d: usize) -> &[Activation] {
        let n = self.kind.activations();
        &self.activations[d * n..(d + 1) * n]
    }
}
