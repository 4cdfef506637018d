//! ONNX LSTM and GRU, and com.microsoft DynamicQuantizeLSTM, lowered to qlower's
//! recurrent ops (`dialect::qlower::LSTM`, `GRU`): one `torch.operator` per layer whose
//! operands are the ONNX inputs followed by the attributes as torch constants.
//!
//! Why one op and not a loop of torch ops: torch-mlir's importer expands a recurrent
//! layer into a `torch.prim.Loop` whose body region is the cell, for part of ONNX's
//! semantics (no sequence_lens; Sigmoid, Tanh and Relu only). qlower's CPU backend
//! runs straight-line steps, not regions; a sequence whose length is known only at run
//! time cannot be unrolled; and torch's own `aten.lstm`/`aten.gru` lack sequence_lens,
//! peepholes, clip, the other activations and GRU's linear_before_reset 0. So the step loop is one kernel, and what is around it stays explicit:
//! DynamicQuantizeLSTM's int8 weights are `_make_per_{tensor,channel}_quantized_tensor`s
//! in the IR, X is quantized dynamically in the IR (DynamicQuantizeLinear's
//! decomposition, then `_make_per_tensor_quantized_tensor`), and the op computes on
//! their integers; H, which exists only inside the step loop, is quantized there at
//! each step as ONNX Runtime does.

use anyhow::{Result, anyhow, bail};
use melior::ir::Value;
use melior::ir::attribute::{ArrayAttribute, StringAttribute};
use melior::ir::operation::OperationLike;

use super::Lowerings;
use super::binder::Binder;
use super::quant_params::{make_quantized, quantize};
use super::quantization::dynamic_params;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("LSTM", 7, lstm);
    r.on_op("GRU", 7, gru);
    r.on_domain_op(
        "com.microsoft",
        "DynamicQuantizeLSTM",
        1,
        dynamic_quantize_lstm,
    );
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Which layer: its default activations (per direction).
#[derive(Clone, Copy)]
enum Layer {
    Lstm,
    Gru,
}

impl Layer {
    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Layer::Lstm => &["Sigmoid", "Tanh", "Tanh"],
            Layer::Gru => &["Sigmoid", "Tanh"],
        }
    }
}

/// The attributes every recurrent layer shares, read and checked.
struct Common {
    direction: String,
    directions: i64,
    hidden: i64,
    layout: i64,
    clip: Option<f64>,
    activations: Vec<String>,
    alphas: Vec<f64>,
    betas: Vec<f64>,
}

fn common(b: &Binder, layer: Layer, hidden_from_r: Option<i64>) -> Result<Common> {
    let direction = b.string("direction", "forward")?;
    let directions = match direction.as_str() {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => {
            bail!("attribute 'direction' is '{other}', expected forward, reverse or bidirectional")
        }
    };
    let hidden = match (b.optional_int("hidden_size")?, hidden_from_r) {
        (Some(h), _) if h > 0 => h,
        (Some(h), _) => bail!("attribute 'hidden_size' is {h}, expected a positive size"),
        (None, Some(h)) => h,
        (None, None) => bail!("attribute 'hidden_size' is missing and R's shape is unknown"),
    };
    if let Some(h) = hidden_from_r
        && h != hidden
    {
        bail!("attribute 'hidden_size' is {hidden} but R's hidden dimension is {h}");
    }
    let layout = b.int("layout", 0)?;
    if layout != 0 && layout != 1 {
        bail!("attribute 'layout' is {layout}, expected 0 or 1");
    }
    let clip = b.optional_float("clip")?;
    if let Some(c) = clip
        && (c.is_nan() || c <= 0.0)
    {
        bail!("attribute 'clip' is {c}, expected a positive threshold");
    }
    let per_direction = layer.default_activations().len();
    let activations = match string_list(b, "activations")? {
        Some(names) => names,
        None => layer
            .default_activations()
            .iter()
            .cycle()
            .take(per_direction * directions as usize)
            .map(|s| s.to_string())
            .collect(),
    };
    if activations.len() != per_direction * directions as usize {
        bail!(
            "attribute 'activations' has {} functions, expected {} ({} per direction)",
            activations.len(),
            per_direction * directions as usize,
            per_direction
        );
    }
    let given_alphas = b.optional_floats("activation_alpha")?.unwrap_or_default();
    let given_betas = b.optional_floats("activation_beta")?.unwrap_or_default();
    let (alphas, betas) = activation_parameters(&activations, &given_alphas, &given_betas)?;
    Ok(Common {
        direction,
        directions,
        hidden,
        layout,
        clip,
        activations,
        alphas,
        betas,
    })
}

/// A STRINGS attribute, which the importer writes as an array of strings.
fn string_list(b: &Binder, name: &str) -> Result<Option<Vec<String>>> {
    let Ok(a) = b.op.attribute(&format!("torch.onnx.{name}")) else {
        return Ok(None);
    };
    let array = ArrayAttribute::try_from(a)
        .map_err(|_| anyhow!("attribute '{name}' is not a list of strings"))?;
    (0..array.len())
        .map(|i| {
            let e = array.element(i)?;
            StringAttribute::try_from(e)
                .map(|s| s.value().to_string())
                .map_err(|_| anyhow!("attribute '{name}' is not a list of strings"))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Each activation's alpha and beta: the attribute lists are consumed in order by the
/// functions that take them (as ONNX Runtime reads them), defaults otherwise.
fn activation_parameters(
    names: &[String],
    alphas: &[f64],
    betas: &[f64],
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (mut a_iter, mut b_iter) = (alphas.iter(), betas.iter());
    let mut out_a = Vec::new();
    let mut out_b = Vec::new();
    for name in names {
        // (takes alpha, default alpha, takes beta, default beta)
        let (ta, da, tb, db) = match name.to_ascii_lowercase().as_str() {
            "sigmoid" | "tanh" | "relu" | "softsign" | "softplus" => (false, 0.0, false, 0.0),
            "leakyrelu" => (true, 0.01, false, 0.0),
            "thresholdedrelu" | "elu" => (true, 1.0, false, 0.0),
            "scaledtanh" => (true, 1.0, true, 1.0),
            "hardsigmoid" => (true, 0.2, true, 0.5),
            "affine" => (true, 1.0, true, 0.0),
            _ => bail!("activation '{name}' is not supported"),
        };
        out_a.push(if ta {
            a_iter.next().copied().unwrap_or(da)
        } else {
            da
        });
        out_b.push(if tb {
            b_iter.next().copied().unwrap_or(db)
        } else {
            db
        });
    }
    Ok((out_a, out_b))
}

/// Y's and the states' types from X's: `[T, D, B, H]` and `[D, B, H]`, batch first
/// with `layout` 1.
fn result_types(x: &TensorType, c: &Common) -> Result<(TensorType, TensorType)> {
    let dtype = x.dtype.unwrap_or(DType::F32);
    let (d, h) = (Some(c.directions), Some(c.hidden));
    let Some(dims) = x.shape.as_ref() else {
        bail!("X has an unknown rank");
    };
    let [a, b, _] = dims[..] else {
        bail!("X has rank {}, expected 3", dims.len());
    };
    Ok(if c.layout == 0 {
        (
            TensorType::new(dtype, vec![a, d, b, h]),
            TensorType::new(dtype, vec![d, b, h]),
        )
    } else {
        (
            TensorType::new(dtype, vec![a, b, d, h]),
            TensorType::new(dtype, vec![a, d, h]),
        )
    })
}

/// `R`'s last dimension, the hidden size, when its type says.
fn hidden_of_r(b: &Binder, r_index: usize, quantized: bool) -> Result<Option<i64>> {
    let r = b.input_type(r_index, "R")?;
    // ONNX: [D, G·H, H]; ONNX Runtime's quantized layout: [D, H, G·H].
    let i = if quantized { 1 } else { 2 };
    Ok(r.shape.as_ref().and_then(|s| s.get(i).copied().flatten()))
}

fn optional<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
) -> Result<Value<'c, 'a>> {
    match b.optional_input(i) {
        Some(v) => Ok(v),
        None => t.none(),
    }
}

/// The attribute operands that follow the inputs.
fn attribute_operands<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    c: &Common,
    layer_flag: i64,
) -> Result<Vec<Value<'c, 'a>>> {
    let floats = |v: &[f64]| -> Result<Value<'c, 'a>> {
        let items = v.iter().map(|&x| t.float(x)).collect::<Result<Vec<_>>>()?;
        t.list(&items, "float")
    };
    Ok(vec![
        t.str(&c.direction)?,
        t.int(c.hidden)?,
        t.int(c.layout)?,
        match c.clip {
            Some(v) => t.float(v)?,
            None => t.none()?,
        },
        t.int(layer_flag)?,
        t.str(&c.activations.join(","))?,
        floats(&c.alphas)?,
        floats(&c.betas)?,
    ])
}

/// Builds the layer op with all its results and gives back as many as the node has.
fn emit<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    name: &str,
    operands: &[Value<'c, 'a>],
    results: &[TensorType],
) -> Lowered<'c, 'a> {
    let types = results
        .iter()
        .enumerate()
        .map(|(i, computed)| {
            // The node's own declared type where it has that result and it is no less
            // precise than what X gives.
            let declared = (i < b.result_count())
                .then(|| b.result_type(i).ok())
                .flatten();
            let ty = match declared {
                Some(d) => d.merge(computed).map_err(|e| {
                    anyhow!("output {i} is declared {d} but X gives {computed}: {e}")
                })?,
                None => computed.clone(),
            };
            t.tensor_type(&ty)
        })
        .collect::<Result<Vec<_>>>()?;
    let name_attr = StringAttribute::new(t.context(), name).into();
    let op = t.op("torch.operator", operands, &types, &[("name", name_attr)])?;
    (0..b.result_count())
        .map(|i| Ok(op.result(i)?.into()))
        .collect()
}

/// Checks the known dimensions of input `i` (if given) against `want` (`None`: any).
fn check_dims(b: &Binder, i: usize, name: &str, want: &[Option<i64>]) -> Result<()> {
    if !b.has_input(i) {
        return Ok(());
    }
    let ty = b.input_type(i, name)?;
    let Some(dims) = ty.shape.as_ref() else {
        return Ok(());
    };
    let fits = dims.len() == want.len()
        && dims
            .iter()
            .zip(want)
            .all(|(d, w)| d.is_none() || w.is_none() || d == w);
    if !fits {
        let spelled: Vec<String> = want
            .iter()
            .map(|w| w.map_or_else(|| "?".to_string(), |n| n.to_string()))
            .collect();
        bail!("{name} is {ty}, expected shape [{}]", spelled.join(", "));
    }
    Ok(())
}

/// W, R, B and the states against X and the attributes; `quantized`: ONNX Runtime's
/// `[D, I, G·H]` weights. P (LSTM only) is checked by the caller.
fn check_inputs(b: &Binder, x: &TensorType, c: &Common, gates: i64, quantized: bool) -> Result<()> {
    if let Some(rank) = x.rank()
        && rank != 3
    {
        bail!("X has rank {rank}, expected 3");
    }
    let (d, h, g) = (Some(c.directions), Some(c.hidden), Some(gates * c.hidden));
    let dims = x.shape.clone().unwrap_or_default();
    let input = dims.get(2).copied().flatten();
    let (w, r) = if quantized {
        ([d, input, g], [d, h, g])
    } else {
        ([d, g, input], [d, g, h])
    };
    check_dims(b, 1, "W", &w)?;
    check_dims(b, 2, "R", &r)?;
    check_dims(b, 3, "B", &[d, Some(2 * gates * c.hidden)])?;
    let batch = dims
        .get(if c.layout == 0 { 1 } else { 0 })
        .copied()
        .flatten();
    check_dims(b, 4, "sequence_lens", &[batch])?;
    let state = if c.layout == 0 {
        [d, batch, h]
    } else {
        [batch, d, h]
    };
    check_dims(b, 5, "initial_h", &state)?;
    if gates == 4 {
        check_dims(b, 6, "initial_c", &state)?;
        check_dims(b, 7, "P", &[d, Some(3 * c.hidden)])?;
    }
    Ok(())
}

fn check_float_x(b: &Binder) -> Result<TensorType> {
    let x = b.input_type(0, "X")?;
    match x.dtype {
        Some(DType::F32) | None => Ok(x),
        Some(other) => bail!("X is {other}; only float32 recurrent layers are supported"),
    }
}

fn lstm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x_type = check_float_x(b)?;
    let c = common(b, Layer::Lstm, hidden_of_r(b, 2, false)?)?;
    check_inputs(b, &x_type, &c, 4, false)?;
    let input_forget = b.int("input_forget", 0)?;
    let (y, state) = result_types(&x_type, &c)?;
    let mut operands = vec![b.input(0, "X")?, b.input(1, "W")?, b.input(2, "R")?];
    for i in 3..8 {
        operands.push(optional(b, t, i)?);
    }
    operands.extend(attribute_operands(t, &c, input_forget)?);
    emit(b, t, qlower::LSTM, &operands, &[y, state.clone(), state])
}

fn gru<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x_type = check_float_x(b)?;
    let c = common(b, Layer::Gru, hidden_of_r(b, 2, false)?)?;
    check_inputs(b, &x_type, &c, 3, false)?;
    let linear_before_reset = b.int("linear_before_reset", 0)?;
    let (y, state) = result_types(&x_type, &c)?;
    let mut operands = vec![b.input(0, "X")?, b.input(1, "W")?, b.input(2, "R")?];
    for i in 3..6 {
        operands.push(optional(b, t, i)?);
    }
    operands.extend(attribute_operands(t, &c, linear_before_reset)?);
    emit(b, t, qlower::GRU, &operands, &[y, state])
}

/// com.microsoft DynamicQuantizeLSTM: LSTM's inputs, then W_scale, W_zero_point,
/// R_scale, R_zero_point; W is `[D, I, 4H]` and R `[D, H, 4H]`, int8 or uint8, with
/// parameters per tensor or per direction.
fn dynamic_quantize_lstm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x_type = check_float_x(b)?;
    let c = common(b, Layer::Lstm, hidden_of_r(b, 2, true)?)?;
    check_inputs(b, &x_type, &c, 4, true)?;
    let input_forget = b.int("input_forget", 0)?;
    let (y, state) = result_types(&x_type, &c)?;
    let w = quantized_weight(b, t, 1, 8, ["W_scale", "W_zero_point", "W"], c.directions)?;
    let r = quantized_weight(b, t, 2, 10, ["R_scale", "R_zero_point", "R"], c.directions)?;
    // X is quantized once for the input product of every step, as DynamicQuantizeLinear
    // does (uint8, range widened to 0); the op reads the quantized tensor.
    let x = b.input(0, "X")?;
    let xp = dynamic_params(t, x)?;
    let x_u8 = quantize(t, x, &x_type, &xp)?;
    let x_q = make_quantized(t, x_u8, &x_type.with_dtype(DType::U8), &xp)?;
    let mut operands = vec![x_q, w, r];
    for i in 3..8 {
        operands.push(optional(b, t, i)?);
    }
    operands.extend(attribute_operands(t, &c, input_forget)?);
    emit(b, t, qlower::LSTM, &operands, &[y, state.clone(), state])
}

/// The integer weight at `data` as a quantized tensor: per tensor for a one-element
/// scale, per direction (axis 0) for a `[D]` one.
fn quantized_weight<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    data: usize,
    scale_index: usize,
    names: [&str; 3],
    directions: i64,
) -> Result<Value<'c, 'a>> {
    let [scale_name, zp_name, data_name] = names;
    let w = b.input(data, data_name)?;
    let w_type = b.input_type(data, data_name)?;
    let storage = match w_type.dtype {
        Some(d @ (DType::I8 | DType::U8)) => d,
        Some(other) => bail!("{data_name} is {other}, expected int8 or uint8"),
        None => bail!("{data_name} has an unknown element type"),
    };
    if w_type.rank().is_some_and(|r| r != 3) {
        bail!("{data_name} has type {w_type}, expected rank 3");
    }
    let scale = b.input(scale_index, scale_name)?;
    let scale_type = b.input_type(scale_index, scale_name)?;
    let zp = b.optional_input(scale_index + 1);
    if let Some(z) = zp {
        let zt = super::binder::tensor_type_of(z)?;
        if zt.dtype.is_some_and(|d| d != storage) {
            bail!("{zp_name} is {} but {data_name} is {storage}", zt);
        }
        if zt.shape != scale_type.shape {
            bail!("{zp_name} has type {zt} but {scale_name} has {scale_type}");
        }
    }
    let qdtype = storage
        .quantized()
        .ok_or_else(|| anyhow!("{data_name}: no quantized type for {storage}"))?;
    let qtype = w_type.with_dtype(qdtype);
    match scale_type.shape.as_deref() {
        Some([]) | Some([Some(1)]) if directions == 1 => {
            let s = t.item_float(scale)?;
            let z = match zp {
                Some(z) => t.item_int(z)?,
                None => t.int(0)?,
            };
            t.aten_tensor("_make_per_tensor_quantized_tensor", &[w, s, z], &qtype)
        }
        Some([Some(n)]) if *n == directions => {
            let z = match zp {
                Some(z) => z,
                None => t.literal(&crate::onnx::tensor::TensorData {
                    dtype: storage,
                    dims: vec![directions],
                    bytes: vec![0u8; directions as usize].into(),
                })?,
            };
            let axis = t.int(0)?;
            t.aten_tensor(
                "_make_per_channel_quantized_tensor",
                &[w, scale, z, axis],
                &qtype,
            )
        }
        _ => bail!(
            "{scale_name} has type {scale_type}; only one scale per direction ([{directions}]) is supported"
        ),
    }
}
