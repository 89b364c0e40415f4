//! How one value in the settings is read and changed: blank text is no value, and a secret (an
//! API key, a token) is kept, cleared or replaced as the person says — but never sent to an
//! address it was not given for.

/// `text` trimmed, or `None` when blank.
pub fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Changes a stored secret: a given one replaces it (an empty one clears it) and an absent one
/// keeps it — unless its address `moved`: the stored secret was given for the old address, so
/// it is dropped until the person gives it again.
pub(super) fn edit_secret(stored: &mut Option<String>, given: Option<String>, moved: bool) {
    match given {
        Some(secret) => *stored = non_empty(Some(secret)),
        None if moved => *stored = None,
        None => {}
    }
}
