//! Agent files that once broke a rule the fuzzer checks (`fuzz/fuzz_targets/agent_file.rs`),
//! kept in `tests/regressions/agent_file/` and read again on every run.

use std::path::Path;

use beckon_core::agent::AgentDefinition;

/// Lines as editors count them: a line feed, a CR LF or a lone CR ends one.
fn editor_lines(text: &str) -> usize {
    text.replace("\r\n", "\n").split(['\n', '\r']).count()
}

#[test]
fn every_refused_file_names_a_line_it_has() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/agent_file");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        read += 1;
        let Err(err) = AgentDefinition::parse(&text) else { continue };
        if let Some(line) = err.line {
            let lines = editor_lines(&text);
            assert!((1..=lines + 1).contains(&line), "{}: line {line} of a {lines}-line file: {err}", path.display());
        }
    }
    assert!(read > 0, "no regression inputs in {}", dir.display());
}
