//! The agents a runtime can run: the built-in ones and the Markdown files in the data dir's
//! `agents/` folder. A bad file is reported and skipped; the others load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use beckon_core::agent::{AGENT_FILE_MAX_BYTES, AgentDefinition, ProviderKind};
use serde::{Deserialize, Serialize};

use crate::providers::Script;

const ASSISTANT: &str = include_str!("builtin/assistant.md");
const POET: &str = include_str!("builtin/poet.md");
const POET_SCRIPT: &str = include_str!("builtin/poet.json");

/// Where an agent came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum AgentSource {
    /// Shipped with Beckon.
    Builtin,
    /// A file in the agents folder.
    File(PathBuf),
}

/// An agent ready to run.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Its definition.
    pub definition: AgentDefinition,
    /// The script, for the scripted provider.
    pub script: Option<Arc<Script>>,
    /// Where it came from.
    pub source: AgentSource,
}

/// An agent file that could not be loaded.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentProblem {
    /// The file.
    pub file: PathBuf,
    /// What is wrong, with the line when known.
    pub message: String,
}

/// What a picker shows about an agent.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Its name.
    pub name: String,
    /// One line about it.
    pub description: String,
    /// Its provider (`None`: the app's default).
    pub provider: Option<ProviderKind>,
    /// Whether it may ask questions.
    pub questions: bool,
    /// Whether it ships with Beckon.
    pub builtin: bool,
}

/// Every loaded agent, by name.
#[derive(Debug, Default)]
pub struct Agents {
    by_name: BTreeMap<String, Arc<Agent>>,
    problems: Vec<AgentProblem>,
}

impl Agents {
    /// The built-in agents, then every `*.md` file in `dir` (a missing folder is fine). A file
    /// may replace a built-in agent of the same name.
    pub fn load(dir: &Path) -> Agents {
        let mut agents = Agents::default();
        agents.add_builtin(ASSISTANT, None);
        agents.add_builtin(POET, Some(POET_SCRIPT));
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
                .collect(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => {
                agents
                    .problems
                    .push(AgentProblem { file: dir.to_path_buf(), message: format!("cannot read the folder: {err}") });
                Vec::new()
            }
        };
        files.sort();
        let mut from_files: BTreeMap<String, PathBuf> = BTreeMap::new();
        for file in files {
            match load_file(&file) {
                Ok(agent) => {
                    let name = agent.definition.name.clone();
                    if let Some(first) = from_files.get(&name) {
                        agents.problems.push(AgentProblem {
                            file: file.clone(),
                            message: format!(
                                "another file ({}) already defines the agent {name:?}; rename one",
                                first.display()
                            ),
                        });
                        continue;
                    }
                    from_files.insert(name.clone(), file);
                    agents.by_name.insert(name, Arc::new(agent));
                }
                Err(message) => {
                    tracing::warn!(file = %file.display(), %message, "agent file skipped");
                    agents.problems.push(AgentProblem { file, message });
                }
            }
        }
        agents
    }

    fn add_builtin(&mut self, text: &str, script: Option<&str>) {
        // Built-in definitions are tested; a failure here is a build mistake, reported like
        // any bad file rather than stopping the app.
        let definition = match AgentDefinition::parse(text) {
            Ok(definition) => definition,
            Err(err) => {
                self.problems.push(AgentProblem { file: PathBuf::from("(built-in)"), message: err.to_string() });
                return;
            }
        };
        let script = match script.map(Script::parse) {
            None => None,
            Some(Ok(script)) => Some(Arc::new(script)),
            Some(Err(message)) => {
                self.problems.push(AgentProblem { file: PathBuf::from("(built-in)"), message });
                return;
            }
        };
        self.by_name
            .insert(definition.name.clone(), Arc::new(Agent { definition, script, source: AgentSource::Builtin }));
    }

    /// An agent by name.
    pub fn get(&self, name: &str) -> Option<Arc<Agent>> {
        self.by_name.get(name).cloned()
    }

    /// The agents' names, for messages.
    pub fn names(&self) -> String {
        self.by_name.keys().cloned().collect::<Vec<_>>().join(", ")
    }

    /// What pickers show, by name.
    pub fn infos(&self) -> Vec<AgentInfo> {
        self.by_name
            .values()
            .map(|agent| AgentInfo {
                name: agent.definition.name.clone(),
                description: agent.definition.description.clone().unwrap_or_default(),
                provider: agent.definition.provider,
                questions: agent.definition.questions,
                builtin: agent.source == AgentSource::Builtin,
            })
            .collect()
    }

    /// Files that could not be loaded.
    pub fn problems(&self) -> &[AgentProblem] {
        &self.problems
    }
}

/// Largest script file read, in bytes.
const SCRIPT_MAX_BYTES: usize = 1024 * 1024;

fn load_file(file: &Path) -> Result<Agent, String> {
    let text = read_bounded(file, AGENT_FILE_MAX_BYTES)?;
    let definition = AgentDefinition::parse(&text).map_err(|err| err.to_string())?;
    let script = match (&definition.provider, &definition.script) {
        (Some(ProviderKind::Scripted), Some(script)) => {
            let path = file.parent().unwrap_or(Path::new(".")).join(script);
            let text =
                read_bounded(&path, SCRIPT_MAX_BYTES).map_err(|err| format!("script {}: {err}", path.display()))?;
            Some(Arc::new(Script::parse(&text).map_err(|err| format!("script {}: {err}", path.display()))?))
        }
        (Some(ProviderKind::Scripted), None) => return Err("provider: scripted needs `script: <file>`".into()),
        (_, Some(_)) => return Err("`script` is only for provider: scripted".into()),
        (_, None) => None,
    };
    Ok(Agent { definition, script, source: AgentSource::File(file.to_path_buf()) })
}

/// Reads a UTF-8 text file of at most `limit` bytes. Anything but a regular file is refused
/// before it is opened (a FIFO would block the open, `/dev/zero` would never end), and the read
/// stops one byte past the limit whatever the file claims its size is.
fn read_bounded(path: &Path, limit: usize) -> Result<String, String> {
    use std::io::Read;
    let cannot = |err: std::io::Error| format!("cannot read: {err}");
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err("cannot read: not a regular file (a folder, pipe or device)".into());
    }
    let mut bytes = Vec::new();
    let most = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    std::fs::File::open(path).map_err(cannot)?.take(most).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() > limit {
        return Err(format!("the file is larger than {limit} bytes, the limit"));
    }
    String::from_utf8(bytes).map_err(|err| {
        format!("cannot read: byte {} is not valid UTF-8; save the file as UTF-8", err.utf8_error().valid_up_to())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_assistant_is_built_in_and_uses_the_default_provider() {
        let agents = Agents::load(Path::new("/nonexistent-beckon-agents"));
        let assistant = agents.get("assistant").unwrap();
        assert_eq!(assistant.definition.provider, None);
        assert!(assistant.definition.tools.contains(&"spawn_agent".to_owned()));
    }

    #[test]
    fn the_poet_is_built_in() {
        let agents = Agents::load(Path::new("/nonexistent-beckon-agents"));
        assert!(agents.problems().is_empty(), "{:?}", agents.problems());
        let poet = agents.get("poet").unwrap();
        assert_eq!(poet.definition.provider, Some(ProviderKind::Scripted));
        assert!(poet.script.is_some());
        assert!(poet.definition.questions);
    }

    #[test]
    fn bad_files_are_reported_and_skipped_while_good_ones_load() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("good.md"), "---\nname: helper\ndescription: Helps\n---\nHelp.").unwrap();
        std::fs::write(dir.path().join("bad.md"), "---\nname: broken\non_timeout: sometimes\n---\n").unwrap();
        std::fs::write(dir.path().join("twin.md"), "---\nname: helper\n---\n").unwrap();
        std::fs::write(dir.path().join("noscript.md"), "---\nname: s\nprovider: scripted\n---\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not an agent").unwrap();
        let agents = Agents::load(dir.path());
        assert!(agents.get("helper").is_some());
        assert!(agents.get("broken").is_none());
        assert!(agents.get("poet").is_some());
        let problems: Vec<String> = agents
            .problems()
            .iter()
            .map(|p| format!("{}: {}", p.file.file_name().unwrap().to_string_lossy(), p.message))
            .collect();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("bad.md: line 3: on_timeout"), "{problems:?}");
        assert!(problems[1].starts_with("noscript.md: provider: scripted needs"), "{problems:?}");
        assert!(problems[2].starts_with("twin.md: another file"), "{problems:?}");
    }

    #[test]
    fn a_file_can_replace_a_built_in_agent_and_bring_its_script() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("poet.md"), "---\nname: poet\nprovider: scripted\nscript: mine.json\n---\n")
            .unwrap();
        std::fs::write(dir.path().join("mine.json"), r#"{"turns": [{"text": "hello"}]}"#).unwrap();
        let agents = Agents::load(dir.path());
        let poet = agents.get("poet").unwrap();
        assert!(matches!(poet.source, AgentSource::File(_)));
    }
}
