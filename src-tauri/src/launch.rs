//! How Beckon was started: by the person (the window opens), or at login by its autostart
//! entry with [`HIDDEN_ARG`] (it waits in the tray until a click on the tray, a notification
//! or a link brings the window up).

/// The argument the autostart entry starts Beckon with.
pub const HIDDEN_ARG: &str = "--hidden";

/// Whether a start with `args` (the program's name first) keeps the window hidden: only when
/// asked to, and never when a `beckon://` link came along, since a link is opened to be seen.
pub fn starts_hidden<S: AsRef<str>>(args: &[S]) -> bool {
    let args = || args.iter().skip(1).map(AsRef::as_ref);
    args().any(|arg| arg == HIDDEN_ARG) && !args().any(is_link)
}

fn is_link(arg: &str) -> bool {
    arg.get(..7).is_some_and(|scheme| scheme.eq_ignore_ascii_case("beckon:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_autostart_argument_keeps_the_window_hidden() {
        assert!(!starts_hidden(&["beckon-desktop"]));
        assert!(starts_hidden(&["/usr/bin/beckon-desktop", "--hidden"]));
        assert!(!starts_hidden(&["--hidden"]), "the program's own name is not an argument");
        assert!(!starts_hidden(&["beckon-desktop", "--hiddenx", "hidden"]));
    }

    #[test]
    fn a_link_always_shows_the_window() {
        assert!(!starts_hidden(&["beckon-desktop", "--hidden", "beckon://inbox"]));
        assert!(!starts_hidden(&["beckon-desktop", "BECKON://question/x", "--hidden"]));
        assert!(starts_hidden(&["beckon-desktop", "--hidden", "beck"]));
    }
}
