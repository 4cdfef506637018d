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
            let text = d.to_string();
            let line = match readable_location(&d.location().to_string()) {
                Some(location) => format!("{location}: {text}"),
                None => text,
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

/// `loc("file.mlir":3:7)` as `file.mlir:3:7`, the way compilers print positions;
/// other located forms are kept as MLIR prints them, and unknown locations are dropped.
fn readable_location(loc: &str) -> Option<String> {
    let inner = loc.strip_prefix("loc(")?.strip_suffix(')')?;
    if inner == "unknown" {
        return None;
    }
    if let Some(rest) = inner.strip_prefix('"')
        && let Some((file, position)) = rest.split_once("\":")
    {
        return Some(format!("{file}:{position}"));
    }
    Some(loc.to_string())
}

#[cfg(test)]
mod tests {
    use super::readable_location;

    #[test]
    fn file_locations_read_like_compiler_positions() {
        assert_eq!(
            readable_location("loc(\"a.mlir\":3:7)").as_deref(),
            Some("a.mlir:3:7")
        );
        assert_eq!(readable_location("loc(unknown)"), None);
        assert_eq!(
            readable_location("loc(\"conv1\")").as_deref(),
            Some("loc(\"conv1\")")
        );
    }
}
