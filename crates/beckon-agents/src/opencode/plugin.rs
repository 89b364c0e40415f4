//! The plugin file `beckon setup opencode` writes: `plugin.js` beside this file, with the path
//! of the `beckon` it runs written in. Its first line names it and its version, so a file of
//! Beckon's is told from someone else's and an older one is out of date.

/// The plugin's source as shipped, running `beckon` from `PATH`.
const SOURCE: &str = include_str!("plugin.js");
/// The line that says which `beckon` the plugin runs.
const PROGRAM_LINE: &str = "const PROGRAM = \"beckon\";";
/// What every version of Beckon's plugin starts with.
const MARKER: &str = "// beckon-opencode-plugin ";

/// The plugin's file name in OpenCode's plugin folder.
pub const FILE_NAME: &str = "beckon.js";

/// The plugin's text, running `beckon` at `program`.
pub fn source(program: &str) -> String {
    // A JSON string is a JavaScript string literal.
    let quoted = serde_json::Value::String(program.to_owned()).to_string();
    SOURCE.replacen(PROGRAM_LINE, &format!("const PROGRAM = {quoted};"), 1)
}

/// Whether `text` is a plugin file Beckon wrote (this version or another).
pub fn is_ours(text: &str) -> bool {
    text.starts_with(MARKER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_written_in_once_as_a_string_literal() {
        assert_eq!(SOURCE.matches(PROGRAM_LINE).count(), 1);
        let text = source("/opt/my \"beckon\"/beckon");
        assert!(text.contains(r#"const PROGRAM = "/opt/my \"beckon\"/beckon";"#), "{text}");
        assert!(!text.contains(PROGRAM_LINE));
        assert!(is_ours(&text));
        assert!(!is_ours("export const Other = async () => ({});"));
    }
}
