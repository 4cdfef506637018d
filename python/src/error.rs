//! qlower's errors as the Python exception `qlower.QlowerError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

create_exception!(
    qlower,
    QlowerError,
    PyException,
    "A model, input or option qlower refuses; the message is the one line the command \
     line prints after `error: `."
);

/// `e` as a `QlowerError` with the command line's one-line message.
pub fn qlower_error(e: anyhow::Error) -> PyErr {
    QlowerError::new_err(format!("{e:#}"))
}

/// Parses an option spelled as on the command line (`"torch-mlir"`, `"u8"`), or raises
/// `ValueError` listing the choices.
pub fn choice<T: clap::ValueEnum>(option: &str, value: &str) -> PyResult<T> {
    T::from_str(value, false).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| format!("'{}'", p.get_name()))
            .collect();
        PyValueError::new_err(format!(
            "{option} must be one of {}, not '{value}'",
            names.join(", ")
        ))
    })
}
