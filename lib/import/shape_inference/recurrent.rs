//! LSTM, GRU and com.microsoft DynamicQuantizeLSTM: Y `[T, D, B, H]` and the final
//! states `[D, B, H]` (batch first, `[B, T, D, H]` and `[B, D, H]`, with `layout` 1),
//! in X's element type.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use crate::dialect::types::Dim;

pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["LSTM", "GRU"], 1, |ctx| recurrent(ctx, 2));
    // ONNX Runtime's quantized layout puts H in R's middle dimension: [D, H, 4H].
    r.infer_domain_ops("com.microsoft", &["DynamicQuantizeLSTM"], 1, |ctx| {
        recurrent(ctx, 1)
    });
}

/// `r_hidden_axis`: the dimension of R that is the hidden size, used when the
/// `hidden_size` attribute is absent.
fn recurrent(ctx: &Ctx, r_hidden_axis: usize) -> Result<Vec<Inferred>> {
    let directions: Dim = match ctx.attrs().string("direction", "forward")?.as_str() {
        "forward" | "reverse" => Some(1),
        "bidirectional" => Some(2),
        other => {
            bail!("attribute 'direction' is '{other}', expected forward, reverse or bidirectional")
        }
    };
    let hidden: Dim = match ctx.attrs().optional_int("hidden_size")? {
        Some(h) => Some(h),
        None => ctx
            .shape(2)
            .and_then(|s| s.get(r_hidden_axis).copied().flatten()),
    };
    let layout = ctx.attrs().int("layout", 0)?;
    let dtype = ctx.dtype(0);
    let Some(x) = ctx.shape(0) else {
        return Ok(vec![
            Inferred::of(dtype, None),
            Inferred::of(dtype, None),
            Inferred::of(dtype, None),
        ]);
    };
    let [a, b, _] = x[..] else {
        bail!("input 'X' has rank {}, expected 3", x.len());
    };
    let (y, state) = if layout == 0 {
        (vec![a, directions, b, hidden], vec![directions, b, hidden])
    } else {
        (vec![a, b, directions, hidden], vec![a, directions, hidden])
    };
    Ok(vec![
        Inferred::of(dtype, Some(y)),
        Inferred::of(dtype, Some(state.clone())),
        Inferred::of(dtype, Some(state)),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, run};
    use crate::onnx::dtype::DType;

    #[test]
    fn bidirectional_lstm_gives_y_and_states() {
        let n = N::new("LSTM", &["x", "w", "r"], 3)
            .string("direction", "bidirectional")
            .int("hidden_size", 5);
        let x = || Some(In::new(DType::F32, &[7, 2, 3]));
        let outs = run(&n, 14, &[x(), x(), x()]).unwrap();
        assert_eq!(outs[0].ty.to_string(), "!torch.vtensor<[7,2,2,5],f32>");
        assert_eq!(outs[1].ty.to_string(), "!torch.vtensor<[2,2,5],f32>");
        assert_eq!(outs[2].ty.to_string(), "!torch.vtensor<[2,2,5],f32>");
    }

    #[test]
    fn batch_first_gru_takes_hidden_size_from_r() {
        let n = N::new("GRU", &["x", "w", "r"], 2).int("layout", 1);
        let x = || Some(In::new(DType::F32, &[4, 6, 3]));
        let r = Some(In::new(DType::F32, &[1, 15, 5]));
        let outs = run(&n, 14, &[x(), x(), r]).unwrap();
        assert_eq!(outs[0].ty.to_string(), "!torch.vtensor<[4,6,1,5],f32>");
        assert_eq!(outs[1].ty.to_string(), "!torch.vtensor<[4,1,5],f32>");
    }

    #[test]
    fn a_rank_two_x_is_refused() {
        let n = N::new("LSTM", &["x", "w", "r"], 1).int("hidden_size", 5);
        let x = || Some(In::new(DType::F32, &[7, 3]));
        let e = run(&n, 14, &[x(), x(), x()]).unwrap_err();
        assert!(e.to_string().contains("rank 2"), "{e}");
    }
}
