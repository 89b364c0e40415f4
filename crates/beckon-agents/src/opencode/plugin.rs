//! The plugin file `beckon setup opencode` writes: `plugin.js` beside this file, with the path
//! of the `beckon` it runs and its arguments written in. Its first line names it and its version, so a file of
//! Beckon's is told from someone else's and an older one is out of date.

use crate::invocation::Invocation;

/// The plugin's source as shipped, running `beckon` from `PATH`.
const SOURCE: &str = include_str!("plugin.js");
/// The line that says which `beckon` the plugin runs.
const PROGRAM_LINE: &str = "const PROGRAM = \"beckon\";";
/// The line that says what it runs `beckon` with.
const ARGS_LINE: &str = "const ARGS = [\"hook\", \"opencode\"];";
/// What every version of Beckon's plugin starts with.
const MARKER: &str = "// beckon-opencode-plugin ";

/// The plugin's file name in OpenCode's plugin folder.
pub const FILE_NAME: &str = "beckon.js";

/// The plugin's text, running `beckon` as `beckon` says.
pub fn source(beckon: &Invocation) -> String {
    // A JSON string is a JavaScript string literal, and a JSON array of them an array literal.
    let program = serde_json::Value::String(beckon.program().to_owned()).to_string();
    let args: Vec<String> =
        beckon.args(&["hook", "opencode"]).into_iter().map(|arg| serde_json::Value::String(arg).to_string()).collect();
    let args = format!("[{}]", args.join(", "));
    SOURCE.replacen(PROGRAM_LINE, &format!("const PROGRAM = {program};"), 1).replacen(
        ARGS_LINE,
        &format!("const ARGS = {args};"),
        1,
    )
}

/// Whether `text` is a plugin file Beckon wrote (this version or another).
pub fn is_ours(text: &str) -> bool {
    text.starts_with(MARKER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_and_its_arguments_are_written_in_once_as_literals() {
        assert_eq!(SOURCE.matches(PROGRAM_LINE).count(), 1);
        assert_eq!(SOURCE.matches(ARGS_LINE).count(), 1);
        let text = source(&Invocation::new("/opt/my \"beckon\"/beckon"));
        assert!(text.contains(r#"const PROGRAM = "/opt/my \"beckon\"/beckon";"#), "{text}");
        assert!(text.contains(ARGS_LINE), "{text}");
        assert!(!text.contains(PROGRAM_LINE));
        let moved = source(&Invocation::new("/usr/bin/beckon").with_data_dir("/srv/beckon"));
        assert!(moved.contains(r#"const ARGS = ["--data-dir", "/srv/beckon", "hook", "opencode"];"#), "{moved}");
        assert!(is_ours(&text));
        assert!(!is_ours("export const Other = async () => ({});"));
    }
}
