//! The hostile-input corpus (`tests/hostile/agents.json`) against agent loading: a hostile
//! agent file is skipped with a message that names the file (and the line and field when there
//! is one), never hangs or takes the other agents down; free text in a good file loads as
//! written.

use beckon_testkit::corpus;

use std::time::{Duration, Instant};

use beckon_runtime::agents::Agents;

#[test]
fn hostile_agent_files_are_skipped_with_a_message_naming_the_file() {
    for case in corpus::cases("agents.json") {
        let name = corpus::name(&case);
        let dir = tempfile::tempdir().unwrap();
        let file_name = case["file"].as_str().map_or_else(|| format!("{name}.md"), str::to_owned);
        let file = dir.path().join(&file_name);
        match (case.get("content"), case["link_to"].as_str()) {
            (Some(content), None) => std::fs::write(&file, corpus::bytes(content)).unwrap(),
            (None, Some(target)) => std::os::unix::fs::symlink(target, &file).unwrap(),
            _ => panic!("{name}: content or link_to"),
        }
        if let Some(files) = case["files"].as_object() {
            for (extra, content) in files {
                std::fs::write(dir.path().join(extra), corpus::bytes(content)).unwrap();
            }
        }
        let started = Instant::now();
        let agents = Agents::load(dir.path());
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: loading took {:?}", started.elapsed());
        assert!(agents.get("poet").is_some() && agents.get("assistant").is_some(), "{name}: built-ins still load");
        match (case["error_contains"].as_str(), case["loads"].as_object()) {
            (Some(expected), None) => {
                let problems = agents.problems();
                assert_eq!(problems.len(), 1, "{name}: {problems:?}");
                assert_eq!(problems[0].file, file, "{name}: the message names the file");
                let message = &problems[0].message;
                assert!(message.contains(expected), "{name}: {expected:?} not in {message:?}");
                assert!(message.len() < 1000, "{name}: the message does not repeat the input: {message:?}");
                let names: Vec<String> = agents.infos().into_iter().map(|info| info.name).collect();
                assert_eq!(names, ["assistant", "poet"], "{name}: only the built-ins load");
            }
            (None, Some(fields)) => {
                assert!(agents.problems().is_empty(), "{name}: {:?}", agents.problems());
                let agent = agents.get(fields["name"].as_str().unwrap()).expect("loaded");
                let definition = &agent.definition;
                assert_eq!(definition.description.as_deref(), fields["description"].as_str(), "{name}");
                assert_eq!(
                    definition.question_policy.default_answer.as_deref(),
                    fields["default_answer"].as_str(),
                    "{name}"
                );
                assert_eq!(Some(definition.system_prompt.as_str()), fields["system_prompt"].as_str(), "{name}");
            }
            _ => panic!("{name}: error_contains or loads"),
        }
    }
}
