//! The activation functions ONNX's recurrent ops name in their `activations`
//! attribute, with the alpha and beta each one reads (the lowering has already
//! matched the attribute's `activation_alpha`/`activation_beta` lists to them).

use anyhow::{Result, bail};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Sigmoid,
    Tanh,
    Relu,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus,
    Affine,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Activation {
    pub kind: Kind,
    pub alpha: f32,
    pub beta: f32,
}

impl Kind {
    /// The activation ONNX calls `name` (in any case); `None` for a name it does not
    /// define.
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "sigmoid" => Kind::Sigmoid,
            "tanh" => Kind::Tanh,
            "relu" => Kind::Relu,
            "leakyrelu" => Kind::LeakyRelu,
            "thresholdedrelu" => Kind::ThresholdedRelu,
            "scaledtanh" => Kind::ScaledTanh,
            "hardsigmoid" => Kind::HardSigmoid,
            "elu" => Kind::Elu,
            "softsign" => Kind::Softsign,
            "softplus" => Kind::Softplus,
            "affine" => Kind::Affine,
            _ => return None,
        })
    }
}

impl Activation {
    pub fn parse(name: &str, alpha: f32, beta: f32) -> Result<Activation> {
        let Some(kind) = Kind::parse(name) else {
            bail!("unknown activation function '{name}'");
        };
        Ok(Activation { kind, alpha, beta })
    }

    pub fn apply(&self, x: f32) -> f32 {
        let (a, b) = (self.alpha, self.beta);
        match self.kind {
            Kind::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Kind::Tanh => x.tanh(),
            Kind::Relu => x.max(0.0),
            Kind::LeakyRelu => {
                if x >= 0.0 {
                    x
                } else {
                    a * x
                }
            }
            Kind::ThresholdedRelu => {
                if x > a {
                    x
                } else {
                    0.0
                }
            }
            Kind::ScaledTanh => a * (b * x).tanh(),
            Kind::HardSigmoid => (a * x + b).clamp(0.0, 1.0),
            Kind::Elu => {
                if x >= 0.0 {
                    x
                } else {
                    a * (x.exp() - 1.0)
                }
            }
            Kind::Softsign => x / (1.0 + x.abs()),
            Kind::Softplus => (1.0 + x.exp()).ln(),
            Kind::Affine => a * x + b,
        }
    }
}

/// The activations operand: names joined by commas, one alpha and one beta each.
pub fn parse_list(names: &str, alphas: &[f64], betas: &[f64]) -> Result<Vec<Activation>> {
    let names: Vec<&str> = names.split(',').filter(|n| !n.is_empty()).collect();
    if alphas.len() != names.len() || betas.len() != names.len() {
        bail!(
            "{} activations with {} alphas and {} betas",
            names.len(),
            alphas.len(),
            betas.len()
        );
    }
    names
        .iter()
        .zip(alphas.iter().zip(betas))
        .map(|(n, (&a, &b))| Activation::parse(n, a as f32, b as f32))
        .collect()
}
