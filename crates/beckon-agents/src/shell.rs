//! Commands as a shell reads them: the agents run Beckon's hooks through `sh -c`.

/// `text` as one shell word: as it is when nothing in it is special, else single-quoted.
pub fn shell_quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Whether `command` runs some `beckon`'s hook for `agent` (whatever path it runs it by).
pub fn is_hook_command(command: &str, agent: &str) -> bool {
    command.trim_end().ends_with(&format!(" hook {agent}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_stay_plain_and_others_are_quoted() {
        assert_eq!(shell_quoted("/usr/bin/beckon"), "/usr/bin/beckon");
        assert_eq!(shell_quoted("/opt/my beckon/beckon"), "'/opt/my beckon/beckon'");
        assert_eq!(shell_quoted("/o'k/beckon"), r"'/o'\''k/beckon'");
        assert_eq!(shell_quoted(""), "''");
        assert!(is_hook_command("'/opt/my beckon/beckon' hook codex ", "codex"));
        assert!(!is_hook_command("/usr/bin/beckon hook claude-code", "codex"));
    }
}
