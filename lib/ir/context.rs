//! The one kind of MLIR context qlower uses.

use melior::Context;
use melior::dialect::DialectHandle;

/// A context with the `func` dialect loaded and unregistered dialects allowed, since the
/// torch dialect is not registered: its ops are kept as unregistered operations.
pub fn new_context() -> Context {
    let context = Context::new();
    DialectHandle::func().load_dialect(&context);
    context.set_allow_unregistered_dialects(true);
    context
}
