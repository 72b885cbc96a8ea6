//! Memory of a call waiting for its URL flow's page (BENCHMARKS.md §11, issue 33): a 2026-07-28
//! retry that accepted and waits for the page, against a 2025-11-25 `url_flow` whose client
//! accepted and that waits for the page, measured in one run.
//!
//! For each revision: a real rmcp client (its `call_tool` drives the 2026-07-28 rounds) and an
//! `AskingService` over an in-memory duplex, the flows in a `MemoryFlowStore`. One warm-up call
//! runs to its end; then `N` calls are started at once, each user accepts and never finishes the
//! page, and once every call is waiting the live bytes of the process (a global allocator that
//! counts bytes allocated minus freed) are read again. Per waiting call: the difference over
//! `N`. Then every page is finished through the store, and every call must answer "connected":
//! each was waiting, not ended.
//!
//! Both sides are in this process: the figure is the server's call plus rmcp's client's pending
//! request, the same client code for both revisions.
//!
//! `cargo bench -p elicit-benches --features load-bench --bench flow_memory`
//! (`FLOW_MEMORY_CALLS=<n>`, 500 by default.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, respond};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{Flow, FlowId, FlowOutcome, Flows, MemoryFlowStore};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// Counts the bytes the process holds: allocated minus freed.
struct Live;

static LIVE: AtomicI64 = AtomicI64::new(0);

#[allow(clippy::cast_possible_wrap)]
fn bytes(layout: Layout) -> i64 {
    layout.size() as i64
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Live {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(bytes(layout), Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(bytes(layout), Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(bytes(layout), Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    #[allow(clippy::cast_possible_wrap)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as i64 - bytes(layout), Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Live = Live;

const BASE: &str = "https://keys.example.com/elicit/";

#[derive(Clone)]
struct Keys {
    asking: AskConfig,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

impl ServerHandler for Keys {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = Asker::for_tool_call(&self.asking, &request, &context)?;
        respond(async {
            Ok(
                match asker
                    .url_flow("api_key", "Enter your Example Co. API key on our page.")
                    .await?
                {
                    FlowOutcome::Completed(_) => "connected".to_owned(),
                    other => format!("not connected: {other:?}"),
                },
            )
        })
        .await
    }
}

/// A user who agrees to open every page and leaves it for later: the URLs they were sent to.
#[derive(Clone, Default)]
struct User {
    urls: Arc<Mutex<Vec<String>>>,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::UrlElicitationParams { url, .. } = request {
            self.urls.lock().unwrap().push(url);
        }
        self.asked.fetch_add(1, Relaxed);
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(json!({ "elicitation": { "url": {} } })).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new("flow-memory", "0"));
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// Finishes the page at `url` as the page does once its sink answered.
fn finish(store: &MemoryFlowStore, url: &str) {
    let id = FlowId::parse(url.strip_prefix(BASE).unwrap()).unwrap();
    let now = UnixTime::now();
    if store.open_now(&id, "", "browser-1", now).is_err() {
        return; // finished already (the warm-up's)
    }
    let claim = store
        .claim_now(&id, "", "browser-1", Flow::DEFAULT_CLAIM_LEASE, now)
        .unwrap();
    store
        .finish_now(&claim, Ok(json!({ "ending": "4f2a" })), now)
        .unwrap();
}

async fn connect(
    revision: Revision,
    store: &MemoryFlowStore,
    user: User,
) -> Arc<RunningService<RoleClient, User>> {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let asking = AskConfig::single_user()
        .unwrap()
        .with_flows(flows)
        // Neither wait ends during the measurement.
        .with_timeout(Duration::from_secs(600))
        .with_page_wait(Duration::from_secs(600));
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = AskingService(Keys { asking }).serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = match revision {
        Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
        _ => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    Arc::new(
        user.serve_with_lifecycle(client_io, lifecycle)
            .await
            .unwrap(),
    )
}

/// Starts `n` calls (after one warm-up call), waits until all wait for their pages; returns the
/// live bytes per waiting call. Then finishes every page and checks every call connected.
async fn per_waiting_call(revision: Revision, n: usize) -> f64 {
    // One user holds every flow here: the per-user cap (64 by default) is raised to fit.
    let store = MemoryFlowStore::new().with_max_per_principal(n + 1);
    let user = User::default();
    let client = connect(revision, &store, user.clone()).await;
    let start = |client: Arc<RunningService<RoleClient, User>>| {
        tokio::spawn(async move {
            let result = client
                .call_tool(CallToolRequestParams::new("connect_api_key"))
                .await
                .unwrap();
            result.content[0].as_text().unwrap().text.clone()
        })
    };
    let settle = |asked: usize| {
        let user = user.clone();
        async move {
            while user.asked.load(Relaxed) < asked {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            // The accepts travel to the server and each call starts waiting (on 2026-07-28 the
            // retry: its state opened, its flow read).
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    };
    // Warm-up: one call to its end, so that what is allocated once is not counted.
    let warm = start(Arc::clone(&client));
    settle(1).await;
    finish(&store, &user.urls.lock().unwrap()[0]);
    assert_eq!(warm.await.unwrap(), "connected");
    tokio::time::sleep(Duration::from_millis(200)).await;

    let before = LIVE.load(Relaxed);
    let calls: Vec<_> = (0..n).map(|_| start(Arc::clone(&client))).collect();
    settle(n + 1).await;
    let after = LIVE.load(Relaxed);
    assert!(
        calls.iter().all(|call| !call.is_finished()),
        "every call waits"
    );

    for url in user.urls.lock().unwrap().iter() {
        finish(&store, url);
    }
    for call in calls {
        assert_eq!(
            call.await.unwrap(),
            "connected",
            "each call waited for its page"
        );
    }
    #[allow(clippy::cast_precision_loss)]
    let per = (after - before) as f64 / n as f64;
    per
}

fn main() {
    let n = std::env::var("FLOW_MEMORY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("live bytes per call waiting for its page, {n} calls each, both sides in process");
    runtime.block_on(async {
        for round in 1..=2 {
            let legacy = per_waiting_call(Revision::V2025_11_25, n).await;
            let retry = per_waiting_call(Revision::V2026_07_28, n).await;
            println!(
                "run {round}: 2025-11-25 url_flow {legacy:>8.0} B   2026-07-28 retry {retry:>8.0} B   ratio {:.2}",
                retry / legacy
            );
        }
    });
}
