//! `beckon answer`: answers a question with one text per question.

use crate::cli::{AnswerArgs, Connection};
use crate::error::{CliResult, Exit};
use crate::output;

/// Runs `beckon answer`.
pub async fn run(connection: &Connection, args: AnswerArgs) -> CliResult<Exit> {
    let view = connection.client()?.answer(&args.request_id, &args.answers).await?;
    if view.repeat == Some(true) && !args.json {
        eprintln!("It had already been answered this way.");
    }
    Ok(output::resolution(&view, if args.json { output::Shown::View } else { output::Shown::Answer }))
}
