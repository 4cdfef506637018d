//! Fresh value and node names for graph edits (the quantizer, the opset converter):
//! new names never clash with a name the graph already uses.

use std::collections::HashSet;

use super::proto::GraphProto;

/// Names already used by the graph, and new ones made unique against them.
#[derive(Clone)]
pub struct Names(HashSet<String>);

impl Names {
    pub fn of(graph: &GraphProto) -> Names {
        let mut used = HashSet::new();
        let values = graph
            .input
            .iter()
            .chain(&graph.output)
            .chain(&graph.value_info)
            .map(|v| v.name.clone());
        used.extend(values);
        used.extend(graph.initializer.iter().map(|t| t.name.clone()));
        for n in &graph.node {
            used.extend(n.input.iter().chain(&n.output).cloned());
            used.insert(n.name.clone());
        }
        Names(used)
    }

    /// Marks `name` as used (a name of a subgraph, which `of` does not look into).
    pub fn reserve(&mut self, name: &str) {
        self.0.insert(name.to_string());
    }

    /// `base`, or `base_1`, `base_2`, ... : the first one not used yet, now reserved.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut i = 1;
        while self.0.contains(&name) {
            name = format!("{base}_{i}");
            i += 1;
        }
        self.0.insert(name.clone());
        name
    }
}
