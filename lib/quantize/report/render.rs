//! The report as a table for people, or as a JSON document for scripts.

use std::fmt::Write;

use serde_json::{Value, json};

use super::suggest::{self, Advice};
use super::verify;
use super::{Report, Row};

/// A dB value with two decimals; "exact" when there was no error (NaN stays NaN: a
/// value was not finite).
fn db(v: f64) -> String {
    if v == f64::INFINITY {
        "exact".to_string()
    } else {
        format!("{v:.2}")
    }
}

/// JSON has no infinity or NaN: those are null (see "exact" in the table).
fn db_json(v: f64) -> Value {
    if v.is_finite() {
        json!((v * 1000.0).round() / 1000.0)
    } else {
        Value::Null
    }
}

fn shown(report: &Report, top: Option<usize>) -> &[Row] {
    let n = top.unwrap_or(report.rows.len()).min(report.rows.len());
    &report.rows[..n]
}

pub fn table(report: &Report, top: Option<usize>) -> String {
    let mut out = String::new();
    let samples = report.samples;
    let _ = writeln!(
        out,
        "SQNR against the float model, 10·log10(Σx² / Σ(x−q)²) over {samples} sample{}; \
         higher is better",
        if samples == 1 { "" } else { "s" }
    );
    let _ = writeln!(out, "\nmodel outputs:");
    if report.outputs.is_empty() {
        let _ = writeln!(
            out,
            "  (no float output of the float model is in the quantized one)"
        );
    }
    for (name, v) in &report.outputs {
        let _ = writeln!(out, "  {name}  {} dB", db(*v));
    }
    let rows = shown(report, top);
    let _ = writeln!(
        out,
        "\nquantized tensors, worst first ({} of {}); SQNR: against the float model's tensor, \
         upstream error included; own: this tensor's quantization alone (the float tensor on its grid)",
        rows.len(),
        report.rows.len()
    );
    let header = ["tensor", "kind", "op", "SQNR dB", "own dB", "suggestion"];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                r.name.clone(),
                r.kind.name().to_string(),
                r.op.clone(),
                db(r.sqnr_db),
                db(r.own_sqnr_db),
                r.advice.map_or(String::new(), |a| a.flag().to_string()),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |c: &[String]| {
        let mut l = String::from(" ");
        for (i, (s, w)) in c.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(s.chars().count());
            // Names left-aligned, numbers right-aligned.
            if i == 3 || i == 4 {
                l.push_str(&format!(" {}{s}", " ".repeat(pad)));
            } else {
                l.push_str(&format!(" {s}{}", " ".repeat(pad)));
            }
        }
        l.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(&header.map(String::from)));
    for c in &cells {
        let _ = writeln!(out, "{}", line(c));
    }
    let _ = writeln!(out, "\nsuggestions ({})", suggest::rule());
    if let Some(m) = report.median_own_db {
        let _ = writeln!(out, "  median own SQNR: {} dB", db(m));
    }
    let mut any = false;
    for advice in [Advice::Keep16Bit, Advice::KeepFloat] {
        let names = report.suggested(advice);
        if !names.is_empty() {
            any = true;
            let _ = writeln!(out, "  --{} {}", advice.flag(), names.join(","));
        }
    }
    if !any {
        let _ = writeln!(out, "  none: no tensor's own error stands out");
    }
    if let Some(v) = &report.verified {
        let _ = writeln!(
            out,
            "\nverified (each 16-bit suggestion kept in turn, quantized again and run; kept when \
             the outputs' SQNR rose by {:.2} dB or more):",
            verify::MIN_GAIN_DB
        );
        for t in &v.trials {
            let verdict = if t.kept { "kept" } else { "dropped" };
            let _ = writeln!(out, "  + {}  {} dB  {verdict}", t.name, db(t.outputs_db));
        }
        let _ = writeln!(
            out,
            "  outputs' SQNR {} dB -> {} dB",
            db(v.before_db),
            db(v.after_db)
        );
        let kept = v.kept();
        if kept.is_empty() {
            let _ = writeln!(out, "  none of the suggestions raises the outputs' SQNR");
        } else {
            let _ = writeln!(out, "  --keep-16bit {}", kept.join(","));
        }
    }
    out
}

pub fn json(report: &Report, top: Option<usize>) -> String {
    let tensors: Vec<Value> = shown(report, top)
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "kind": r.kind.name(),
                "op": r.op,
                "dequantized": r.dequantized,
                "sqnr_db": db_json(r.sqnr_db),
                "own_sqnr_db": db_json(r.own_sqnr_db),
                "suggestion": r.advice.map(Advice::flag),
            })
        })
        .collect();
    let verified = report.verified.as_ref().map_or(Value::Null, |v| {
        json!({
            "before_db": db_json(v.before_db),
            "after_db": db_json(v.after_db),
            "keep_16bit": v.kept(),
            "trials": v.trials.iter().map(|t| json!({
                "name": t.name,
                "outputs_db": db_json(t.outputs_db),
                "kept": t.kept,
            })).collect::<Vec<_>>(),
        })
    });
    let doc = json!({
        "samples": report.samples,
        "outputs": report
            .outputs
            .iter()
            .map(|(n, v)| json!({"name": n, "sqnr_db": db_json(*v)}))
            .collect::<Vec<_>>(),
        "tensors": tensors,
        "tensor_count": report.rows.len(),
        "median_own_sqnr_db": report.median_own_db.map_or(Value::Null, db_json),
        "rule": suggest::rule(),
        "suggested": {
            "keep_16bit": report.suggested(Advice::Keep16Bit),
            "keep_float": report.suggested(Advice::KeepFloat),
        },
        "verified": verified,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}
