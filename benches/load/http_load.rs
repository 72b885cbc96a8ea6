//! What asking costs a server over streamable HTTP (BENCHMARKS.md §8): the booking tool that asks
//! once against the same tool that does not, through rmcp's own client over loopback HTTP, the
//! server (`load/server.rs`, release) in its own process so that its CPU and memory are its own.
//!
//! ```sh
//! cargo build --release -p elicit-benches --features load-bench --example load_server
//! cargo bench -p elicit-benches --features load-bench --bench http_load
//! # with Redis: the replay guard's round trips per asked call
//! REDIS_URL=redis://127.0.0.1:6379/ cargo bench -p elicit-benches --features load-bench --bench http_load -- redis
//! ```
//!
//! - **cpu**: the server's CPU (`/proc/<pid>/stat`, user + system) per completed call that asked
//!   once on 2026-07-28 (its first round and the retry that answers it: two HTTP requests)
//!   against two calls of the tool that does not ask, at a fixed concurrency; the latency of
//!   each round, p50 and p99. `LOAD_CONCURRENCY` (8), `LOAD_CALLS` (2000 per batch),
//!   `LOAD_ROUNDS` (5; the ratio is taken within each round, asked and bare back to back).
//! - **memory**: the server's resident memory per pending 2025-11-25 ask, 10,000 of them open at
//!   once on one session (`LOAD_PENDING`), asked through the `Asker` and through rmcp's own
//!   `peer.elicit`, each in a fresh server; and per pending 2026-07-28 ask (the first rounds of
//!   10,000 calls, never retried).
//! - **redis** (with `REDIS_URL`): Redis commands per asked call (`INFO commandstats`).
//! - `-- profile-asked` / `-- profile-bare`: one kind of call for 20 s (`LOAD_PROFILE_SECS`) or
//!   `LOAD_PROFILE_CALLS` calls, the server's pid printed, for `perf record -g -p <pid>`; with
//!   `LOAD_SERVER_PREFIX="valgrind --tool=callgrind --callgrind-out-file=<file>"`, the server's
//!   instructions, which the machine's load does not move (BENCHMARKS.md §8 has the recipe).
//!   `LOAD_REVISION=2025-11-25`: the clients on 2025-11-25 sessions (`profile-bare`: one request
//!   on the session per call; BENCHMARKS.md §9). `LOAD_HOST=<profile>` (`ClaudeCode`, `Codex`:
//!   a [`Profile`]'s name as `Debug` writes it): the clients send that host's `clientInfo`, so
//!   the server's host table finds its row (BENCHMARKS.md §14); unset, they send the library's
//!   own client's, which no row names. `LOAD_TOOL=sign_up`: `profile-asked` calls the tool that
//!   asks the benches' 8-field form (a number, a wide integer, a multi-select) instead of the
//!   booking.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_elicit::Mode;
use mcp_elicit::Revision;
use mcp_elicit::client::{Answerer, Incoming};
use mcp_elicit::rmcp::{AnsweringClient, Profile, protocol_version};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, CustomNotification, ElicitRequestParams,
    ElicitResult, Implementation,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};

type Client<A> = RunningService<RoleClient, Hosted<A>>;

/// The library's client, sending another `clientInfo` when `LOAD_HOST` names a profile: the
/// server's host table then finds that host's row, as it would for the host itself.
struct Hosted<A> {
    inner: AnsweringClient<A>,
    client_info: Option<Implementation>,
}

impl<A: Answerer + 'static> ClientHandler for Hosted<A> {
    fn get_info(&self) -> ClientConfig {
        let mut config = self.inner.get_info();
        if let Some(info) = &self.client_info {
            config.client_info = info.clone();
        }
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.inner.create_elicitation(request, context).await
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleClient>,
    ) {
        self.inner
            .on_custom_notification(notification, context)
            .await;
    }
}

/// `LOAD_HOST`: the `clientInfo` of the profile it names (`ClaudeCode`, `Codex`), if any.
fn host_client_info() -> Option<Implementation> {
    let wanted = std::env::var("LOAD_HOST").ok()?;
    let profile = Profile::ALL
        .into_iter()
        .find(|profile| format!("{profile:?}") == wanted)
        .unwrap_or_else(|| panic!("LOAD_HOST={wanted}: no such profile"));
    let (name, version) = profile
        .client_info()
        .unwrap_or_else(|| panic!("LOAD_HOST={wanted}: the profile sends no clientInfo"));
    Some(Implementation::new(name, version))
}

/// `LOAD_TOOL`: the tool an asked call calls (`book_table`, or `sign_up`: the 8-field form).
fn asked_tool() -> String {
    std::env::var("LOAD_TOOL").unwrap_or_else(|_| "book_table".to_owned())
}

/// The benches' 8-field form accepted (`benches/common/forms.rs`'s `ACCEPT`).
fn signup() -> Value {
    json!({"email": "ada@example.com", "name": "Ada Lovelace", "age": 36, "budget": 2500.5,
        "newsletter": true, "plan": "pro", "topics": ["rust", "mcp"],
        "website": "https://example.com/ada"})
}

/// `content` as a host answers the form it was shown (`requested`, the question's
/// `requestedSchema`): a number asked as text or as a select of its values' text is sent as
/// that text, a multi-select asked as one boolean per option (`<field>.<n>`) as those booleans.
fn as_drawn(content: &Value, requested: &Value) -> Value {
    let Some(properties) = requested.get("properties").and_then(Value::as_object) else {
        return content.clone();
    };
    let mut drawn = serde_json::Map::new();
    for (name, value) in content.as_object().into_iter().flatten() {
        match properties.get(name) {
            Some(asked) if value.is_number() && asked["type"] == "string" => {
                drawn.insert(name.clone(), Value::String(value.to_string()));
            }
            Some(_) => {
                drawn.insert(name.clone(), value.clone());
            }
            // Not asked as itself: a multi-select asked as one boolean per option,
            // `<name>.<n>`.
            None => {
                let chosen = value.as_array().cloned().unwrap_or_default();
                for n in 0.. {
                    let Some(option) = properties.get(&format!("{name}.{n}")) else {
                        break;
                    };
                    // Titled `<field>: <option's title>`; this form's options are untitled,
                    // so their title is their value.
                    let title = option["title"].as_str().unwrap_or_default();
                    let label = title.rsplit_once(": ").map_or(title, |(_, label)| label);
                    let on = chosen.iter().any(|c| c.as_str() == Some(label));
                    drawn.insert(format!("{name}.{n}"), Value::Bool(on));
                }
            }
        }
    }
    Value::Object(drawn)
}

/// The `requestedSchema` of the first form question in a 2026-07-28 `inputRequests` value.
fn requested_schema(request: &Value) -> Value {
    match request {
        Value::Object(map) => map.get("requestedSchema").cloned().unwrap_or_else(|| {
            map.values()
                .map(requested_schema)
                .find(|v| !v.is_null())
                .unwrap_or(Value::Null)
        }),
        _ => Value::Null,
    }
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn booking() -> Value {
    json!({"party_size": 4, "date": "2026-12-24", "seating": "terrace"})
}

/// A user who accepts every form at once, with the same booking.
struct Accepting;

impl Answerer for Accepting {
    fn modes(&self) -> &[Mode] {
        &[Mode::Form]
    }
    async fn answer(&self, _server: &str, _request: &Incoming) -> Option<Value> {
        Some(json!({"action": "accept", "content": booking()}))
    }
}

/// A user who never answers: each question stays pending on the server. Counts them.
struct Silent(Arc<AtomicUsize>);

impl Answerer for Silent {
    fn modes(&self) -> &[Mode] {
        &[Mode::Form]
    }
    async fn answer(&self, _server: &str, _request: &Incoming) -> Option<Value> {
        self.0.fetch_add(1, Ordering::SeqCst);
        std::future::pending().await
    }
}

/// The server, in its own process on a free loopback port.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    async fn start(redis: Option<&str>) -> Server {
        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
            PathBuf::from,
        );
        let binary = target.join("release/examples/load_server");
        assert!(
            binary.exists(),
            "build it first: cargo build --release -p elicit-benches --features load-bench --example load_server"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        // `LOAD_SERVER_PREFIX`: run the server under another program, e.g.
        // `valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p`, whose instruction counts
        // do not move with the machine's load.
        let prefix = std::env::var("LOAD_SERVER_PREFIX").unwrap_or_default();
        let mut words = prefix.split_whitespace();
        let mut command = match words.next() {
            Some(program) => {
                let mut command = Command::new(program);
                command.args(words).arg(&binary);
                command
            }
            None => Command::new(binary),
        };
        command.env("PORT", port.to_string()).stdin(Stdio::null());
        match redis {
            Some(url) => command.env("REDIS_URL", url),
            None => command.env_remove("REDIS_URL"),
        };
        let child = command.spawn().expect("the server starts");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Server {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    /// User and system (the kernel's: sockets, wakeups) CPU time so far.
    fn cpu_split(&self) -> (Duration, Duration) {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command name's closing parenthesis: utime is the 12th, stime the 13th.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        // USER_HZ is 100 on Linux (`getconf CLK_TCK`).
        let ticks = |field: &str| Duration::from_millis(field.parse::<u64>().unwrap() * 10);
        (ticks(fields[11]), ticks(fields[12]))
    }

    /// Resident memory, in bytes.
    fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    }

    /// A client on `revision`, authenticated (its bearer token, which the server reads as its
    /// principal and binds its session to).
    async fn client<A: Answerer + 'static>(&self, answerer: A, revision: Revision) -> Client<A> {
        let config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str())
            .auth_header("load-client");
        let transport = StreamableHttpClientTransport::from_config(config);
        let version = protocol_version(revision);
        // As `AnsweringClient::connect` opens a session, with `LOAD_HOST`'s `clientInfo`.
        let (inner, lifecycle) = if revision.has_per_request_capabilities() {
            let preferred_versions = vec![version];
            (
                AnsweringClient::new(Arc::new(answerer)),
                ClientLifecycleMode::Discover { preferred_versions },
            )
        } else {
            (
                AnsweringClient::new(Arc::new(answerer)).with_protocol_version(version),
                ClientLifecycleMode::Initialize,
            )
        };
        let client = Hosted {
            inner,
            client_info: host_client_info(),
        };
        client
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("the client connects")
    }
}

impl Drop for Server {
    /// SIGINT first, so that a profiler around the server (`LOAD_SERVER_PREFIX`) writes what it
    /// counted; SIGKILL if it is still there after 30 s.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-INT")
            .arg(self.child.id().to_string())
            .status();
        for _ in 0..300 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One call of `book_table` (or `LOAD_TOOL`'s) that asks once, round by round: the first round,
/// then the retry that accepts, its content in the shape of the form the question drew. The
/// latency of each round.
async fn asked_call(client: &Client<Accepting>) -> [Duration; 2] {
    let tool = asked_tool();
    let started = Instant::now();
    let asked = client
        .call_tool_once(CallToolRequestParams::new(tool.clone()))
        .await
        .expect("the first round");
    let first = started.elapsed();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("expected an input-required result, got {asked:?}")
    };
    let content = if tool == "sign_up" {
        signup()
    } else {
        booking()
    };
    let responses = asked
        .input_requests
        .unwrap_or_default()
        .into_iter()
        .map(|(key, request)| {
            let requested = requested_schema(&serde_json::to_value(&request).unwrap());
            let content = as_drawn(&content, &requested);
            (key, json!({"action": "accept", "content": content}))
        })
        .collect();
    let mut retry = CallToolRequestParams::new(tool).with_input_responses(responses);
    retry.request_state = asked.request_state;
    let started = Instant::now();
    let done = client.call_tool_once(retry).await.expect("the retry");
    let second = started.elapsed();
    match &done {
        CallToolResponse::Complete(result) => assert_ne!(result.is_error, Some(true), "{done:?}"),
        _ => panic!("expected the call to complete, got {done:?}"),
    }
    [first, second]
}

/// One call of `book_usual`, which does not ask.
async fn bare_call(client: &Client<Accepting>) -> Duration {
    let started = Instant::now();
    let done = client
        .call_tool_once(CallToolRequestParams::new("book_usual"))
        .await
        .expect("the call");
    assert!(matches!(done, CallToolResponse::Complete(_)), "{done:?}");
    started.elapsed()
}

/// `calls` calls spread over `clients`, each client's calls one after the other; the server's
/// CPU for them (user and system), and every round's latency.
async fn batch(
    server: &Server,
    clients: &[Arc<Client<Accepting>>],
    calls: usize,
    asked: bool,
) -> ((Duration, Duration), Vec<Duration>) {
    let per_client = calls / clients.len();
    let before = server.cpu_split();
    let tasks: Vec<_> = clients
        .iter()
        .map(|client| {
            let client = Arc::clone(client);
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(per_client * 2);
                for _ in 0..per_client {
                    if asked {
                        latencies.extend(asked_call(&client).await);
                    } else {
                        latencies.push(bare_call(&client).await);
                        latencies.push(bare_call(&client).await);
                    }
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.unwrap());
    }
    let after = server.cpu_split();
    ((after.0 - before.0, after.1 - before.1), latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn cpu_and_latency() {
    let concurrency = env_or("LOAD_CONCURRENCY", 8);
    let calls = env_or("LOAD_CALLS", 2000);
    let rounds = env_or("LOAD_ROUNDS", 5);
    // `LOAD_REVISION=2025-11-25`: each client on a session (BENCHMARKS.md §9), each call one
    // request on it.
    let revision = match std::env::var("LOAD_REVISION").as_deref() {
        Ok("2025-11-25") => Revision::V2025_11_25,
        _ => Revision::V2026_07_28,
    };
    let server = Server::start(None).await;
    let mut clients = Vec::new();
    for _ in 0..concurrency {
        clients.push(Arc::new(server.client(Accepting, revision).await));
    }
    // Warm up: connections, allocator, caches.
    batch(&server, &clients, calls / 4, true).await;
    batch(&server, &clients, calls / 4, false).await;
    let (mut ratios, mut asked_us, mut bare_us) = (Vec::new(), Vec::new(), Vec::new());
    let (mut asked_system, mut bare_system) = (Vec::new(), Vec::new());
    let (mut asked_lat, mut bare_lat) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (asked_cpu, asked_latencies) = batch(&server, &clients, calls, true).await;
        let (bare_cpu, bare_latencies) = batch(&server, &clients, calls, false).await;
        let done = (calls / concurrency * concurrency) as f64;
        let per_call = |cpu: Duration| cpu.as_secs_f64() * 1e6 / done;
        let asked = per_call(asked_cpu.0 + asked_cpu.1);
        let bare = per_call(bare_cpu.0 + bare_cpu.1);
        ratios.push(asked / bare);
        asked_us.push(asked);
        bare_us.push(bare);
        asked_system.push(per_call(asked_cpu.1));
        bare_system.push(per_call(bare_cpu.1));
        asked_lat.extend(asked_latencies);
        bare_lat.extend(bare_latencies);
    }
    // Each asked call's latencies alternate: first round, retry.
    let firsts: Vec<_> = asked_lat.iter().step_by(2).copied().collect();
    let retries: Vec<_> = asked_lat.iter().skip(1).step_by(2).copied().collect();
    let line = |name: &str, mut l: Vec<Duration>| {
        l.sort();
        println!(
            "  {name:<28} p50 {:>7.0} µs   p99 {:>7.0} µs   ({} requests)",
            percentile(&l, 0.5).as_secs_f64() * 1e6,
            percentile(&l, 0.99).as_secs_f64() * 1e6,
            l.len()
        );
    };
    println!(
        "cpu: server CPU per completed call, {concurrency} clients, {calls} calls x {rounds} rounds (median [min, max])"
    );
    let span = |v: &mut Vec<f64>| {
        let m = median(v);
        format!("{m:.0} µs [{:.0}, {:.0}]", v[0], v[v.len() - 1])
    };
    println!("  asked once (2 requests)      {}", span(&mut asked_us));
    println!("  two bare calls (2 requests)  {}", span(&mut bare_us));
    println!(
        "  of which the kernel's        asked {}, bare {}",
        span(&mut asked_system),
        span(&mut bare_system)
    );
    let m = median(&mut ratios);
    println!(
        "  ratio                        {m:.2}x [{:.2}, {:.2}]",
        ratios[0],
        ratios[ratios.len() - 1]
    );
    println!("latency per round:");
    line("asked: first round", firsts);
    line("asked: retry (answers)", retries);
    line("bare call", bare_lat);
}

/// The server's resident memory per pending ask: `pending` tool calls that ask, none answered.
async fn memory_per_pending(tool: &str, revision: Revision, pending: usize) -> f64 {
    let server = Server::start(None).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let client = Arc::new(server.client(Silent(Arc::clone(&seen)), revision).await);
    // Warm up with a few, so that the first allocations of every path are in the baseline.
    let warm: Vec<_> = (0..16).map(|_| call(&client, tool, revision)).collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = server.rss();
    let calls: Vec<_> = (0..pending)
        .map(|_| call(&client, tool, revision))
        .collect();
    let want = pending + warm.len();
    let started = Instant::now();
    if revision == Revision::V2026_07_28 {
        // Nothing waits on the server: each first round returns, and is never retried.
        for call in calls {
            call.await.unwrap();
        }
    } else {
        while seen.load(Ordering::SeqCst) < want {
            assert!(
                started.elapsed() < Duration::from_secs(300),
                "only {} of {want} asks arrived",
                seen.load(Ordering::SeqCst)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss();
    (after.saturating_sub(before)) as f64 / pending as f64
}

fn call<A: Answerer + 'static>(
    client: &Arc<Client<A>>,
    tool: &str,
    revision: Revision,
) -> tokio::task::JoinHandle<()> {
    let client = Arc::clone(client);
    let params = CallToolRequestParams::new(tool.to_owned());
    tokio::spawn(async move {
        if revision == Revision::V2026_07_28 {
            let asked = client
                .call_tool_once(params)
                .await
                .expect("the first round");
            assert!(matches!(asked, CallToolResponse::InputRequired(_)));
        } else {
            let _ = client.call_tool(params).await;
        }
    })
}

async fn memory() {
    let pending = env_or("LOAD_PENDING", 10_000);
    println!("memory: server resident memory per pending ask, {pending} pending");
    let ours = memory_per_pending("book_table", Revision::V2025_11_25, pending).await;
    let theirs = memory_per_pending("book_table_rmcp", Revision::V2025_11_25, pending).await;
    println!(
        "  2025-11-25, Asker::form         {:>8.0} B ({:.1} KiB)",
        ours,
        ours / 1024.0
    );
    println!(
        "  2025-11-25, rmcp's peer.elicit  {:>8.0} B ({:.1} KiB)",
        theirs,
        theirs / 1024.0
    );
    println!("  ratio                           {:.2}x", ours / theirs);
    let stateless = memory_per_pending("book_table", Revision::V2026_07_28, pending).await;
    println!("  2026-07-28, first rounds        {stateless:>8.0} B");
}

async fn redis(url: &str) {
    let calls = env_or("LOAD_CALLS", 2000);
    let server = Server::start(Some(url)).await;
    let client = Arc::new(server.client(Accepting, Revision::V2026_07_28).await);
    let mut admin = ::redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let commands = |stats: String| -> BTreeMap<String, u64> {
        stats
            .lines()
            .filter_map(|l| l.strip_prefix("cmdstat_"))
            .filter_map(|l| {
                let (name, rest) = l.split_once(':')?;
                let calls = rest
                    .split(',')
                    .next()?
                    .strip_prefix("calls=")?
                    .parse()
                    .ok()?;
                Some((name.to_owned(), calls))
            })
            .collect()
    };
    asked_call(&client).await;
    let info = |admin: &mut ::redis::aio::MultiplexedConnection| {
        let mut admin = admin.clone();
        async move {
            ::redis::cmd("INFO")
                .arg("commandstats")
                .query_async::<String>(&mut admin)
                .await
                .unwrap()
        }
    };
    let before = commands(info(&mut admin).await);
    for _ in 0..calls {
        asked_call(&client).await;
    }
    let after = commands(info(&mut admin).await);
    println!(
        "redis: commands per asked call (2026-07-28, {calls} calls; the INFO itself left out)"
    );
    for (name, count) in &after {
        let delta = count - before.get(name).copied().unwrap_or(0);
        let delta = if name == "info" { delta - 1 } else { delta };
        if delta > 0 {
            println!("  {name:<8} {:.2}", delta as f64 / calls as f64);
        }
    }
}

/// One kind of call only, for `perf record -p <server's pid>` (`-- profile-asked`,
/// `-- profile-bare`): batches for about `LOAD_PROFILE_SECS` (20) seconds; prints the pid.
async fn profile(asked: bool) {
    let concurrency = env_or("LOAD_CONCURRENCY", 8);
    let server = Server::start(None).await;
    let mut clients = Vec::new();
    for _ in 0..concurrency {
        clients.push(Arc::new(
            server.client(Accepting, Revision::V2026_07_28).await,
        ));
    }
    println!("profiling server pid {}", server.child.id());
    let until = Instant::now() + Duration::from_secs(env_or("LOAD_PROFILE_SECS", 20) as u64);
    let most = env_or("LOAD_PROFILE_CALLS", usize::MAX);
    let mut calls = 0;
    while Instant::now() < until && calls < most {
        batch(&server, &clients, 400, asked).await;
        calls += 400 / concurrency * concurrency;
    }
    // A bare batch makes two calls where an asked one makes one.
    println!(
        "{calls} {} calls",
        if asked { "asked" } else { "pairs of bare" }
    );
    // Dropping the server stops it with SIGINT, so that a profiler around it writes its counts.
}

#[tokio::main]
async fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let run = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    if only
        .iter()
        .any(|o| o == "profile-asked" || o == "profile-bare")
    {
        return profile(only.iter().any(|o| o == "profile-asked")).await;
    }
    if run("cpu") {
        cpu_and_latency().await;
    }
    if run("memory") {
        memory().await;
    }
    match std::env::var("REDIS_URL") {
        Ok(url) if run("redis") => redis(&url).await,
        _ => println!("(REDIS_URL is not set, or not asked for: no Redis case)"),
    }
}
