//! File paths read lexically (no disk): normalised, placed inside a project or not, and
//! checked for places an agent must not write to by a rule (`.git/`, `~/.ssh`, shell startup
//! files).

/// `path` with `\` read as `/`, `.` and `..` resolved and repeated slashes dropped, when it is
/// absolute (`/…`, `C:/…`) and `..` does not climb above its root.
pub(crate) fn normalize_absolute(path: &str) -> Option<String> {
    let path = path.replace('\\', "/");
    let (root, rest) = split_root(&path)?;
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(format!("{root}{}", parts.join("/")))
}

/// The root of an absolute path (`/`, `//`, `c:/`) and the rest, or `None` when it is relative.
fn split_root(path: &str) -> Option<(String, &str)> {
    if let Some(rest) = path.strip_prefix("//") {
        return Some(("//".to_owned(), rest));
    }
    if let Some(rest) = path.strip_prefix('/') {
        return Some(("/".to_owned(), rest));
    }
    let mut chars = path.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(drive), Some(':'), Some('/')) if drive.is_ascii_alphabetic() => {
            Some((format!("{}:/", drive.to_ascii_lowercase()), &path[3..]))
        }
        _ => None,
    }
}

/// Whether `path` is absolute.
pub(crate) fn is_absolute(path: &str) -> bool {
    split_root(&path.replace('\\', "/")).is_some()
}

/// `path` relative to `project` (`src/main.rs`; empty for the project itself) when it lies
/// inside it: relative paths are taken from the project; `~` paths and `..` escapes are outside.
pub(crate) fn inside(project: &str, path: &str) -> Option<String> {
    if path.starts_with('~') || path.is_empty() || path.chars().any(char::is_control) {
        return None;
    }
    let root = normalize_absolute(project)?;
    let full =
        if is_absolute(path) { normalize_absolute(path)? } else { normalize_absolute(&format!("{root}/{path}"))? };
    if full == root {
        return Some(String::new());
    }
    let base = if root.ends_with('/') { root } else { format!("{root}/") };
    full.strip_prefix(&base).map(str::to_owned)
}

/// Folders whose files an agent must not change through a rule.
const GUARDED_FOLDERS: [&str; 9] =
    [".git", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".codex", ".gemini", ".azure"];
/// Files an agent must not change through a rule: shell startup files and credentials.
const GUARDED_FILES: [&str; 12] = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".netrc",
    ".gitconfig",
    ".git-credentials",
];

/// Why writing to `path` is never allowed by a rule, when it is a guarded place: inside
/// `.git/`, `.ssh/` and the like, a shell startup file, or an agent's own settings.
pub(crate) fn guarded(path: &str) -> Option<&'static str> {
    let path = path.replace('\\', "/");
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|part| GUARDED_FOLDERS.contains(&part.to_ascii_lowercase().as_str())) {
        return Some("writes inside a guarded folder (.git, .ssh, credentials or an agent's settings)");
    }
    let last = parts.last().map(|p| p.to_ascii_lowercase()).unwrap_or_default();
    if GUARDED_FILES.contains(&last.as_str()) {
        return Some("writes a shell startup or credentials file");
    }
    if parts
        .windows(2)
        .any(|pair| pair[0].eq_ignore_ascii_case(".claude") && pair[1].to_ascii_lowercase().starts_with("settings"))
    {
        return Some("writes an agent's permission settings");
    }
    None
}
