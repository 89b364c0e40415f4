//! `beckon setup claude-code` on real files in a temporary home and project: it adds the MCP
//! server, hooks and permission while keeping every other setting, is idempotent, `--dry-run`
//! writes nothing, `--remove` gives back what was there (and deletes the files it made), and the
//! real Claude Code (pinned in tests/claude-code) reads the server it wrote.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

struct Place {
    home: tempfile::TempDir,
    project: PathBuf,
}

impl Place {
    fn new() -> Place {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("shop");
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        Place { home, project }
    }

    fn setup(&self, args: &[&str]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_beckon"))
            .args(["setup", "claude-code"])
            .args(args)
            .current_dir(&self.project)
            .env("HOME", self.home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("BECKON_DATA_DIR")
            .env_remove("BECKON_URL")
            .env_remove("BECKON_TOKEN")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        // `--check` fails here: no Beckon runs for it to reach.
        let checked = args.contains(&"--check");
        assert!(output.status.success() != checked, "{stdout}{}", String::from_utf8_lossy(&output.stderr));
        stdout
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.home.path().join(relative)
    }
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn theirs() -> Value {
    json!({"model": "opus", "env": {"FOO": "1"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-guard"}]}]},
        "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(.env)"]}})
}

fn beckon_path() -> String {
    Path::new(env!("CARGO_BIN_EXE_beckon")).canonicalize().unwrap().display().to_string()
}

#[test]
fn user_scope_adds_keeps_and_removes_back_to_the_original() {
    let place = Place::new();
    let settings = place.path(".claude/settings.json");
    let original = serde_json::to_string_pretty(&theirs()).unwrap();
    std::fs::write(&settings, &original).unwrap();
    std::fs::write(place.path(".claude.json"), r#"{"numStartups": 3, "projects": {}}"#).unwrap();

    let dry = place.setup(&["--dry-run"]);
    assert!(dry.contains("Would add Beckon to"), "{dry}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert_eq!(read(&place.path(".claude.json")), json!({"numStartups": 3, "projects": {}}));
    assert!(place.setup(&["--check"]).contains("not connected"));

    let added = place.setup(&[]);
    assert!(added.contains("Added Beckon to"), "{added}");
    let written = read(&settings);
    let command = format!("{} hook claude-code", beckon_path());
    assert_eq!(written["model"], "opus");
    assert_eq!(written["env"], json!({"FOO": "1"}));
    assert_eq!(written["permissions"]["deny"], json!(["Read(.env)"]));
    assert_eq!(written["permissions"]["allow"], json!(["Bash(npm test:*)", "mcp__beckon"]));
    assert_eq!(written["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "lint-guard");
    assert_eq!(written["hooks"]["PreToolUse"][1]["hooks"][0]["command"], command.as_str());
    assert_eq!(written["hooks"]["PermissionRequest"][0]["hooks"][0]["command"], command.as_str());
    assert_eq!(written["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"], 86400);
    let servers = read(&place.path(".claude.json"));
    assert_eq!(servers["numStartups"], 3);
    assert_eq!(
        servers["mcpServers"]["beckon"],
        json!({"type": "stdio", "command": beckon_path(), "args": ["mcp"], "env": {}})
    );
    assert!(place.setup(&["--check"]).contains(": connected"));

    let bytes = std::fs::read(&settings).unwrap();
    let again = place.setup(&[]);
    assert_eq!(again.matches("Unchanged").count(), 2, "{again}");
    assert_eq!(std::fs::read(&settings).unwrap(), bytes);

    let dry_remove = place.setup(&["--remove", "--dry-run"]);
    assert!(dry_remove.contains("Would remove"), "{dry_remove}");
    assert_eq!(std::fs::read(&settings).unwrap(), bytes);
    let removed = place.setup(&["--remove"]);
    assert!(removed.contains("Removed Beckon from"), "{removed}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original, "byte for byte");
    assert_eq!(std::fs::read_to_string(place.path(".claude.json")).unwrap(), r#"{"numStartups": 3, "projects": {}}"#);
}

#[test]
fn project_and_local_scopes_write_the_project_files() {
    let place = Place::new();
    place.setup(&["--scope", "project"]);
    assert_eq!(read(&place.project.join(".mcp.json"))["mcpServers"]["beckon"]["args"], json!(["mcp"]));
    assert!(read(&place.project.join(".claude/settings.json"))["hooks"]["PermissionRequest"].is_array());
    place.setup(&["--scope", "local"]);
    let project = place.project.display().to_string();
    assert_eq!(read(&place.path(".claude.json"))["projects"][&project]["mcpServers"]["beckon"]["args"], json!(["mcp"]));
    assert!(read(&place.project.join(".claude/settings.local.json"))["permissions"]["allow"].is_array());
    place.setup(&["--scope", "project", "--remove"]);
    place.setup(&["--scope", "local", "--remove"]);
    assert!(!place.project.join(".mcp.json").exists(), "the files setup made are gone again");
    assert!(!place.project.join(".claude/settings.json").exists());
    assert!(!place.project.join(".claude/settings.local.json").exists());
}

#[test]
fn a_settings_file_that_is_not_json_is_left_untouched() {
    let place = Place::new();
    let settings = place.path(".claude/settings.json");
    std::fs::write(&settings, "{ not json").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_beckon"))
        .args(["setup", "claude-code"])
        .current_dir(&place.project)
        .env("HOME", place.home.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not valid JSON"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ not json");
}

#[test]
fn the_real_claude_code_finds_the_server_setup_wrote() {
    let place = Place::new();
    place.setup(&[]);
    let claude = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/claude-code/node_modules/.bin/claude");
    assert!(claude.exists(), "no Claude Code at {}: run `npm ci` in tests/claude-code", claude.display());
    let output = Command::new(claude)
        .args(["mcp", "get", "beckon"])
        .current_dir(&place.project)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", place.home.path())
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("Scope: User config"), "{stdout}");
    assert!(stdout.contains(&format!("Command: {}", beckon_path())), "{stdout}");
}
