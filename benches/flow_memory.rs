//! Memory of a call waiting for its URL flow's page (BENCHMARKS.md §11, issue 33): a 2026-07-28
//! retry that accepted and waits for the page, against a 2025-11-25 `url_flow` whose client
//! accepted and that waits for the page, measured in one run.
//!
//! For each revision: a real rmcp client (its `call_tool` drives the 2026-07-28 rounds) and an
//! `AskingService` over an in-memory duplex, the flows in a `MemoryFlowStore`. One warm-up call
//! runs to its end; then `N` calls are started at once, each user accepts and never finishes the
//! page, and once every call is waiting the live bytes are read again. Per waiting call: the
//! difference over `N`. Then every page is finished through the store, and every call must answer
//! "connected": each was waiting, not ended.
//!
//! Server and client each run on a tokio runtime of their own (one worker each; the main thread
//! drives the client's side), and the global allocator counts each block for the side whose
//! thread allocated it: a thread-local tag, written into a header in front of the block, so a
//! block freed by the other side's thread is still taken off its owner's count. The bytes freed
//! across sides during the window are printed too. `FLOW_MEMORY_SIZES=1` also prints the server's
//! blocks held per waiting call, by size.
//!
//! `cargo bench -p elicit-benches --features load-bench --bench flow_memory`
//! (`FLOW_MEMORY_CALLS=<n>`, 500 by default.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
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

/// Which side a thread works for: its allocations are counted for that side.
const OTHER: usize = 0;
const SERVER: usize = 1;
const CLIENT: usize = 2;
const SIDES: [&str; 3] = ["other", "server", "client"];

thread_local! {
    // `const`, no destructor: reading it never allocates, also while the thread ends.
    static SIDE: Cell<usize> = const { Cell::new(OTHER) };
}

fn side() -> usize {
    SIDE.try_with(Cell::get).unwrap_or(OTHER)
}

/// Live bytes per side: allocated by that side's threads minus what of them was freed (by
/// whichever thread frees it: the owner is read from the block's header).
static LIVE: [AtomicI64; 3] = [AtomicI64::new(0), AtomicI64::new(0), AtomicI64::new(0)];
/// Bytes freed (or moved by `realloc`) by a thread of another side than the one that allocated
/// them: the frees a per-thread count would have put on the wrong side.
static CROSS: AtomicI64 = AtomicI64::new(0);

/// Live blocks of the server's by size (the last slot: every size above), for the diagnosis that
/// `FLOW_MEMORY_SIZES=1` prints: which blocks a waiting call holds, and which large blocks (the
/// tables and buffers shared by every call) grew.
const SIZES: usize = 1 << 20;
static SERVER_BLOCKS: [AtomicI64; SIZES + 1] = [const { AtomicI64::new(0) }; SIZES + 1];

fn count_block(owner: usize, size: usize, by: i64) {
    if owner == SERVER {
        SERVER_BLOCKS[size.min(SIZES)].fetch_add(by, Relaxed);
    }
}

/// Counts live bytes per side. Each block carries a header (`max(16, align)` bytes, not counted)
/// whose last word is the side that allocated it, so a free is taken off its owner's count
/// whichever thread frees it: the attribution is exact per block, by allocating thread.
struct Sided;

fn header(layout: Layout) -> usize {
    layout.align().max(16)
}

fn full(layout: Layout, size: usize) -> Layout {
    // SAFETY of the unwrap: the caller's layout was valid, the header is a multiple of its align.
    Layout::from_size_align(size + header(layout), header(layout)).unwrap()
}

#[allow(clippy::cast_possible_wrap)]
fn bytes(size: usize) -> i64 {
    size as i64
}

impl Sided {
    /// Tags the block at `base` and returns the caller's pointer after the header.
    unsafe fn tag(base: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        if base.is_null() {
            return base;
        }
        let owner = side();
        LIVE[owner].fetch_add(bytes(size), Relaxed);
        count_block(owner, size, 1);
        // SAFETY: `base` holds `header + size` bytes, the header is at least 16 and a multiple of
        // 8, so the word before the caller's pointer is inside the block and aligned.
        unsafe {
            let ptr = base.add(header(layout));
            ptr.cast::<usize>().sub(1).write(owner);
            ptr
        }
    }

    /// Takes a block off its owner's count; returns its base.
    unsafe fn untag(ptr: *mut u8, layout: Layout) -> *mut u8 {
        // SAFETY: `ptr` came from `tag`: the owner's word is just before it.
        let owner = unsafe { ptr.cast::<usize>().sub(1).read() };
        LIVE[owner].fetch_sub(bytes(layout.size()), Relaxed);
        count_block(owner, layout.size(), -1);
        if owner != side() {
            CROSS.fetch_add(bytes(layout.size()), Relaxed);
        }
        // SAFETY: the header is before `ptr` in the same block.
        unsafe { ptr.sub(header(layout)) }
    }
}

// SAFETY: every block is `System`'s with a header in front; the caller sees the same size and
// alignment it asked for.
unsafe impl GlobalAlloc for Sided {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: a non-zero size, a valid layout.
        unsafe {
            Self::tag(
                System.alloc(full(layout, layout.size())),
                layout,
                layout.size(),
            )
        }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            Self::tag(
                System.alloc_zeroed(full(layout, layout.size())),
                layout,
                layout.size(),
            )
        }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` and `layout` are the caller's block, allocated by `alloc`.
        unsafe { System.dealloc(Self::untag(ptr, layout), full(layout, layout.size())) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the old block is taken off its owner's count and moved with its header; the
        // new one is counted for the thread that grew it (the header's alignment is unchanged).
        unsafe {
            let base = Self::untag(ptr, layout);
            let moved =
                System.realloc(base, full(layout, layout.size()), new_size + header(layout));
            if moved.is_null() {
                // The old block stays the caller's: count it again, for its owner as before
                // (the header still names it).
                let owner = ptr.cast::<usize>().sub(1).read();
                LIVE[owner].fetch_add(bytes(layout.size()), Relaxed);
                count_block(owner, layout.size(), 1);
                return moved;
            }
            Self::tag(moved, layout, new_size)
        }
    }
}

#[global_allocator]
static ALLOCATOR: Sided = Sided;

fn live() -> [i64; 3] {
    [0, 1, 2].map(|side| LIVE[side].load(Relaxed))
}

/// The JSON length of the last `tools/call` params the server read.
static REQUEST_JSON: AtomicUsize = AtomicUsize::new(0);

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
        // The diagnosis (`FLOW_MEMORY_SIZES=1`): how large the request the call holds is.
        if let Ok(json) = serde_json::to_string(&request) {
            REQUEST_JSON.store(json.len(), Relaxed);
        }
        let mut asker = Asker::for_tool_call(&self.asking, &request, &context)?;
        // The asker keeps what it needs of the request and its context: a handler that may
        // wait for a page drops the rest (the retry's answers and state, the request's `_meta`
        // with the client's capabilities), as rmcp's `#[tool]` router does.
        drop((request, context));
        respond(async {
            Ok(
                match asker
                    .url_flow::<serde_json::Value>(
                        "api_key",
                        "Enter your Example Co. API key on our page.",
                    )
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

/// The one user every call asks ([`AskConfig::single_user`]): the only one who may open a flow.
const USER: &str = "me";

/// Finishes the page at `url` as the page does once its sink answered, signed in as [`USER`].
fn finish(store: &MemoryFlowStore, url: &str) {
    let id = FlowId::parse(url.strip_prefix(BASE).unwrap()).unwrap();
    let now = UnixTime::now();
    if store.open_now(&id, USER, "browser-1", now).is_err() {
        return; // finished already (the warm-up's)
    }
    let claim = store
        .claim_now(&id, USER, "browser-1", Flow::DEFAULT_CLAIM_LEASE, now)
        .unwrap();
    store
        .finish_now(&claim, Ok(json!({ "ending": "4f2a" })), now)
        .unwrap();
}

async fn connect(
    server: &tokio::runtime::Handle,
    revision: Revision,
    store: &MemoryFlowStore,
    user: User,
) -> Arc<RunningService<RoleClient, User>> {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let asking = AskConfig::single_user(USER)
        .unwrap()
        .with_flows(flows)
        // Neither wait ends during the measurement.
        .with_timeout(Duration::from_secs(600))
        .with_page_wait(Duration::from_secs(600));
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    // The server on its own runtime, whose threads count for the server.
    server.spawn(async move {
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

/// Per waiting call: live bytes of each side, and bytes freed across sides, over the window.
struct PerCall {
    live: [f64; 3],
    cross: f64,
    /// The server's blocks held per waiting call, by size: `(size, blocks per call)`.
    server_blocks: Vec<(usize, f64)>,
}

fn server_blocks() -> Vec<i64> {
    SERVER_BLOCKS
        .iter()
        .map(|count| count.load(Relaxed))
        .collect()
}

/// Starts `n` calls (after one warm-up call), waits until all wait for their pages; returns the
/// live bytes per waiting call of each side. Then finishes every page and checks every call
/// connected.
async fn per_waiting_call(
    server: &tokio::runtime::Handle,
    revision: Revision,
    n: usize,
) -> PerCall {
    // One user holds every flow here: the per-user cap (64 by default) is raised to fit.
    let store = MemoryFlowStore::new().with_max_per_principal(n + 1);
    let user = User::default();
    let client = connect(server, revision, &store, user.clone()).await;
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

    let blocks_before = server_blocks();
    let before = live();
    let cross_before = CROSS.load(Relaxed);
    // Ten calls every 20 ms, so that the server reads each burst as it comes: 500 requests
    // written at once would grow the transport's buffers to hold them all, a cost of one
    // connection's burst, not of a waiting call, and one that varies from run to run
    // (`FLOW_MEMORY_BURST=1` starts them all at once).
    let burst = std::env::var_os("FLOW_MEMORY_BURST").is_some();
    let mut calls = Vec::with_capacity(n);
    for i in 0..n {
        calls.push(start(Arc::clone(&client)));
        if i % 10 == 9 && !burst {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    settle(n + 1).await;
    let after = live();
    let blocks_after = server_blocks();
    let cross = CROSS.load(Relaxed) - cross_before;
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
    let per = |bytes: i64| bytes as f64 / n as f64;
    PerCall {
        live: [0, 1, 2].map(|side| per(after[side] - before[side])),
        cross: per(cross),
        server_blocks: (0..=SIZES)
            .filter(|&size| blocks_after[size] != blocks_before[size])
            .map(|size| (size, per(blocks_after[size] - blocks_before[size])))
            .collect(),
    }
}

/// A runtime of one worker whose threads (the worker and any blocking thread) count for `side`.
fn runtime(side: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(SIDES[side])
        .on_thread_start(move || SIDE.with(|tag| tag.set(side)))
        .enable_all()
        .build()
        .unwrap()
}

fn main() {
    let n = std::env::var("FLOW_MEMORY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500);
    // Client and server each on a runtime of its own, on threads of its own; the main thread
    // drives the client's side (`block_on`), so it counts for the client.
    let server = runtime(SERVER);
    let client = runtime(CLIENT);
    SIDE.with(|tag| tag.set(CLIENT));
    println!(
        "live bytes per call waiting for its page, {n} calls each; server and client on runtimes \
         of their own, each block counted for the side whose thread allocated it"
    );
    client.block_on(async {
        for round in 1..=2 {
            let legacy = per_waiting_call(server.handle(), Revision::V2025_11_25, n).await;
            let retry = per_waiting_call(server.handle(), Revision::V2026_07_28, n).await;
            for (name, side) in [("server", SERVER), ("client", CLIENT), ("other", OTHER)] {
                println!(
                    "run {round} {name:<6}: 2025-11-25 url_flow {:>8.0} B   2026-07-28 retry {:>8.0} B   ratio {:.2}",
                    legacy.live[side],
                    retry.live[side],
                    retry.live[side] / legacy.live[side]
                );
            }
            let total = |per: &PerCall| per.live.iter().sum::<f64>();
            println!(
                "run {round} total : 2025-11-25 url_flow {:>8.0} B   2026-07-28 retry {:>8.0} B   ratio {:.2}",
                total(&legacy),
                total(&retry),
                total(&retry) / total(&legacy)
            );
            println!(
                "run {round} freed across sides in the window, per call: 2025-11-25 {:.0} B, 2026-07-28 {:.0} B",
                legacy.cross, retry.cross
            );
            if std::env::var_os("FLOW_MEMORY_SIZES").is_some() {
                println!(
                    "size_of Round: {} B, Asker: {} B; last tools/call params: {} B of JSON",
                    std::mem::size_of::<mcp_elicit::mrtr::Round<'static, ()>>(),
                    std::mem::size_of::<Asker>(),
                    REQUEST_JSON.load(Relaxed)
                );
                for (name, per) in [("2025-11-25", &legacy), ("2026-07-28", &retry)] {
                    let held: Vec<_> = per
                        .server_blocks
                        .iter()
                        .filter(|(size, blocks)| blocks.abs() >= 0.5 || *size > 4096)
                        .map(|(size, blocks)| {
                            if *size > 4096 {
                                // A table or buffer of all the calls: how many, not per call.
                                #[allow(clippy::cast_precision_loss)]
                                let blocks = blocks * n as f64;
                                format!("{size}x{blocks:.0}(all)")
                            } else {
                                format!("{size}x{blocks:.2}")
                            }
                        })
                        .collect();
                    println!("run {round} server blocks per call, {name} (size x blocks): {}", held.join(" "));
                }
            }
        }
    });
}
