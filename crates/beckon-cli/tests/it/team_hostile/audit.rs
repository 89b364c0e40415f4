//! The audit trail of a team server comes from its PostgreSQL, whichever replica is asked:
//! questions asked and answered through both replicas export whole, as JSON Lines and as CSV,
//! with the admin token and for a signed-in admin, on either replica and through `beckon audit`;
//! any other signed-in person exports only their share (what is addressed to them, their groups
//! or everyone, and what they answered), and an ask-only token is refused.

use beckon_store::AuditRow;
use beckon_store::testing::TestCluster;
use serde_json::{Value, json};

use super::{Replica, Signed, ask, database, deploy_question, http, provider, replicas, token_for};

/// The questions asked, each resolved, and whose they are.
struct Asked {
    /// Addressed to the group `eng`, answered by Ada, and then its session removed.
    gone: String,
    /// Addressed to Ada, answered by her.
    adas: String,
    /// Addressed to Bo, answered by him.
    bos: String,
    /// Addressed to the group `eng`, answered by Bo.
    engs: String,
    /// Addressed to no one (everyone's), answered with the admin token.
    everyones: String,
    /// Addressed to the group `ops` (nobody here is in it), withdrawn with the admin token.
    ops: String,
}

/// Two replicas on one PostgreSQL with every question of [`Asked`] resolved through them.
struct Team {
    cluster: TestCluster,
    _idp: beckon_test_idp::Provider,
    a: Replica,
    b: Replica,
    /// The admin token the first start printed.
    admin: String,
    /// The ask-only token of Ada's agents.
    ada_token: String,
    asked: Asked,
}

impl Team {
    async fn start() -> Team {
        let (cluster, url) = database("team").await;
        let idp = provider().await;
        let (a, b) = replicas(&url, &idp, &[]).await;
        let printed = a.server.printed(1);
        let admin = printed.split_whitespace().find(|word| word.starts_with("bkn_admin_")).unwrap().to_owned();
        let ada_token = token_for(&a, &b, "person:ada").await;
        let bo_token = token_for(&b, &a, "person:bo").await;
        let eng_token = token_for(&a, &b, "group:eng").await;
        let (ada, bo) = (Signed::sign_in(&a, "ada").await, Signed::sign_in(&b, "bo").await);
        let everyone = deploy_question();
        let mut for_ops = deploy_question();
        for_ops["audience"] = json!("group:ops");

        // Each asked through one replica and resolved through the other.
        let gone = ask(&b, &eng_token, &everyone).await;
        answer_as(&ada, &a, &gone).await;
        let adas = ask(&a, &ada_token, &everyone).await;
        answer_as(&ada, &b, &adas).await;
        let bos = ask(&b, &bo_token, &everyone).await;
        answer_as(&bo, &a, &bos).await;
        let engs = ask(&a, &eng_token, &everyone).await;
        answer_as(&bo, &b, &engs).await;
        let everyones = ask(&b, &admin, &everyone).await;
        let answered = http()
            .post(format!("{}/v1/questions/{everyones}/answer", a.endpoint.url))
            .bearer_auth(&admin)
            .json(&json!({"answers": ["Hold it"]}))
            .send()
            .await
            .unwrap();
        assert_eq!(answered.status(), 200, "{}", answered.text().await.unwrap());
        let ops = ask(&a, &admin, &for_ops).await;
        // Only the group answers it; the admin token that asked withdraws it.
        let withdrawn = http()
            .post(format!("{}/v1/questions/{ops}/cancel", b.endpoint.url))
            .bearer_auth(&admin)
            .json(&json!({"reason": "not today, \"ops\""}))
            .send()
            .await
            .unwrap();
        assert_eq!(withdrawn.status(), 200, "{}", withdrawn.text().await.unwrap());

        // The first question's session goes, as retention takes it; its audit row stays.
        let (team, id) = (cluster.url("team"), gone.clone());
        tokio::task::spawn_blocking(move || {
            let mut client = postgres::Client::connect(&team, postgres::NoTls).unwrap();
            let removed = client
                .execute("DELETE FROM sessions WHERE id = (SELECT session_id FROM questions WHERE id = $1)", &[&id])
                .unwrap();
            assert_eq!(removed, 1);
        })
        .await
        .unwrap();
        Team { cluster, _idp: idp, a, b, admin, ada_token, asked: Asked { gone, adas, bos, engs, everyones, ops } }
    }

    /// The question ids of every audit row in the database, in the order they were written.
    async fn stored(&self) -> Vec<String> {
        let team = self.cluster.url("team");
        tokio::task::spawn_blocking(move || {
            let mut client = postgres::Client::connect(&team, postgres::NoTls).unwrap();
            let rows = client.query("SELECT request_id FROM audit ORDER BY id", &[]).unwrap();
            rows.iter().map(|row| row.get::<_, String>(0)).collect()
        })
        .await
        .unwrap()
    }

    async fn stop(self) {
        self.a.server.stop().await;
        self.b.server.stop().await;
    }
}

async fn answer_as(who: &Signed, replica: &Replica, id: &str) {
    let answered = who
        .request(replica, reqwest::Method::POST, &format!("/v1/questions/{id}/answer"))
        .json(&json!({"answers": ["Ship it"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200, "{}", answered.text().await.unwrap());
}

/// Reads an export in `format` back into rows; the whole body must arrive.
fn rows_of(format: &str, body: &[u8]) -> Vec<AuditRow> {
    match format {
        "csv" => {
            assert!(body.starts_with(b"id,request_id,kind,"), "{}", String::from_utf8_lossy(body));
            csv::Reader::from_reader(body).deserialize().collect::<Result<_, _>>().unwrap()
        }
        _ => {
            String::from_utf8(body.to_vec()).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
        }
    }
}

/// `GET /v1/audit?format=` as `request` sends it: the status and, when 200, the rows.
async fn export(request: reqwest::RequestBuilder, format: &str) -> (u16, Vec<AuditRow>) {
    let response = request.query(&[("format", format)]).send().await.unwrap();
    let status = response.status().as_u16();
    let body = response.bytes().await.expect("the export arrives whole");
    if status != 200 {
        return (status, Vec::new());
    }
    (status, rows_of(format, &body))
}

fn owned(ids: &[&String]) -> Vec<String> {
    ids.iter().map(|id| (*id).clone()).collect()
}

fn ids(rows: &[AuditRow]) -> Vec<String> {
    rows.iter().map(|row| row.request_id.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_admin_token_exports_every_row_from_either_replica_as_jsonl_and_csv() {
    let team = Team::start().await;
    let stored = team.stored().await;
    let Asked { gone, adas, bos, engs, everyones, ops } = &team.asked;
    assert_eq!(stored, owned(&[gone, adas, bos, engs, everyones, ops]), "one row per resolution, in the database");
    for (name, replica) in [("A", &team.a), ("B", &team.b)] {
        let admin = || http().get(format!("{}/v1/audit", replica.endpoint.url)).bearer_auth(&team.admin);
        let (status, jsonl) = export(admin(), "jsonl").await;
        assert_eq!(status, 200, "{name}");
        assert_eq!(ids(&jsonl), stored, "{name}: every row, as JSON Lines");
        let (status, csv) = export(admin(), "csv").await;
        assert_eq!(status, 200, "{name}");
        assert_eq!(csv, jsonl, "{name}: the same rows, as CSV");
        let withdrawn = jsonl.iter().find(|row| row.request_id.to_string() == *ops).unwrap();
        assert_eq!(withdrawn.message.as_deref(), Some("not today, \"ops\""));
        assert!(jsonl.iter().any(|row| row.by.as_deref().is_some_and(|by| by.starts_with("oidc:ada ("))));
        // A replica's own token from its data folder acts for the person too.
        let own = || http().get(format!("{}/v1/audit", replica.endpoint.url)).bearer_auth(&replica.endpoint.token);
        assert_eq!(ids(&export(own(), "jsonl").await.1), stored, "{name}: with the replica's own token");
    }
    team.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_signed_in_person_exports_their_share_and_an_admin_all_of_it() {
    let team = Team::start().await;
    let stored = team.stored().await;
    let Asked { gone, adas, bos, engs, everyones, ops: _ } = &team.asked;
    let (ada, bo, root) = (
        Signed::sign_in(&team.b, "ada").await,
        Signed::sign_in(&team.a, "bo").await,
        Signed::sign_in(&team.b, "root").await,
    );
    let adas_share = owned(&[gone, adas, engs, everyones]);
    let bos_share = owned(&[bos, engs, everyones]);
    for (name, replica) in [("A", &team.a), ("B", &team.b)] {
        for format in ["jsonl", "csv"] {
            let get = |who: &Signed| who.request(replica, reqwest::Method::GET, "/v1/audit");
            let (status, rows) = export(get(&root), format).await;
            assert_eq!((status, ids(&rows)), (200, stored.clone()), "{name} {format}: an admin reads every row");
            // Ada: hers, her group's, everyone's, and the one she answered whose session is gone.
            let (status, rows) = export(get(&ada), format).await;
            assert_eq!(status, 200, "{name} {format}");
            assert_eq!(ids(&rows), adas_share, "{name} {format}: Ada's share");
            // Bo: the gone session was his group's too, but he did not answer it.
            let (status, rows) = export(get(&bo), format).await;
            assert_eq!(status, 200, "{name} {format}");
            assert_eq!(ids(&rows), bos_share, "{name} {format}: Bo's share");
        }
    }
    // Filters hold within a share.
    let filtered = ada.request(&team.a, reqwest::Method::GET, "/v1/audit").query(&[
        ("agent", "deployer"),
        ("since_ms", "0"),
        ("until_ms", &i64::MAX.to_string()),
    ]);
    assert_eq!(ids(&export(filtered, "jsonl").await.1), adas_share);
    // An agent's ask-only token reads none of it.
    for replica in [&team.a, &team.b] {
        let refused =
            http().get(format!("{}/v1/audit", replica.endpoint.url)).bearer_auth(&team.ada_token).send().await;
        let refused = refused.unwrap();
        assert_eq!(refused.status(), 403);
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["error"]["kind"], "forbidden", "{body}");
    }
    team.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn beckon_audit_exports_the_team_servers_trail_from_either_replica() {
    let team = Team::start().await;
    let stored = team.stored().await;
    let dir = tempfile::tempdir().unwrap();
    let beckon = |replica: &Replica| {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_beckon"));
        command
            .arg("--data-dir")
            .arg(dir.path().join("client"))
            .env_remove("BECKON_DATA_DIR")
            .env_remove("BECKON_DATABASE_URL")
            .env("BECKON_URL", &replica.endpoint.url)
            .env("BECKON_TOKEN", &team.admin)
            .arg("audit");
        command
    };
    let csv = beckon(&team.a).args(["--format", "csv"]).output().await.unwrap();
    assert!(csv.status.success(), "{}", String::from_utf8_lossy(&csv.stderr));
    let rows = rows_of("csv", &csv.stdout);
    assert_eq!(ids(&rows), stored, "every row through A, as CSV");

    let file = dir.path().join("trail.jsonl");
    let written = beckon(&team.b).arg("-o").arg(&file).output().await.unwrap();
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let jsonl = rows_of("jsonl", &std::fs::read(&file).unwrap());
    assert_eq!(jsonl, rows, "the same rows through B, as JSON Lines in a file");
    team.stop().await;
}
