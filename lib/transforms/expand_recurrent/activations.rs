//! The activation functions a recurrent layer's `activations` attribute names, in
//! torch ops, with the alpha and beta the conversion matched to each (it fills ONNX's
//! defaults). Each is the op the conversion of the ONNX op of that name writes, or, for
//! those torch lacks (HardSigmoid with ONNX's alpha and beta, ScaledTanh, Affine,
//! Softsign), its arithmetic spelled out.

use anyhow::Result;
use melior::ir::Value;

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::kernels::ops::recurrent::activation::Kind;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Activation {
    kind: Kind,
    alpha: f64,
    beta: f64,
}

impl Activation {
    /// The activation ONNX calls `name` (in any case, the names the kernel knows);
    /// `None` for a name it does not define.
    pub(super) fn parse(name: &str, alpha: f64, beta: f64) -> Option<Activation> {
        let kind = Kind::parse(name)?;
        Some(Activation { kind, alpha, beta })
    }

    /// The activation of `x` (of type `ty`).
    pub(super) fn apply<'c, 'a>(
        &self,
        b: &TorchBuilder<'c, 'a>,
        x: Value<'c, 'a>,
        ty: &TensorType,
    ) -> Result<Value<'c, 'a>> {
        let (alpha, beta) = (b.float(self.alpha)?, b.float(self.beta)?);
        let one = b.int(1)?;
        let affine = |x: Value<'c, 'a>| -> Result<Value<'c, 'a>> {
            let scaled = b.aten_tensor("mul.Scalar", &[x, alpha], ty)?;
            b.aten_tensor("add.Scalar", &[scaled, beta, one], ty)
        };
        match self.kind {
            Kind::Sigmoid => b.aten_tensor("sigmoid", &[x], ty),
            Kind::Tanh => b.aten_tensor("tanh", &[x], ty),
            Kind::Relu => b.aten_tensor("relu", &[x], ty),
            Kind::LeakyRelu => b.aten_tensor("leaky_relu", &[x, alpha], ty),
            Kind::ThresholdedRelu => {
                let zero = b.float(0.0)?;
                b.aten_tensor("threshold", &[x, alpha, zero], ty)
            }
            Kind::ScaledTanh => {
                let inner = b.aten_tensor("mul.Scalar", &[x, beta], ty)?;
                let squashed = b.aten_tensor("tanh", &[inner], ty)?;
                b.aten_tensor("mul.Scalar", &[squashed, alpha], ty)
            }
            Kind::HardSigmoid => {
                let (lo, hi) = (b.float(0.0)?, b.float(1.0)?);
                b.aten_tensor("clamp", &[affine(x)?, lo, hi], ty)
            }
            Kind::Elu => b.aten_tensor("elu", &[x, alpha, b.float(1.0)?, one], ty),
            Kind::Softsign => {
                let magnitude = b.aten_tensor("abs", &[x], ty)?;
                let denominator = b.aten_tensor("add.Scalar", &[magnitude, one, one], ty)?;
                b.aten_tensor("div.Tensor", &[x, denominator], ty)
            }
            // torch's softplus is x itself above its threshold (20), where
            // ln(1 + e^-x) is below half an ulp of x in f32.
            Kind::Softplus => b.aten_tensor("softplus", &[x, one, b.int(20)?], ty),
            Kind::Affine => affine(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_onnx_s_in_any_case() {
        assert_eq!(
            Activation::parse("LeakyRelu", 0.1, 0.0).map(|a| a.kind),
            Some(Kind::LeakyRelu)
        );
        assert_eq!(
            Activation::parse("hardsigmoid", 0.2, 0.5).map(|a| a.kind),
            Some(Kind::HardSigmoid)
        );
        assert_eq!(Activation::parse("Gelu", 0.0, 0.0), None);
    }
}
