//! `qlower.Session`: a model planned once for the CPU backend and run many times, with
//! the calling conventions of ONNX Runtime's `InferenceSession`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use qlower_core::kernels::tensor::Tensor;
use qlower_core::kernels::tensor::dtype::DType;
use qlower_core::onnx::proto::tensor_shape_proto::dimension;
use qlower_core::onnx::proto::type_proto;
use qlower_core::onnx::validate::ValidModel;
use qlower_core::runtime::inputs::bind_inputs;
use qlower_core::runtime::plan::{Plan, Port};
use qlower_core::runtime::threads::worker_pool;

use crate::arrays::{array_of, tensor_of};
use crate::error::qlower_error;
use crate::model::Source;

/// One dimension of a declared shape, as ONNX Runtime reports it.
#[derive(Clone, Debug)]
enum Dim {
    Size(i64),
    /// A dynamic dimension the model names (`dim_param`).
    Named(String),
    Unknown,
}

/// A graph input or output: `name`, `type` (`"tensor(float)"`) and `shape` (ints, and
/// a string or None for each dynamic dimension; None for an unranked tensor).
#[pyclass(frozen, module = "qlower")]
pub struct NodeArg {
    #[pyo3(get)]
    name: String,
    #[pyo3(get, name = "type")]
    ty: String,
    dims: Option<Vec<Dim>>,
}

#[pymethods]
impl NodeArg {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(dims) = &self.dims else {
            return Ok(None);
        };
        let items = dims
            .iter()
            .map(|d| -> PyResult<Bound<'py, PyAny>> {
                Ok(match d {
                    Dim::Size(n) => n.into_pyobject(py)?.into_any(),
                    Dim::Named(s) => s.into_pyobject(py)?.into_any(),
                    Dim::Unknown => py.None().into_bound(py),
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items).map(Some)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let shape = match self.shape(py)? {
            Some(list) => list.repr()?.to_string(),
            None => "None".to_string(),
        };
        let name = self.name.as_str().into_pyobject(py)?.repr()?;
        let ty = self.ty.as_str().into_pyobject(py)?.repr()?;
        Ok(format!("NodeArg(name={name}, type={ty}, shape={shape})"))
    }
}

impl NodeArg {
    /// `port` as ONNX Runtime describes it; `names` are the model's `dim_param`s for it.
    fn of(port: &Port, names: Option<&[Option<String>]>) -> NodeArg {
        let ty = match port.ty.dtype {
            Some(d) => format!("tensor({})", ort_type_name(d)),
            None => "tensor(undefined)".to_string(),
        };
        let dims = port.ty.shape.as_ref().map(|dims| {
            dims.iter()
                .enumerate()
                .map(|(i, d)| match d {
                    Some(n) => Dim::Size(*n),
                    None => match names.and_then(|n| n.get(i)).cloned().flatten() {
                        Some(name) => Dim::Named(name),
                        None => Dim::Unknown,
                    },
                })
                .collect()
        });
        NodeArg {
            name: port.name.clone(),
            ty,
            dims,
        }
    }
}

/// ONNX Runtime's name of an element type: the ONNX name in lower case (`float`,
/// `uint8`, `float16`, `float8e4m3fn`).
fn ort_type_name(d: DType) -> String {
    d.onnx_name().to_ascii_lowercase()
}

/// The `dim_param` of every dimension of each graph input or output named `name`.
fn dim_params(model: &ValidModel, name: &str) -> Option<Vec<Option<String>>> {
    let graph = model.graph();
    let info = graph
        .input
        .iter()
        .chain(&graph.output)
        .find(|v| v.name == name)?;
    let Some(type_proto::Value::TensorType(tensor)) = info.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    Some(
        tensor
            .shape
            .as_ref()?
            .dim
            .iter()
            .map(|d| match &d.value {
                Some(dimension::Value::DimParam(p)) if !p.is_empty() => Some(p.clone()),
                _ => None,
            })
            .collect(),
    )
}

/// A model compiled to the CPU backend's plan, run on a pool of `threads` workers
/// (default: every core), as `qlower run` runs it.
#[pyclass(frozen, module = "qlower")]
pub struct Session {
    plan: Plan,
    pool: rayon::ThreadPool,
    inputs: Vec<Py<NodeArg>>,
    outputs: Vec<Py<NodeArg>>,
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (model, threads=None, input_shapes=None))]
    fn new(
        py: Python<'_>,
        model: &Bound<'_, PyAny>,
        threads: Option<usize>,
        input_shapes: Option<std::collections::BTreeMap<String, Vec<usize>>>,
    ) -> PyResult<Session> {
        let source = Source::of(model)?;
        // `{name: shape}`, as `qlower --input-shape` takes them.
        let input_shapes: Vec<(String, Vec<usize>)> =
            input_shapes.unwrap_or_default().into_iter().collect();
        let (plan, pool, inputs, outputs) = py
            .detach(|| -> anyhow::Result<_> {
                let pool = worker_pool(threads)?;
                let (plan, model) = source.plan(&input_shapes)?;
                let describe = |ports: &[Port]| -> Vec<NodeArg> {
                    ports
                        .iter()
                        .map(|p| {
                            let names = model.as_ref().and_then(|m| dim_params(m, &p.name));
                            NodeArg::of(p, names.as_deref())
                        })
                        .collect()
                };
                let inputs = describe(&plan.inputs);
                let outputs = describe(&plan.outputs);
                Ok((plan, pool, inputs, outputs))
            })
            .map_err(qlower_error)?;
        let to_py = |args: Vec<NodeArg>| -> PyResult<Vec<Py<NodeArg>>> {
            args.into_iter().map(|a| Py::new(py, a)).collect()
        };
        Ok(Session {
            plan,
            pool,
            inputs: to_py(inputs)?,
            outputs: to_py(outputs)?,
        })
    }

    /// The graph's inputs, in order.
    fn get_inputs(&self, py: Python<'_>) -> Vec<Py<NodeArg>> {
        self.inputs.iter().map(|a| a.clone_ref(py)).collect()
    }

    /// The graph's outputs, in order.
    fn get_outputs(&self, py: Python<'_>) -> Vec<Py<NodeArg>> {
        self.outputs.iter().map(|a| a.clone_ref(py)).collect()
    }

    /// Runs the model: `feeds` maps every input's name to an array (or anything
    /// `numpy.asarray` takes), `output_names` picks outputs (None: all, in order).
    /// Inputs are checked against the declared types and shapes before anything runs.
    #[pyo3(signature = (output_names, feeds, run_options=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        output_names: Option<Vec<String>>,
        feeds: &Bound<'py, PyDict>,
        run_options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let _ = run_options;
        let wanted = match &output_names {
            None => (0..self.plan.outputs.len()).collect(),
            Some(names) => names
                .iter()
                .map(|n| output_index(&self.plan, n))
                .collect::<anyhow::Result<Vec<usize>>>()
                .map_err(qlower_error)?,
        };
        let mut given = Vec::with_capacity(feeds.len());
        for (name, value) in feeds.iter() {
            given.push((name.extract::<String>()?, value));
        }
        let inputs = bind_inputs(
            &self.plan,
            given,
            |_, value| tensor_of(&value),
            |_| "give it in the feeds".to_string(),
        )
        .map_err(qlower_error)?;
        let outputs = py
            .detach(|| -> anyhow::Result<Vec<Tensor>> {
                self.plan.check_inputs(&inputs)?;
                self.pool.install(|| self.plan.run(inputs))
            })
            .map_err(qlower_error)?;
        let mut outputs: Vec<Option<Tensor>> = outputs.into_iter().map(Some).collect();
        wanted
            .iter()
            .enumerate()
            .map(|(at, &index)| {
                // An output asked for twice is copied; its last request takes it.
                let tensor = if wanted[at + 1..].contains(&index) {
                    outputs[index].clone()
                } else {
                    outputs[index].take()
                };
                let tensor = tensor.ok_or_else(|| {
                    anyhow::anyhow!("internal error: output {index} was taken twice")
                });
                tensor.and_then(|t| array_of(py, t)).map_err(qlower_error)
            })
            .collect()
    }
}

fn output_index(plan: &Plan, name: &str) -> anyhow::Result<usize> {
    plan.outputs
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = plan.outputs.iter().map(|p| p.name.as_str()).collect();
            anyhow::anyhow!(
                "the model has no output named '{name}' (its outputs: {})",
                names.join(", ")
            )
        })
}
