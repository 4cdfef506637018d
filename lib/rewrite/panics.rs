//! Panics inside pattern callbacks are caught and reported as errors by the adapter;
//! the panic hook stays quiet for those, so the user sees the error once.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    static IN_PATTERN: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the hook silenced for this thread.
pub fn inside_pattern<T>(f: impl FnOnce() -> T) -> T {
    let was = IN_PATTERN.with(|c| c.replace(true));
    let out = f();
    IN_PATTERN.with(|c| c.set(was));
    out
}

/// Wraps the current panic hook so that panics caught in pattern callbacks print
/// nothing; any other panic still reaches the previous hook.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_PATTERN.with(|c| c.get()) {
                previous(info);
            }
        }));
    });
}
