//! Agents keep waiting through the death of the Beckon holding their wait.
//!
//! - A team server: two `beckon serve` replicas on one real PostgreSQL, behind a real TCP load
//!   balancer (HAProxy, `mode tcp`, checking `/readyz`); the real `beckon hook claude-code` (a
//!   permission request), `beckon ask` and `beckon mcp` (an `ask_user_question` call) wait
//!   through it with an agent's ask-only token. The replica holding their long-polls, found from
//!   HAProxy's own statistics, is killed with SIGKILL; all three re-attach to their questions
//!   through the balancer, the person answers on the replica left, and the hook prints the
//!   person's decision, `beckon ask` the answer and `beckon mcp` the tool result, each question
//!   asked once.
//! - One person's Beckon: killed with SIGKILL under a waiting hook and `beckon ask` and started
//!   again, with a new token (and port) in `gateway.json`; both find it again and get the answer
//!   given there.
//!
//! HAProxy is one of the tests' tools (`scripts/install-deps` installs it): without it the test
//! fails, it does not skip.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

use crate::support::hook;
use crate::support::metrics;
use crate::support::postgres::database;
use crate::support::serve_start::free_port;
use crate::support::served;
use crate::support::server::{Endpoint, Server};

/// How long the clients and the balancer may take for each step on a busy machine.
const PATIENCE: Duration = Duration::from_secs(60);

struct Replica {
    name: &'static str,
    server: Server,
    endpoint: Endpoint,
}

impl Replica {
    /// `beckon serve` on `url`, in a folder of its own under `home`, reached by agents at
    /// `public` (the balancer), where scripts may approve tool calls (so the test answers as the
    /// person would in the window).
    async fn start(home: &Path, name: &'static str, url: &str, public: &str) -> Replica {
        let (data, logs) = (home.join(name).join("data"), home.join(name).join("logs"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(data.join("settings.json"), json!({"scripts_may_approve": true}).to_string()).unwrap();
        let server = Server::start_pairing(&data, &logs, &["--database", url, "--public-url", public], false).await;
        let endpoint = server.watch().borrow().endpoint.clone().unwrap();
        Replica { name, server, endpoint }
    }

    fn port(&self) -> u16 {
        self.endpoint.url.rsplit_once(':').unwrap().1.parse().unwrap()
    }

    async fn call(&self, method: reqwest::Method, path: &str, token: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .request(method, format!("{}{path}", self.endpoint.url))
            .bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// What the person sees waiting, through this replica.
    async fn pending(&self) -> Vec<Value> {
        let (status, listed) =
            self.call(reqwest::Method::GET, "/v1/questions?status=pending", &self.endpoint.token, None).await;
        assert_eq!(status, 200, "{listed}");
        listed["questions"].as_array().unwrap().clone()
    }
}

/// HAProxy's binary: on the PATH, or where Debian puts it (`/usr/sbin`, often off a user's PATH).
fn haproxy_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|dir| dir.join("haproxy"))
        .find(|candidate| candidate.is_file())
        .expect("HAProxy is not installed: scripts/install-deps installs it (Debian's haproxy package)")
}

/// HAProxy in front of the replicas, and where to reach it and its statistics.
struct Balancer {
    _process: Child,
    url: String,
    stats: PathBuf,
}

impl Balancer {
    /// The configuration a team would write: TCP through to the replicas, each checked on
    /// `/readyz`, long-polls given their time, a failed connection tried on another replica.
    /// Clients from one address go to one replica (`balance source`), so the hook's and the
    /// ask's long-polls are on the same one.
    async fn start(dir: &Path, port: u16, replicas: &[&Replica]) -> Balancer {
        let stats = dir.join("haproxy.sock");
        let servers: String = replicas
            .iter()
            .map(|replica| {
                format!("    server {} 127.0.0.1:{} check inter 300ms fall 2 rise 2\n", replica.name, replica.port())
            })
            .collect();
        let config = format!(
            "global\n    stats socket {stats} mode 600 level admin\n\n\
             defaults\n    mode tcp\n    timeout connect 2s\n    timeout client 10m\n    timeout server 10m\n    \
             timeout check 2s\n    retries 3\n    option redispatch\n\n\
             frontend agents\n    bind 127.0.0.1:{port}\n    default_backend beckon\n\n\
             backend beckon\n    balance source\n    option httpchk GET /readyz\n    http-check expect status 200\n\
             {servers}",
            stats = stats.display(),
        );
        let file = dir.join("haproxy.cfg");
        std::fs::write(&file, config).unwrap();
        let check = Command::new(haproxy_binary()).arg("-c").arg("-f").arg(&file).output().await.unwrap();
        assert!(check.status.success(), "HAProxy refuses the configuration:\n{}", served::text(&check.stdout));
        let process = Command::new(haproxy_binary())
            .arg("-db")
            .arg("-f")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(dir.join("haproxy.log")).unwrap()))
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        Balancer { _process: process, url: format!("http://127.0.0.1:{port}"), stats }
    }

    /// `show stat` from the statistics socket: per server of the backend, its status and how
    /// many connections it holds now.
    async fn servers(&self) -> Vec<(String, String, u64)> {
        let Ok(mut socket) = tokio::net::UnixStream::connect(&self.stats).await else { return vec![] };
        socket.write_all(b"show stat\n").await.unwrap();
        let mut text = String::new();
        socket.read_to_string(&mut text).await.unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().trim_start_matches("# ").split(',').collect();
        let column = |name: &str| header.iter().position(|field| *field == name);
        let (Some(proxy), Some(server), Some(current), Some(status)) =
            (column("pxname"), column("svname"), column("scur"), column("status"))
        else {
            return vec![];
        };
        lines
            .map(|line| line.split(',').collect::<Vec<&str>>())
            .filter(|fields| fields.get(proxy) == Some(&"beckon") && !matches!(fields[server], "FRONTEND" | "BACKEND"))
            .map(|fields| (fields[server].to_owned(), fields[status].to_owned(), fields[current].parse().unwrap_or(0)))
            .collect()
    }

    /// Waits until `done` holds of the servers' statistics; what they were then.
    async fn until(&self, what: &str, done: impl Fn(&[(String, String, u64)]) -> bool) -> Vec<(String, String, u64)> {
        let began = Instant::now();
        loop {
            let servers = self.servers().await;
            if done(&servers) {
                return servers;
            }
            assert!(began.elapsed() < PATIENCE, "HAProxy: {what} did not happen: {servers:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The Claude Code hook's event for a permission request to run `command`.
fn permission_request(command: &str) -> Value {
    json!({"session_id": "9f1c2d3e-4b5a-6c7d-8e9f-0a1b2c3d4e5f", "cwd": "/home/ada/shop",
        "permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Deploy the shop"}})
}

/// The `beckon` binary on a machine of its own (an empty data folder), reaching Beckon only
/// through the balancer with the agent's token.
fn agent_command(home: &Path, balancer: &Balancer, token: &str) -> Command {
    let mut command = served::beckon(&home.join("agent"));
    command
        .env("BECKON_URL", &balancer.url)
        .env("BECKON_TOKEN", token)
        .env_remove("BECKON_CONNECTION_FILE")
        .env_remove("BECKON_SCRIPTS_MAY_APPROVE");
    command
}

async fn finished(child: Child) -> std::process::Output {
    tokio::time::timeout(PATIENCE, child.wait_with_output()).await.expect("the client still waits").unwrap()
}

/// `beckon mcp` as an MCP client over stdio drives it: the handshake, then one
/// `ask_user_question` call that waits up to 100 s; the call's response, once it comes.
async fn mcp_call(mcp: &mut Child) -> tokio::task::JoinHandle<Value> {
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": {"name": "deploy-agent", "version": "1.0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_user_question",
            "arguments": {"wait_seconds": 100, "questions": [{"question": "Which region first?", "header": "Region",
                "multiSelect": false, "options": [{"label": "eu-west"}, {"label": "us-east"}]}]}}}),
    ];
    let stdin = mcp.stdin.as_mut().unwrap();
    for message in messages {
        stdin.write_all(format!("{message}\n").as_bytes()).await.unwrap();
    }
    stdin.flush().await.unwrap();
    let mut lines = tokio::io::BufReader::new(mcp.stdout.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == 2 {
                return message;
            }
        }
        panic!("beckon mcp ended without answering the call");
    })
}

/// Fails, with what it said, if any of the clients has ended: each should still wait.
async fn still_waiting(clients: &mut [(&str, &mut Child)]) {
    for (name, child) in clients.iter_mut() {
        if let Some(exit) = child.try_wait().unwrap() {
            let mut said = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                stderr.read_to_string(&mut said).await.unwrap();
            }
            panic!("{name} stopped waiting ({exit}): {said}");
        }
    }
}

/// The id of the question among `asked` that `is` picks.
fn id_of(asked: &[Value], is: impl Fn(&Value) -> bool) -> String {
    let question = asked.iter().find(|question| is(question)).unwrap_or_else(|| panic!("not among {asked:?}"));
    question["request_id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn waiting_agents_get_the_answer_through_the_death_of_the_replica_holding_them() {
    let haproxy = haproxy_binary();
    let home = tempfile::tempdir().unwrap();
    let (_cluster, url) = database("team").await;
    // Agents reach the replicas through the balancer's address, which the replicas know as theirs.
    let port = free_port();
    let public = format!("http://127.0.0.1:{port}");
    let (a, b) =
        tokio::join!(Replica::start(home.path(), "a", &url, &public), Replica::start(home.path(), "b", &url, &public));

    // The agents' token, made through A, known to B within a second.
    let body = json!({"name": "ci-runner", "kind": "ask_only"});
    let (status, made) = a.call(reqwest::Method::POST, "/v1/tokens", &a.endpoint.token, Some(body)).await;
    assert_eq!(status, 201, "{made}");
    let token = made["secret"].as_str().unwrap().to_owned();
    let began = Instant::now();
    while b.call(reqwest::Method::GET, "/v1/health", &token, None).await.0 != 200 {
        assert!(began.elapsed() < PATIENCE, "B never learnt of the token");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let balancer = Balancer::start(home.path(), port, &[&a, &b]).await;
    println!("{} in front of A ({}) and B ({}) at {}", haproxy.display(), a.endpoint.url, b.endpoint.url, balancer.url);
    balancer
        .until("both replicas ready", |servers| servers.iter().filter(|(_, status, _)| status == "UP").count() == 2)
        .await;

    // Claude Code asks permission to run a command, a script asks a question, an MCP client
    // calls the tool. All three wait.
    let mut hook =
        hook::start(&mut agent_command(home.path(), &balancer, &token), &permission_request("make deploy")).await;
    let mut ask = agent_command(home.path(), &balancer, &token)
        .args(["ask", "Ship release 4.2?", "-o", "Yes", "-o", "No", "--agent", "release-bot"])
        .spawn()
        .unwrap();
    let mut mcp = agent_command(home.path(), &balancer, &token).arg("mcp").stdin(Stdio::piped()).spawn().unwrap();
    let called = mcp_call(&mut mcp).await;

    let began = Instant::now();
    let asked = loop {
        let pending = a.pending().await;
        if pending.len() == 3 {
            break pending;
        }
        still_waiting(&mut [("the hook", &mut hook), ("beckon ask", &mut ask), ("beckon mcp", &mut mcp)]).await;
        assert!(began.elapsed() < PATIENCE, "the questions did not arrive: {pending:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let asks = |text: &'static str| move |question: &Value| question["input"]["questions"][0]["question"] == text;
    let approval = id_of(&asked, |question| question["input"]["approval"]["tool_name"] == "Bash");
    let question = id_of(&asked, asks("Ship release 4.2?"));
    let tool_call = id_of(&asked, asks("Which region first?"));

    // The replica holding the long-polls, as the balancer counts its connections.
    let servers = balancer
        .until("the three clients attached to one replica", |servers| {
            let holding: Vec<u64> = servers.iter().map(|(_, _, current)| *current).filter(|n| *n > 0).collect();
            holding.len() == 1 && holding[0] >= 3
        })
        .await;
    let holder = servers.iter().find(|(_, _, current)| *current > 0).unwrap().0.clone();
    let (dead, alive) = if holder == a.name { (&a, &b) } else { (&b, &a) };
    println!("{} holds the long-polls: killing it with SIGKILL", dead.name);
    dead.server.kill().await;

    // They come back through the balancer to the replica left, and wait there.
    let began = Instant::now();
    loop {
        let servers = balancer.servers().await;
        if servers.iter().any(|(name, _, current)| name == alive.name && *current >= 3) {
            break;
        }
        still_waiting(&mut [("the hook", &mut hook), ("beckon ask", &mut ask), ("beckon mcp", &mut mcp)]).await;
        assert!(began.elapsed() < PATIENCE, "the clients did not come back to {}: {servers:?}", alive.name);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (id, answer) in [(&approval, "Allow"), (&question, "Yes"), (&tool_call, "eu-west")] {
        let path = format!("/v1/questions/{id}/answer");
        let body = json!({"answers": [answer]});
        let (status, answered) = alive.call(reqwest::Method::POST, &path, &alive.endpoint.token, Some(body)).await;
        assert_eq!(status, 200, "{answered}");
    }

    let (printed, hook_err) = hook::decision(hook, PATIENCE).await;
    assert_eq!(printed["hookSpecificOutput"]["hookEventName"], "PermissionRequest", "{printed}");
    assert_eq!(printed["hookSpecificOutput"]["decision"]["behavior"], "allow", "{printed}");
    assert!(hook_err.contains(&format!("re-attached to question {approval}")), "{hook_err}");

    let asked_out = finished(ask).await;
    let ask_err = served::text(&asked_out.stderr);
    println!("beckon ask said:\n{ask_err}");
    assert_eq!(asked_out.status.code(), Some(0), "{ask_err}");
    assert_eq!(served::text(&asked_out.stdout).trim(), "Yes", "{ask_err}");
    assert!(ask_err.contains(&format!("lost the connection while waiting on question {question}")), "{ask_err}");
    assert!(ask_err.contains(&format!("re-attached to question {question}")), "{ask_err}");

    let result = tokio::time::timeout(PATIENCE, called).await.expect("beckon mcp still waits").unwrap();
    drop(mcp.stdin.take());
    let mcp_err = served::text(&finished(mcp).await.stderr);
    println!("beckon mcp said:\n{mcp_err}");
    assert_eq!(result["result"]["isError"], false, "{result}\n{mcp_err}");
    let content = &result["result"]["structuredContent"];
    assert_eq!(content["answers"]["Which region first?"], "eu-west", "{result}\n{mcp_err}");
    assert!(mcp_err.contains(&format!("re-attached to question {tool_call}")), "{mcp_err}");

    // Each was asked once: nothing else waits, and all are resolved as the person decided.
    assert!(alive.pending().await.is_empty());
    let (_, all) = alive.call(reqwest::Method::GET, "/v1/questions?limit=10", &alive.endpoint.token, None).await;
    let statuses: Vec<&str> =
        all["questions"].as_array().unwrap().iter().map(|q| q["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["answered"; 3], "{all}");

    drop(balancer);
    alive.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn waiting_agents_find_one_persons_beckon_started_again_with_a_new_token() {
    let home = tempfile::tempdir().unwrap();
    let (data, logs) = (home.path().join("data"), home.path().join("logs"));
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(data.join("settings.json"), json!({"scripts_may_approve": true}).to_string()).unwrap();
    let metrics_at = format!("127.0.0.1:{}", free_port());
    let server = Server::start_pairing(&data, &logs, &["--metrics-listen", &metrics_at], false).await;
    let before = server.watch().borrow().endpoint.clone().unwrap();

    // Both find Beckon through gateway.json in the data folder, as on the person's laptop.
    let mut hook = hook::start(&mut served::beckon(&data), &permission_request("make release")).await;
    let mut ask = served::beckon(&data).args(["ask", "Tag it?", "-o", "Yes", "-o", "No"]).spawn().unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let began = Instant::now();
    let asked = loop {
        let listed: Value = http
            .get(format!("{}/v1/questions?status=pending", before.url))
            .bearer_auth(&before.token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let pending = listed["questions"].as_array().unwrap().clone();
        if pending.len() == 2 {
            break pending;
        }
        still_waiting(&mut [("the hook", &mut hook), ("beckon ask", &mut ask)]).await;
        assert!(began.elapsed() < PATIENCE, "the questions did not arrive: {pending:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let approval = id_of(&asked, |question| question["input"]["approval"]["tool_name"] == "Bash");
    let question = id_of(&asked, |question| question["input"]["questions"][0]["question"] == "Tag it?");
    // Both wait in their long-polls.
    metrics::until_long_polls_open(&metrics_at, 2).await;

    server.kill().await;
    still_waiting(&mut [("the hook", &mut hook), ("beckon ask", &mut ask)]).await;
    server.restart().await;
    let after = server.watch().borrow().endpoint.clone().unwrap();
    assert_ne!(after.token, before.token, "a new token at every start");
    for (id, answer) in [(&approval, "Allow"), (&question, "Yes")] {
        let answered = http
            .post(format!("{}/v1/questions/{id}/answer", after.url))
            .bearer_auth(&after.token)
            .json(&json!({"answers": [answer]}))
            .send()
            .await
            .unwrap();
        assert_eq!(answered.status(), 200, "{}", answered.text().await.unwrap());
    }

    let (printed, hook_err) = hook::decision(hook, PATIENCE).await;
    assert_eq!(printed["hookSpecificOutput"]["decision"]["behavior"], "allow", "{printed}");
    assert!(hook_err.contains(&format!("re-attached to question {approval}")), "{hook_err}");
    let asked_out = finished(ask).await;
    let ask_err = served::text(&asked_out.stderr);
    println!("beckon ask said:\n{ask_err}");
    assert_eq!(asked_out.status.code(), Some(0), "{ask_err}");
    assert_eq!(served::text(&asked_out.stdout).trim(), "Yes", "{ask_err}");
    assert!(ask_err.contains(&format!("re-attached to question {question}")), "{ask_err}");
    server.stop().await;
}
