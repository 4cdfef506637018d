//! Structural checks of a decoded model, and the node order the importer follows.
//!
//! Files are not always topologically sorted, so the order is computed here: a
//! dependency graph of the nodes (petgraph) gives both the order and any cycle.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::PathBuf;

use anyhow::{Result, bail};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use super::node_label;
use super::proto::{GraphProto, ModelProto, NodeProto};

/// Newest default-domain opset whose operator semantics qlower knows.
pub const MAX_DEFAULT_OPSET: i64 = 28;

/// A model that passed validation, with the order its nodes are imported in.
pub struct ValidModel {
    pub proto: ModelProto,
    /// Where external data is looked up; `None` for models decoded from memory.
    pub dir: Option<PathBuf>,
    /// Indices into `graph.node`, producers before consumers.
    pub order: Vec<usize>,
    /// Opset version by domain; the default domain is `""`.
    pub opsets: HashMap<String, i64>,
    /// Whether the graph inputs were given the sizes of the inputs one run reads
    /// (`input_sizes.rs`): then an If branch that cannot be typed for them becomes a
    /// branch that fails when it runs, as it would in ONNX Runtime.
    pub sized_for_run: bool,
}

impl ValidModel {
    pub fn graph(&self) -> &GraphProto {
        // validate() refuses models without a graph.
        self.proto
            .graph
            .as_ref()
            .expect("validated model has a graph")
    }

    pub fn default_opset(&self) -> i64 {
        self.opsets.get("").copied().unwrap_or(0)
    }
}

/// Normalizes the domain names that mean the default ONNX domain.
pub fn canonical_domain(domain: &str) -> &str {
    if domain == "ai.onnx" { "" } else { domain }
}

pub fn validate(proto: ModelProto, dir: Option<PathBuf>) -> Result<ValidModel> {
    let Some(graph) = proto.graph.as_ref() else {
        bail!("model has no graph");
    };
    let opsets = check_opsets(&proto, graph)?;
    let order = node_order(graph, &|_| false)?;
    Ok(ValidModel {
        proto,
        dir,
        order,
        opsets,
        sized_for_run: false,
    })
}

fn check_opsets(proto: &ModelProto, graph: &GraphProto) -> Result<HashMap<String, i64>> {
    let mut opsets = HashMap::new();
    for o in &proto.opset_import {
        let domain = canonical_domain(&o.domain).to_string();
        if opsets.insert(domain.clone(), o.version).is_some() {
            bail!("opset for domain '{}' is imported twice", o.domain);
        }
    }
    match opsets.get("") {
        Some(&v) if v > MAX_DEFAULT_OPSET => bail!(
            "default-domain opset {v} is newer than the newest qlower supports ({MAX_DEFAULT_OPSET})"
        ),
        Some(&v) if v < 1 => bail!("default-domain opset {v} is not a valid opset version"),
        Some(_) => {}
        None => {
            if let Some((i, n)) = graph
                .node
                .iter()
                .enumerate()
                .find(|(_, n)| canonical_domain(&n.domain).is_empty())
            {
                bail!(
                    "{}: the model imports no opset for the default ONNX domain",
                    node_label(n, i)
                );
            }
        }
    }
    for (i, n) in graph.node.iter().enumerate() {
        let domain = canonical_domain(&n.domain);
        if !opsets.contains_key(domain) {
            bail!(
                "{}: the model imports no opset for domain '{}'",
                node_label(n, i),
                n.domain
            );
        }
    }
    Ok(opsets)
}

/// Where a value comes from, for messages about duplicates.
#[derive(Clone, Copy)]
enum Definer {
    GraphInput,
    Initializer,
    Node(usize),
}

fn describe(graph: &GraphProto, d: Definer) -> String {
    match d {
        Definer::GraphInput => "a graph input".to_string(),
        Definer::Initializer => "an initializer".to_string(),
        Definer::Node(i) => node_label(&graph.node[i], i),
    }
}

/// The order of a subgraph's nodes (an If branch), producers before consumers;
/// `outer` says which names the enclosing graphs define, which the subgraph may read.
pub fn subgraph_order(graph: &GraphProto, outer: &dyn Fn(&str) -> bool) -> Result<Vec<usize>> {
    node_order(graph, outer)
}

/// The names a node's subgraphs (and theirs, nested) read without defining them: the
/// enclosing graph's values they capture, which order the node after their producers.
pub fn captured_names(node: &NodeProto) -> Vec<&str> {
    let mut out = Vec::new();
    for a in &node.attribute {
        for g in a.g.iter().chain(&a.graphs) {
            graph_captures(g, &mut out);
        }
    }
    let mut seen = HashSet::new();
    out.retain(|n| seen.insert(*n));
    out
}

fn graph_captures<'g>(graph: &'g GraphProto, out: &mut Vec<&'g str>) {
    let mut defined: HashSet<&str> = HashSet::new();
    defined.extend(graph.input.iter().map(|i| i.name.as_str()));
    defined.extend(graph.initializer.iter().map(|i| i.name.as_str()));
    for n in &graph.node {
        defined.extend(n.output.iter().map(String::as_str));
    }
    let mut reads: Vec<&str> = Vec::new();
    for n in &graph.node {
        reads.extend(n.input.iter().map(String::as_str));
        reads.extend(captured_names(n));
    }
    reads.extend(graph.output.iter().map(|o| o.name.as_str()));
    out.extend(
        reads
            .into_iter()
            .filter(|r| !r.is_empty() && !defined.contains(r)),
    );
}

fn node_order(graph: &GraphProto, outer: &dyn Fn(&str) -> bool) -> Result<Vec<usize>> {
    let mut defined: HashMap<&str, Definer> = HashMap::new();
    for inp in &graph.input {
        if defined.insert(&inp.name, Definer::GraphInput).is_some() {
            bail!("graph input '{}' is declared twice", inp.name);
        }
    }
    for init in &graph.initializer {
        // Older models list initializers among the graph inputs too; that is allowed.
        match defined.get(init.name.as_str()) {
            Some(Definer::Initializer) => bail!("initializer '{}' is defined twice", init.name),
            Some(_) | None => {
                defined.insert(&init.name, Definer::Initializer);
            }
        }
    }

    let mut deps: DiGraph<usize, ()> = DiGraph::new();
    let ids: Vec<NodeIndex> = (0..graph.node.len()).map(|i| deps.add_node(i)).collect();
    for (i, n) in graph.node.iter().enumerate() {
        for out in n.output.iter().filter(|o| !o.is_empty()) {
            if let Some(prev) = defined.insert(out, Definer::Node(i)) {
                bail!(
                    "{}: output '{out}' is already defined by {}",
                    node_label(n, i),
                    describe(graph, prev)
                );
            }
        }
    }
    for (i, n) in graph.node.iter().enumerate() {
        for inp in n.input.iter().filter(|s| !s.is_empty()) {
            match defined.get(inp.as_str()) {
                None if outer(inp) => {}
                None => bail!("{}: input '{inp}' is never defined", node_label(n, i)),
                Some(Definer::Node(p)) => {
                    deps.add_edge(ids[*p], ids[i], ());
                }
                Some(_) => {}
            }
        }
        // What a subgraph reads from here orders the node after its producer; a name
        // no scope defines is the import's error, which names the subgraph's node.
        for name in captured_names(n) {
            if let Some(Definer::Node(p)) = defined.get(name) {
                deps.add_edge(ids[*p], ids[i], ());
            }
        }
    }
    for out in &graph.output {
        if !defined.contains_key(out.name.as_str()) && !outer(&out.name) {
            bail!("graph output '{}' is never defined", out.name);
        }
    }

    // Kahn's algorithm, always taking the lowest file index that is ready, so a
    // sorted file keeps its order.
    let mut pending: Vec<usize> = ids
        .iter()
        .map(|&id| deps.neighbors_directed(id, petgraph::Incoming).count())
        .collect();
    let mut ready: BinaryHeap<Reverse<usize>> = pending
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == 0)
        .map(|(i, _)| Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(graph.node.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for next in deps.neighbors_directed(ids[i], petgraph::Outgoing) {
            let j = deps[next];
            pending[j] -= 1;
            if pending[j] == 0 {
                ready.push(Reverse(j));
            }
        }
    }
    if order.len() < graph.node.len() {
        let cycle = tarjan_scc(&deps)
            .into_iter()
            .find(|scc| scc.len() > 1 || deps.contains_edge(scc[0], scc[0]))
            .unwrap_or_default();
        let mut names: Vec<usize> = cycle.iter().map(|&id| deps[id]).collect();
        names.sort_unstable();
        let labels: Vec<String> = names
            .iter()
            .map(|&i| node_label(&graph.node[i], i))
            .collect();
        bail!("the graph has a cycle through {}", labels.join(", "));
    }
    Ok(order)
}
