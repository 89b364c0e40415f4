//! Tests of rules: the destructive list, learning, covering, reading hand-written rules, keys
//! and descriptions, and property tests that no rule ever covers a destructive command.

mod destructive_list;
mod properties;
mod rules;

use serde_json::{Value, json};

use crate::approval::Approval;

const SHOP: &str = "/home/ada/shop";

/// An approval of `tool` with `input` in the shop project.
fn call(tool: &str, input: Value) -> Approval {
    call_in(tool, input, Some(SHOP))
}

fn call_in(tool: &str, input: Value, project: Option<&str>) -> Approval {
    let Value::Object(input) = input else { panic!("input must be an object") };
    Approval {
        tool_name: tool.to_owned(),
        input,
        suggestions: Vec::new(),
        project: project.map(str::to_owned),
        session: None,
        by: None,
    }
}

/// Claude Code's shell tool running `command` in the shop project.
fn bash(command: &str) -> Approval {
    call("Bash", json!({"command": command, "description": "run it"}))
}
