//! Why patterns did not rewrite an op, kept per op until a legality check reads it.

use std::cell::RefCell;
use std::collections::HashMap;

use melior::ir::operation::OperationRef;

#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// The pattern does not apply; another one might.
    NoMatch(String),
    /// The op is malformed or unsupported: a user-facing error.
    Error(String),
}

impl Failure {
    pub fn message(&self) -> &str {
        match self {
            Failure::NoMatch(m) | Failure::Error(m) => m,
        }
    }
}

/// Keyed by the operation's address, which is stable while the op lives; entries of
/// ops that were rewritten are forgotten.
#[derive(Default)]
pub struct FailureLog {
    entries: RefCell<HashMap<usize, Failure>>,
}

fn key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

impl FailureLog {
    /// Records `failure` for `op`; an error is never replaced by a later "no match".
    pub fn record(&self, op: OperationRef<'_, '_>, failure: Failure) {
        let Ok(mut entries) = self.entries.try_borrow_mut() else {
            return;
        };
        let k = key(op);
        if let Some(Failure::Error(_)) = entries.get(&k)
            && matches!(failure, Failure::NoMatch(_))
        {
            return;
        }
        entries.insert(k, failure);
    }

    pub fn forget(&self, op: OperationRef<'_, '_>) {
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            entries.remove(&key(op));
        }
    }

    pub fn get(&self, op: OperationRef<'_, '_>) -> Option<Failure> {
        self.entries.try_borrow().ok()?.get(&key(op)).cloned()
    }
}
