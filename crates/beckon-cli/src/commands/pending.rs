//! `beckon pending`: the inbox as a table.

use beckon_api::views::QuestionList;

use crate::cli::{Connection, PendingArgs};
use crate::error::{CliResult, Exit};
use crate::output;

/// Runs `beckon pending`.
pub async fn run(connection: &Connection, args: PendingArgs) -> CliResult<Exit> {
    let questions = connection.client()?.pending().await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&QuestionList { questions }).unwrap_or_default());
    } else if questions.is_empty() {
        println!("No questions are waiting.");
    } else {
        print!("{}", output::pending_table(&questions, beckon_client::now_ms()));
    }
    Ok(Exit::Success)
}
