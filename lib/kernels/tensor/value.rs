//! What flows between steps at run time: tensors, and the torch scalars and lists that
//! ops take as operands.

use std::sync::Arc;

use anyhow::{Result, bail};

use super::Tensor;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Tensor(Arc<Tensor>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    IntList(Vec<i64>),
    FloatList(Vec<f64>),
    BoolList(Vec<bool>),
    TensorList(Vec<Arc<Tensor>>),
}

impl Value {
    pub fn tensor(t: Tensor) -> Value {
        Value::Tensor(Arc::new(t))
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "tensor",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Bool(_) => "bool",
            Value::Str(_) => "str",
            Value::None => "none",
            Value::IntList(_) => "list<int>",
            Value::FloatList(_) => "list<float>",
            Value::BoolList(_) => "list<bool>",
            Value::TensorList(_) => "list<vtensor>",
        }
    }

    pub fn as_tensor(&self) -> Result<&Arc<Tensor>> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => bail!("expected a tensor, got {}", other.kind()),
        }
    }

    pub fn as_int(&self) -> Result<i64> {
        match self {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            other => bail!("expected an int, got {}", other.kind()),
        }
    }

    /// A torch `Scalar`: ints and bools widen to float.
    pub fn as_float(&self) -> Result<f64> {
        match self {
            Value::Float(f) => Ok(*f),
            Value::Int(i) => Ok(*i as f64),
            Value::Bool(b) => Ok(*b as u8 as f64),
            other => bail!("expected a float, got {}", other.kind()),
        }
    }

    pub fn as_bool(&self) -> Result<bool> {
        match self {
            Value::Bool(b) => Ok(*b),
            Value::Int(i) => Ok(*i != 0),
            other => bail!("expected a bool, got {}", other.kind()),
        }
    }

    pub fn as_str(&self) -> Result<&str> {
        match self {
            Value::Str(s) => Ok(s),
            other => bail!("expected a str, got {}", other.kind()),
        }
    }

    pub fn as_int_list(&self) -> Result<&[i64]> {
        match self {
            Value::IntList(v) => Ok(v),
            other => bail!("expected a list<int>, got {}", other.kind()),
        }
    }

    pub fn as_tensor_list(&self) -> Result<&[Arc<Tensor>]> {
        match self {
            Value::TensorList(v) => Ok(v),
            other => bail!("expected a list of tensors, got {}", other.kind()),
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }
}
