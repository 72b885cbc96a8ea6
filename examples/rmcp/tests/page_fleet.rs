//! The pages of two replicas over one Redis, over HTTP: each replica's router served on its own
//! loopback port, a browser's requests sent to either, as a load balancer spreads them.
//!
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo test -p elicit-examples --features fleet --test page_fleet -- --include-ignored`
//! (the second test starts and kills a `redis-server` of its own).

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_elicit::page::{Pages, SecretSink, Secrets, SinkError, SinkFuture};
use mcp_elicit::state::{KeyId, StateKey, StateKeys, UnixTime};
use mcp_elicit::url_mode::{FlowError, FlowId, FlowStatus, FlowStore, Flows, RedisFlowStore};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[path = "common/page_site.rs"]
mod page_site;

// The pages' public base, the same on every replica (what the balancer serves).
use page_site::{BASE, HOST, HeaderUser, ORIGIN, api_key_page};

const KEY: &str = "sk-live-0123456789abcdef";

fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into())
}

fn store(url: &str, prefix: &str) -> RedisFlowStore {
    RedisFlowStore::new(redis::Client::open(url).unwrap()).with_key_prefix(prefix)
}

/// A key prefix of its own for each test in each run.
fn prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("elicit-page-test:{}:{nanos}:{test}:", std::process::id())
}

/// A replica: pages over its own `RedisFlowStore` (its own connection), with the fleet's keys,
/// served on a loopback port of its own. Its address.
async fn replica(
    store: RedisFlowStore,
    lease: Duration,
    sink: impl SecretSink,
) -> std::net::SocketAddr {
    let flows = Flows::new(store, BASE).unwrap();
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .with_keys(StateKeys::single(
            KeyId::new(1),
            StateKey::from_bytes([9; 32]),
        ))
        .with_claim_lease(lease)
        .unwrap()
        .secret(api_key_page(), sink)
        .router();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    address
}

/// A pending flow for `user` on the API-key page.
async fn flow_for(store: &dyn FlowStore, user: &str) -> FlowId {
    let (id, flow, now) = page_site::pending("api_key", user);
    store.begin(flow, now).await.unwrap();
    id
}

/// An HTTP/1.1 reply: its status, its `Set-Cookie` (the first, as a `Cookie` header), its body.
#[derive(Debug)]
struct Reply {
    status: u16,
    cookie: Option<String>,
    body: String,
}

impl Reply {
    /// The CSRF token in the form.
    fn token(&self) -> String {
        let marker = r#"name="_csrf" value=""#;
        let at = self.body.find(marker).expect("a token in the form");
        let rest = &self.body[at + marker.len()..];
        rest[..rest.find('"').unwrap()].to_owned()
    }
}

/// One request over its own connection, as a browser behind the balancer sends it: the pages'
/// public `Host`, the user's sign-in (`x-user`), the browser's cookie, and on a POST the
/// pages' `Origin` and the form.
async fn send(
    to: std::net::SocketAddr,
    method: &str,
    id: &FlowId,
    user: &str,
    cookie: Option<&str>,
    form: Option<&[(&str, &str)]>,
) -> Reply {
    let mut request = format!(
        "{method} /elicit/{id} HTTP/1.1\r\nHost: {HOST}\r\nx-user: {user}\r\nConnection: close\r\n"
    );
    if let Some(cookie) = cookie {
        request.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    let body = form.map(|form| serde_urlencoded::to_string(form).unwrap());
    if let Some(body) = &body {
        request.push_str(&format!(
            "Origin: {ORIGIN}\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body.as_deref().unwrap_or(""));
    let mut connection = TcpStream::connect(to).await.unwrap();
    connection.write_all(request.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    connection.read_to_end(&mut reply).await.unwrap();
    let reply = String::from_utf8(reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let cookie = head
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .map(|set| set.split(';').next().unwrap().to_owned());
    Reply {
        status,
        cookie,
        body: body.to_owned(),
    }
}

/// A sink that takes long: it counts the submissions inside it at once (the most ever), and
/// how many entered; it leaves (its future dropped) when the page gives it up.
#[derive(Clone, Default)]
struct Slow {
    inside: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    entered: Arc<AtomicUsize>,
}

struct Leaves(Arc<AtomicUsize>);

impl Drop for Leaves {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl SecretSink for Slow {
    fn store(&self, _: String, _: Secrets) -> SinkFuture<'_> {
        Box::pin(async move {
            self.entered.fetch_add(1, Ordering::SeqCst);
            let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
            let _leaves = Leaves(Arc::clone(&self.inside));
            self.most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(json!({ "stored": true }))
        })
    }
}

/// The reviewer's case (issue 34): a form sent to one replica, whose sink takes longer than the
/// claim, and the same form sent again and again to the other replica while the first runs.
/// Its claim is stamped in whole seconds; sent at .55 s past a second, a sink cut by a precise
/// clock would outlive the claim by about half a second, and the second submission would reach
/// a sink beside the first. The page cuts its sink by the claim's own end: never two at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server (REDIS_URL)"]
async fn a_second_submission_on_another_replica_never_reaches_a_sink_while_the_first_runs() {
    let (url, prefix) = (redis_url(), prefix("second_submission"));
    let sink = Slow::default();
    let lease = Duration::from_secs(2);
    let a = replica(store(&url, &prefix), lease, sink.clone()).await;
    let b = replica(store(&url, &prefix), lease, sink.clone()).await;
    let shared = store(&url, &prefix);
    let id = flow_for(&shared, "alice").await;
    let page = send(a, "GET", &id, "alice", None, None).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (cookie, token) = (page.cookie.clone().unwrap(), page.token());
    // Sent at .55 s past a second: the claim's whole seconds fall as far as they can behind
    // a precise clock's.
    loop {
        let into = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .subsec_millis();
        if (550..600).contains(&into) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let first = {
        let (cookie, token) = (cookie.clone(), token.clone());
        tokio::spawn(async move {
            let form = [("_csrf", token.as_str()), ("key", KEY)];
            send(a, "POST", &id, "alice", Some(&cookie), Some(&form)).await
        })
    };
    // The first is in its sink before the second is sent.
    let started = std::time::Instant::now();
    while sink.entered.load(Ordering::SeqCst) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the first never reached its sink"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut again = Vec::new();
    while !first.is_finished() && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(25)).await;
        let form = [("_csrf", token.as_str()), ("key", KEY)];
        let reply = send(b, "POST", &id, "alice", Some(&cookie), Some(&form)).await;
        again.push(reply.status);
    }
    let first = first.await.unwrap();
    assert_eq!(
        sink.most.load(Ordering::SeqCst),
        1,
        "two submissions in a sink at once: {again:?}"
    );
    assert_eq!(sink.entered.load(Ordering::SeqCst), 1, "{again:?}");
    // The first was given up before its claim ran out, and failed the flow under it; every
    // other was refused as being saved (409), or as finished (410).
    assert_eq!(first.status, 504, "{}", first.body);
    assert!(
        again.iter().all(|status| [409, 410].contains(status)),
        "{again:?}"
    );
    assert!(again.contains(&409), "{again:?}");
    assert_eq!(
        shared.get(&id, UnixTime::now()).await.unwrap().status(),
        &FlowStatus::Failed("The server did not finish saving this in time.".into())
    );
}

/// A `redis-server` of this test's own, on a free port, killed when dropped.
struct OwnRedis {
    child: Child,
    port: u16,
}

impl OwnRedis {
    async fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed");
        let own = Self { child, port };
        let client = redis::Client::open(own.url()).unwrap();
        for _ in 0..100 {
            if client.get_multiplexed_async_connection().await.is_ok() {
                return own;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not start");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What Redis said when it failed (its words, the address it could not reach) stays in the
/// store's error, for the server's logs; the browser is told only that the server cannot take
/// the step now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server (REDIS_URL)"]
async fn when_redis_fails_the_page_says_so_without_redis_s_words() {
    let mut redis = OwnRedis::start().await;
    let prefix = prefix("redis_fails");
    let stored = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let stored = Arc::clone(&stored);
        move |_, _: Secrets| -> Result<serde_json::Value, SinkError> {
            stored.lock().unwrap().push(());
            Ok(json!({}))
        }
    };
    let replica = replica(store(&redis.url(), &prefix), Duration::from_secs(60), sink).await;
    let direct = store(&redis.url(), &prefix);
    let id = flow_for(&direct, "alice").await;
    let page = send(replica, "GET", &id, "alice", None, None).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (cookie, token) = (page.cookie.clone().unwrap(), page.token());
    let _ = redis.child.kill();
    let _ = redis.child.wait();
    // What the store says: Redis's own words.
    let Err(FlowError::Unavailable(detail)) = direct.get(&id, UnixTime::now()).await else {
        panic!("the store did not fail");
    };
    assert!(detail.contains("Redis"), "{detail}");
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    for reply in [
        send(replica, "GET", &id, "alice", Some(&cookie), None).await,
        send(replica, "POST", &id, "alice", Some(&cookie), Some(&form)).await,
    ] {
        assert_eq!(reply.status, 503, "{}", reply.body);
        assert!(
            reply.body.contains("The server cannot take this now"),
            "{}",
            reply.body
        );
        assert!(
            reply.body.contains("Try again in a minute."),
            "{}",
            reply.body
        );
        for words in [
            "Redis",
            "redis",
            "Connection refused",
            "connection",
            "os error",
            "store could not decide",
            &redis.port.to_string(),
            &detail,
        ] {
            assert!(!reply.body.contains(words), "{words:?} in {}", reply.body);
        }
    }
    assert!(stored.lock().unwrap().is_empty());
}
