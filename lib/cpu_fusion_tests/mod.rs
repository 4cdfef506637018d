//! `fuse-for-cpu` and the backend together: each fusion runs as its `qlower.` op, and
//! gives the results ONNX Runtime computes (where a literal float path would not), or
//! the unfused IR's where the pattern must not fire. The pass's own IR is checked by
//! the lit tests in test/Backend/.

mod contrib;
mod conv_matmul;
mod elementwise;
mod lookup_table;
mod max_pool;

use melior::Context;
use melior::ir::Module;

use crate::runtime::plan::Plan;
use crate::transforms::fuse_for_cpu;

/// `module` after `fuse-for-cpu`, planned.
fn fused_plan(context: &Context, mut module: Module) -> Plan {
    fuse_for_cpu(context, &mut module).unwrap();
    Plan::new(&module).unwrap()
}
