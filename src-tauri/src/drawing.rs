//! How the window's WebView draws. WebKitGTK composites a page's layers by default (on the GPU
//! where there is one, in software where not): for Beckon's window, a page of text and forms,
//! that costs the web process about 100 MiB and puts the first frame later, while drawing the
//! page straight into the window is as fast. So Beckon asks WebKit not to composite, through
//! its own variable, read when the first WebView is made; `BECKON_WINDOW_COMPOSITING=1`, or the
//! person's own `WEBKIT_DISABLE_COMPOSITING_MODE`, keeps it their way.
//!
//! The environment is written once, before the app starts any thread: the one unsafe call here.

#![allow(unsafe_code)]

/// The variable that keeps WebKit's accelerated compositing.
pub const COMPOSITING_VARIABLE: &str = "BECKON_WINDOW_COMPOSITING";
/// WebKitGTK's own switch: set (to anything), its pages are drawn without compositing.
const WEBKIT_VARIABLE: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Whether WebKit is to be told not to composite: unless `compositing` (the value of
/// [`COMPOSITING_VARIABLE`]) is `1`, or WebKit's own switch is already `set`.
pub fn turns_compositing_off(compositing: Option<&str>, set: bool) -> bool {
    !set && compositing.is_none_or(|value| value.trim() != "1")
}

/// Tells WebKit not to composite, unless the environment says otherwise. Must run before the
/// app starts any thread.
pub fn choose_before_threads() {
    let compositing = std::env::var(COMPOSITING_VARIABLE).ok();
    if turns_compositing_off(compositing.as_deref(), std::env::var_os(WEBKIT_VARIABLE).is_some()) {
        // SAFETY: `run` calls this first, before the app (or anything it links) starts a
        // thread, so nothing reads or writes the environment at the same time.
        unsafe { std::env::set_var(WEBKIT_VARIABLE, "1") };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_is_turned_off_unless_asked_for_or_already_chosen() {
        assert!(turns_compositing_off(None, false));
        for value in ["", "0", "yes", "true"] {
            assert!(turns_compositing_off(Some(value), false), "{value:?}");
        }
        assert!(!turns_compositing_off(Some("1"), false));
        assert!(!turns_compositing_off(Some(" 1\n"), false));
        assert!(!turns_compositing_off(None, true), "the person's own WebKit switch is left alone");
    }
}
