//! Where a plan's time goes: each step's time summed over profiled runs, by step and by
//! op kind, as `qlower bench --profile` prints it. Like ONNX Runtime's profiler and
//! tract's `--profile`, it times the steps as they run, so what it names is what ran:
//! a fused `qlower.qlinear_conv`, not the ONNX nodes it replaced.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::plan::Plan;

/// The time of one step, summed over the profiled runs.
#[derive(Clone, Debug)]
pub struct StepTime {
    pub op: String,
    pub node: Option<String>,
    pub total: Duration,
    pub calls: u64,
}

/// One op kind's share: how many steps run it, and their summed time.
#[derive(Clone, Debug, PartialEq)]
pub struct OpTime {
    pub op: String,
    pub steps: usize,
    pub calls: u64,
    pub total: Duration,
}

#[derive(Clone, Debug)]
pub struct Profile {
    pub steps: Vec<StepTime>,
    /// Profiled runs so far.
    pub runs: u64,
}

impl Plan {
    /// An empty profile with a row for each of this plan's steps.
    pub fn profile(&self) -> Profile {
        Profile {
            steps: self
                .steps
                .iter()
                .map(|s| StepTime {
                    op: s.op.clone(),
                    node: s.node.clone(),
                    total: Duration::ZERO,
                    calls: 0,
                })
                .collect(),
            runs: 0,
        }
    }
}

impl Profile {
    pub(super) fn record(&mut self, step: usize, elapsed: Duration) {
        if let Some(s) = self.steps.get_mut(step) {
            s.total += elapsed;
            s.calls += 1;
        }
    }

    /// The time of every step together.
    pub fn total(&self) -> Duration {
        self.steps.iter().map(|s| s.total).sum()
    }

    /// The op kinds, most time first (ties by name, so the order is stable).
    pub fn by_op(&self) -> Vec<OpTime> {
        let mut kinds: HashMap<&str, OpTime> = HashMap::new();
        for s in &self.steps {
            let k = kinds.entry(&s.op).or_insert_with(|| OpTime {
                op: s.op.clone(),
                steps: 0,
                calls: 0,
                total: Duration::ZERO,
            });
            k.steps += 1;
            k.calls += s.calls;
            k.total += s.total;
        }
        let mut kinds: Vec<OpTime> = kinds.into_values().collect();
        kinds.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.op.cmp(&b.op)));
        kinds
    }

    /// The `top` slowest steps, with their index in the plan, most time first.
    pub fn slowest_steps(&self, top: usize) -> Vec<(usize, &StepTime)> {
        let mut steps: Vec<(usize, &StepTime)> = self.steps.iter().enumerate().collect();
        steps.sort_by(|a, b| b.1.total.cmp(&a.1.total).then_with(|| a.0.cmp(&b.0)));
        steps.truncate(top);
        steps
    }

    /// Milliseconds per run.
    fn per_run_ms(&self, d: Duration) -> f64 {
        d.as_secs_f64() * 1e3 / self.runs.max(1) as f64
    }

    fn share(&self, d: Duration) -> f64 {
        let total = self.total().as_secs_f64();
        if total > 0.0 {
            100.0 * d.as_secs_f64() / total
        } else {
            0.0
        }
    }

    /// Two tables: per op kind (time per run, share, calls per run, mean per call), then
    /// the `top` slowest steps.
    pub fn table(&self, top: usize) -> String {
        let runs = self.runs.max(1);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<36} {:>6} {:>10} {:>7} {:>12}",
            "op", "steps", "ms/run", "share", "us/call"
        );
        for k in self.by_op() {
            let per_call = k.total.as_secs_f64() * 1e6 / k.calls.max(1) as f64;
            let _ = writeln!(
                out,
                "{:<36} {:>6} {:>10.3} {:>6.1}% {:>12.1}",
                k.op,
                k.steps,
                self.per_run_ms(k.total),
                self.share(k.total),
                per_call
            );
        }
        let _ = writeln!(
            out,
            "{:<36} {:>6} {:>10.3} {:>6.1}%   ({runs} profiled run{})",
            "total",
            self.steps.len(),
            self.per_run_ms(self.total()),
            100.0,
            if runs == 1 { "" } else { "s" }
        );
        let _ = writeln!(out, "\nslowest steps:");
        let _ = writeln!(
            out,
            "{:>6} {:>10} {:>7}  op (node)",
            "step", "ms/run", "share"
        );
        for (i, s) in self.slowest_steps(top) {
            let node = s
                .node
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{i:>6} {:>10.3} {:>6.1}%  {}{node}",
                self.per_run_ms(s.total),
                self.share(s.total),
                s.op
            );
        }
        out
    }

    /// The same as JSON: `{"runs":N,"total_ms":…,"by_op":[…],"steps":[…]}` with the
    /// `top` slowest steps.
    pub fn json(&self, top: usize) -> String {
        let runs = self.runs.max(1) as f64;
        let by_op: Vec<String> = self
            .by_op()
            .iter()
            .map(|k| {
                format!(
                    "{{\"op\":{},\"steps\":{},\"calls_per_run\":{},\"ms_per_run\":{:.6},\"share\":{:.4}}}",
                    json_string(&k.op),
                    k.steps,
                    k.calls as f64 / runs,
                    self.per_run_ms(k.total),
                    self.share(k.total) / 100.0
                )
            })
            .collect();
        let steps: Vec<String> = self
            .slowest_steps(top)
            .iter()
            .map(|(i, s)| {
                format!(
                    "{{\"step\":{i},\"op\":{},\"node\":{},\"ms_per_run\":{:.6},\"share\":{:.4}}}",
                    json_string(&s.op),
                    s.node.as_deref().map_or("null".to_string(), json_string),
                    self.per_run_ms(s.total),
                    self.share(s.total) / 100.0
                )
            })
            .collect();
        format!(
            "{{\"runs\":{},\"total_ms_per_run\":{:.6},\"by_op\":[{}],\"steps\":[{}]}}",
            self.runs,
            self.per_run_ms(self.total()),
            by_op.join(","),
            steps.join(",")
        )
    }
}

/// `s` as a JSON string literal: node names come from the model and may hold quotes,
/// backslashes or control characters.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        let step = |op: &str, node: Option<&str>, ms: u64, calls: u64| StepTime {
            op: op.into(),
            node: node.map(Into::into),
            total: Duration::from_millis(ms),
            calls,
        };
        Profile {
            steps: vec![
                step("qlower.qlinear_conv", Some("conv1"), 30, 2),
                step("torch.aten.relu", None, 4, 2),
                step("qlower.qlinear_conv", Some("conv\"2"), 50, 2),
                step("torch.aten.add.Tensor", Some("add"), 16, 2),
            ],
            runs: 2,
        }
    }

    #[test]
    fn op_kinds_add_their_steps_most_time_first() {
        let kinds = profile().by_op();
        assert_eq!(kinds[0].op, "qlower.qlinear_conv");
        assert_eq!((kinds[0].steps, kinds[0].calls), (2, 4));
        assert_eq!(kinds[0].total, Duration::from_millis(80));
        let order: Vec<&str> = kinds.iter().map(|k| k.op.as_str()).collect();
        assert_eq!(
            order,
            [
                "qlower.qlinear_conv",
                "torch.aten.add.Tensor",
                "torch.aten.relu"
            ]
        );
    }

    #[test]
    fn the_table_gives_time_per_run_and_share() {
        let text = profile().table(2);
        // 80 ms over 2 runs, of 100 ms in all.
        assert!(text.contains("40.000   80.0%"), "{text}");
        assert!(text.contains("total"), "{text}");
        let slowest = text.split("slowest steps:").nth(1).unwrap();
        let first = slowest.lines().nth(2).unwrap();
        assert!(first.trim_start().starts_with("2 "), "{first}");
        assert!(first.contains("(conv\"2)"), "{first}");
        assert!(!slowest.contains("relu"), "only the top 2 steps: {slowest}");
    }

    #[test]
    fn json_escapes_node_names_and_lists_every_kind() {
        let json = profile().json(10);
        assert!(json.contains(r#""node":"conv\"2""#), "{json}");
        assert!(json.contains(r#""node":null"#), "{json}");
        assert!(
            json.starts_with(r#"{"runs":2,"total_ms_per_run":50.000000"#),
            "{json}"
        );
        assert_eq!(json.matches("\"op\":").count(), 3 + 4);
        assert_eq!(json_string("a\nb\\"), r#""a\u000ab\\""#);
    }
}
