//! `beckon token create|list|revoke`: the person's tokens for agents on other machines, made,
//! listed and revoked through the running Beckon with the person's token (an ask-only token is
//! refused). A new token's secret goes to stdout, alone, once: Beckon keeps only its hash.

use beckon_api::views::TokenList;
use beckon_api::{TokenKind, TokenView};

use crate::cli::{Connection, TokenAction, TokenArgs, TokenCreateArgs, TokenListArgs, TokenRevokeArgs};
use crate::error::{CliResult, Exit};
use crate::output;

/// Runs `beckon token …`.
pub async fn run(connection: &Connection, args: TokenArgs) -> CliResult<Exit> {
    match args.action {
        TokenAction::Create(args) => create(connection, args).await,
        TokenAction::List(args) => list(connection, args).await,
        TokenAction::Revoke(args) => revoke(connection, args).await,
    }
}

async fn create(connection: &Connection, args: TokenCreateArgs) -> CliResult<Exit> {
    // `--ask-only` is required by the command line: the only kind there is, said aloud.
    let TokenCreateArgs { name, ask_only: _, owner, json } = args;
    let created = connection.client()?.create_token(&name, owner.as_deref()).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&created).unwrap_or_default());
    } else {
        eprintln!(
            "Made {} token {:?}. Its secret is below, shown this once (Beckon keeps only its hash):",
            kind_name(created.token.kind),
            created.token.name
        );
        println!("{}", created.secret);
    }
    Ok(Exit::Success)
}

async fn list(connection: &Connection, args: TokenListArgs) -> CliResult<Exit> {
    let tokens = connection.client()?.tokens().await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&TokenList { tokens }).unwrap_or_default());
    } else if tokens.is_empty() {
        println!("No tokens. Make one with `beckon token create --name NAME --ask-only`.");
    } else {
        print!("{}", table(&tokens, beckon_client::now_ms()));
    }
    Ok(Exit::Success)
}

async fn revoke(connection: &Connection, args: TokenRevokeArgs) -> CliResult<Exit> {
    let token = connection.client()?.revoke_token(&args.name).await?;
    println!("Revoked token {:?}: requests carrying it are refused from now on.", token.name);
    Ok(Exit::Success)
}

fn kind_name(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::AskOnly => "ask-only",
    }
}

/// The tokens as a table: name, kind, whom it asks for, age, last use.
fn table(tokens: &[TokenView], now_ms: i64) -> String {
    let mut rows = vec![["NAME", "KIND", "FOR", "CREATED", "LAST USED"].map(String::from)];
    for token in tokens {
        let used = match token.last_used_at_ms {
            Some(at) => format!("{} ago", output::age(now_ms - at)),
            None => "never".to_owned(),
        };
        rows.push([
            token.name.clone(),
            kind_name(token.kind).to_owned(),
            token.owner.clone().unwrap_or_else(|| "-".to_owned()),
            format!("{} ago", output::age(now_ms - token.created_at_ms)),
            used,
        ]);
    }
    let widths: Vec<usize> =
        (0..5).map(|column| rows.iter().map(|row| row[column].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lines_up_and_says_never_for_an_unused_token() {
        let tokens = [
            TokenView {
                name: "ci".into(),
                kind: TokenKind::AskOnly,
                created_at_ms: 0,
                last_used_at_ms: None,
                owner: Some("group:eng".into()),
            },
            TokenView {
                name: "devbox.example".into(),
                kind: TokenKind::AskOnly,
                created_at_ms: 0,
                last_used_at_ms: Some(7_140_000),
                owner: None,
            },
        ];
        let table = table(&tokens, 7_200_000);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "NAME            KIND      FOR        CREATED  LAST USED");
        assert_eq!(lines[1], "ci              ask-only  group:eng  2h ago   never");
        assert_eq!(lines[2], "devbox.example  ask-only  -          2h ago   1m ago");
    }
}
