//! The `beckon` an agent's configuration runs, for its hooks and its MCP server: the program by
//! its full path and, for a Beckon whose data folder is not the default one, `--data-dir` and
//! that folder first, so that `beckon hook …` and `beckon mcp` look where that Beckon serves (its
//! `gateway.json`, or the connection file that names a Beckon elsewhere). A folder is a path,
//! not a secret: it may stand in the agent's files, which others may read; a token never does.

use std::path::Path;

use serde_json::Value;

use crate::shell::shell_quoted;
use crate::{Error, Result};

/// The flag that names the data folder, as `beckon` takes it before its command.
const DATA_DIR_FLAG: &str = "--data-dir";

/// How an agent runs `beckon`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    program: String,
    data_dir: Option<String>,
}

impl Invocation {
    /// `beckon` at `program` (its full path), on the default data folder.
    pub fn new(program: impl Into<String>) -> Invocation {
        Invocation { program: program.into(), data_dir: None }
    }

    /// The same `beckon` on the data folder `dir` (its absolute path).
    pub fn with_data_dir(mut self, dir: impl Into<String>) -> Invocation {
        self.data_dir = Some(dir.into());
        self
    }

    /// `beckon` at `program` on the data folder `data_dir`, which is named only when it is not
    /// `usual`: the folder `beckon` finds with nothing but the home folder to go by (agents pass
    /// their hooks and servers little more of the environment).
    pub fn on_data_dir(program: impl Into<String>, data_dir: &Path, usual: &Path) -> Result<Invocation> {
        let beckon = Invocation::new(program);
        if data_dir == usual {
            return Ok(beckon);
        }
        let absolute = std::path::absolute(data_dir)
            .map_err(|err| Error::Place(format!("cannot tell where {} is: {err}", data_dir.display())))?;
        match absolute.to_str() {
            Some(dir) => Ok(beckon.with_data_dir(dir)),
            None => Err(Error::Place(format!("the data folder {} is not UTF-8", absolute.display()))),
        }
    }

    /// The program, by its full path.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The data folder it is told to use, when not the default one.
    pub fn data_dir(&self) -> Option<&str> {
        self.data_dir.as_deref()
    }

    /// The arguments that run `command` (`["mcp"]`, `["hook", "codex"]`): the data folder first,
    /// when there is one.
    pub fn args(&self, command: &[&str]) -> Vec<String> {
        let folder = self.data_dir.iter().flat_map(|dir| [DATA_DIR_FLAG.to_owned(), dir.clone()]);
        folder.chain(command.iter().map(|word| (*word).to_owned())).collect()
    }

    /// The arguments of Beckon's MCP server entry: `mcp`, after the data folder.
    pub fn mcp_args(&self) -> Vec<String> {
        self.args(&["mcp"])
    }

    /// The shell command that runs `beckon hook <agent>` (agents run hooks through `sh -c`).
    pub fn hook_command(&self, agent: &str) -> String {
        let words: Vec<String> = std::iter::once(self.program.as_str())
            .chain(self.data_dir.iter().flat_map(|dir| [DATA_DIR_FLAG, dir]))
            .map(shell_quoted)
            .collect();
        format!("{} hook {agent}", words.join(" "))
    }
}

/// Whether an MCP server entry's arguments run some `beckon`'s `beckon mcp`, on whatever data
/// folder (`["mcp"]`, `["--data-dir", DIR, "mcp"]`).
pub fn is_mcp_args(args: &[&str]) -> bool {
    matches!(args, ["mcp"] | [DATA_DIR_FLAG, _, "mcp"])
}

/// [`is_mcp_args`] for a JSON array (a server entry's `args`).
pub fn is_mcp_args_json(args: Option<&Value>) -> bool {
    let Some(Value::Array(list)) = args else { return false };
    let words: Option<Vec<&str>> = list.iter().map(Value::as_str).collect();
    words.is_some_and(|words| is_mcp_args(&words))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_data_folder_goes_before_the_command_and_is_quoted_for_the_shell() {
        let plain = Invocation::new("/usr/bin/beckon");
        assert_eq!(plain.hook_command("codex"), "/usr/bin/beckon hook codex");
        assert_eq!(plain.mcp_args(), ["mcp"]);
        let moved = Invocation::new("/opt/my beckon/beckon").with_data_dir("/srv/beckon data");
        assert_eq!(moved.hook_command("codex"), "'/opt/my beckon/beckon' --data-dir '/srv/beckon data' hook codex");
        assert_eq!(moved.mcp_args(), ["--data-dir", "/srv/beckon data", "mcp"]);
        assert_eq!(moved.args(&["hook", "opencode"]), ["--data-dir", "/srv/beckon data", "hook", "opencode"]);
    }

    #[test]
    fn only_a_folder_other_than_the_usual_one_is_named() {
        let usual = Path::new("/home/ada/.local/share/dev.beckon.desktop");
        assert_eq!(Invocation::on_data_dir("/usr/bin/beckon", usual, usual).unwrap().data_dir(), None);
        let other = Invocation::on_data_dir("/usr/bin/beckon", Path::new("/srv/beckon"), usual).unwrap();
        assert_eq!(other.data_dir(), Some("/srv/beckon"));
        let relative = Invocation::on_data_dir("/usr/bin/beckon", Path::new("data"), usual).unwrap();
        assert!(relative.data_dir().is_some_and(|dir| Path::new(dir).is_absolute() && dir.ends_with("/data")));
    }

    #[test]
    fn beckons_mcp_arguments_are_known_on_any_data_folder() {
        assert!(is_mcp_args_json(Some(&json!(["mcp"]))));
        assert!(is_mcp_args_json(Some(&json!(["--data-dir", "/srv/beckon", "mcp"]))));
        assert!(!is_mcp_args_json(Some(&json!(["serve"]))));
        assert!(!is_mcp_args_json(Some(&json!(["--other", "x", "mcp"]))));
        assert!(!is_mcp_args_json(Some(&json!("mcp"))));
        assert!(!is_mcp_args_json(None));
    }
}
