use super::*;
use crate::import::shape_inference::test_util::{In, N, run};
use crate::import::shape_inference::{InferInput, Node};
use crate::onnx::dtype::DType;

fn named(dims: &[&str]) -> SymValue {
    SymValue {
        dims: Some(
            dims.iter()
                .map(|d| match d.parse::<i64>() {
                    Ok(n) => SymDim::constant(n),
                    Err(_) => SymDim::symbol(d),
                })
                .collect(),
        ),
        elements: None,
    }
}

/// Each output's named dims, as `qlower shapes` prints them.
fn infer_named(node: &N, opset: i64, inputs: Vec<(In, SymValue)>) -> Vec<String> {
    let (concrete, syms): (Vec<Option<In>>, Vec<SymValue>) =
        inputs.into_iter().map(|(c, s)| (Some(c), s)).unzip();
    let inferred = run(node, opset, &concrete).expect("concrete inference");
    let refs: Vec<Option<InferInput>> = concrete
        .iter()
        .map(|i| {
            i.as_ref().map(|i| InferInput {
                ty: &i.ty,
                value: i.value.as_ref(),
                partial: i.partial.as_deref(),
            })
        })
        .collect();
    let view = Node::of_proto(&node.0);
    let ctx = Ctx::new(&view, opset, &refs);
    let sym_refs: Vec<Option<&SymValue>> = syms.iter().map(Some).collect();
    infer(&ctx, "", &sym_refs, &inferred, &mut Fresh::default())
        .iter()
        .map(SymValue::display_dims)
        .collect()
}

#[test]
fn recurrent_outputs_keep_sequence_and_batch_in_either_layout() {
    let lstm = |layout: i64| {
        N::new("LSTM", &["x", "w", "r"], 3)
            .int("hidden_size", 4)
            .int("layout", layout)
    };
    let w = || (In::new(DType::F32, &[1, 16, 8]), named(&["1", "16", "8"]));
    let r = || (In::new(DType::F32, &[1, 16, 4]), named(&["1", "16", "4"]));
    let x = (
        In::new(DType::F32, &[-1, -1, 8]),
        named(&["seq", "batch", "8"]),
    );
    assert_eq!(
        infer_named(&lstm(0), 14, vec![x, w(), r()]),
        ["[seq,1,batch,4]", "[1,batch,4]", "[1,batch,4]"]
    );
    let x = (
        In::new(DType::F32, &[-1, -1, 8]),
        named(&["batch", "seq", "8"]),
    );
    assert_eq!(
        infer_named(&lstm(1), 14, vec![x, w(), r()]),
        ["[batch,seq,1,4]", "[batch,1,4]", "[batch,1,4]"]
    );
}

#[test]
fn stride_one_windows_keep_a_polynomial_and_strided_ones_a_rounded_quotient() {
    let x = || {
        (
            In::new(DType::F32, &[-1, 3, -1]),
            named(&["batch", "3", "t"]),
        )
    };
    let w = || (In::new(DType::F32, &[8, 3, 5]), named(&["8", "3", "5"]));
    let same = N::new("Conv", &["x", "w"], 1).ints("pads", &[2, 2]);
    assert_eq!(infer_named(&same, 17, vec![x(), w()]), ["[batch,8,t]"]);
    let valid = N::new("Conv", &["x", "w"], 1).ints("dilations", &[2]);
    assert_eq!(infer_named(&valid, 17, vec![x(), w()]), ["[batch,8,t-8]"]);
    let strided = N::new("Conv", &["x", "w"], 1).ints("strides", &[2]);
    assert_eq!(
        infer_named(&strided, 17, vec![x(), w()]),
        ["[batch,8,floor((t-5)/2)+1]"]
    );
}

#[test]
fn a_slice_from_minus_the_size_to_past_it_is_the_whole_axis() {
    let x = (In::new(DType::F32, &[4, -1]), named(&["4", "seq"]));
    let minus_seq = (
        In::new(DType::I64, &[1]),
        SymValue {
            dims: Some(vec![SymDim::constant(1)]),
            elements: Some(vec![
                SymDim::constant(0).sub(&SymDim::symbol("seq")).unwrap(),
            ]),
        },
    );
    let seq_plus_one = (
        In::new(DType::I64, &[1]),
        SymValue {
            dims: Some(vec![SymDim::constant(1)]),
            elements: Some(vec![
                SymDim::symbol("seq").add(&SymDim::constant(1)).unwrap(),
            ]),
        },
    );
    let axes = (In::ints(&[1], &[1]), named(&["1"]));
    let node = N::new("Slice", &["x", "starts", "ends", "axes"], 1);
    assert_eq!(
        infer_named(&node, 13, vec![x, minus_seq, seq_plus_one, axes]),
        ["[4,seq]"]
    );
}

#[test]
fn gather_nd_keeps_the_indices_lead_and_the_data_tail() {
    let data = (
        In::new(DType::F32, &[-1, -1, 64]),
        named(&["batch", "seq", "64"]),
    );
    let pairs = (In::new(DType::I64, &[-1, 2]), named(&["batch", "2"]));
    let node = N::new("GatherND", &["data", "indices"], 1);
    assert_eq!(infer_named(&node, 13, vec![data, pairs]), ["[batch,64]"]);
}
