//! Collects MLIR's diagnostics so they reach the user as qlower errors instead of
//! being printed by MLIR's default handler.

use std::cell::RefCell;
use std::rc::Rc;

use melior::Context;
use melior::diagnostic::DiagnosticHandlerId;

/// Captures every diagnostic emitted in `context` while it lives.
pub struct DiagnosticCapture<'c> {
    context: &'c Context,
    id: Option<DiagnosticHandlerId>,
    messages: Rc<RefCell<Vec<String>>>,
}

impl<'c> DiagnosticCapture<'c> {
    pub fn new(context: &'c Context) -> Self {
        let messages = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&messages);
        let id = context.attach_diagnostic_handler(move |d| {
            let location = d.location().to_string();
            let text = d.to_string();
            let line = if location.is_empty() || location == "loc(unknown)" {
                text
            } else {
                format!("{location}: {text}")
            };
            if let Ok(mut m) = sink.try_borrow_mut() {
                m.push(line);
            }
            true
        });
        DiagnosticCapture {
            context,
            id: Some(id),
            messages,
        }
    }

    /// The diagnostics so far, joined one per line; empties the buffer.
    pub fn take(&self) -> String {
        self.messages
            .try_borrow_mut()
            .map(|mut m| std::mem::take(&mut *m).join("\n"))
            .unwrap_or_default()
    }
}

impl Drop for DiagnosticCapture<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.context.detach_diagnostic_handler(id);
        }
    }
}
