//! BENCHMARKS.md §11: the Redis commands of a URL flow's wait, as a 2026-07-28 retry that
//! accepted waits for the page (`Asker::url_flow` awaits `FlowStore::finished`; the retry's
//! keep-alive goes to the client, not to Redis). `N` flows, one waiter each, on one
//! `RedisFlowStore`; Redis's own `INFO commandstats` counts every command it ran, before the
//! waits, once they are all waiting, after `WAIT` seconds of waiting, and after the flows end.
//!
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo bench -p elicit-benches --features redis-bench --bench flow_wait`
//! (a Redis of its own: any other client's commands are counted too).

use std::time::Duration;

use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{Abandonment, Flow, FlowId, FlowStore, RedisFlowStore};

const N: usize = 100;
const WAIT: Duration = Duration::from_secs(10);

/// Every command Redis ran so far (the `calls` of each `cmdstat_` line).
async fn commands(admin: &mut redis::aio::MultiplexedConnection) -> u64 {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(admin)
        .await
        .expect("INFO commandstats");
    info.lines()
        .filter(|line| line.starts_with("cmdstat_"))
        .filter_map(|line| line.split("calls=").nth(1))
        .filter_map(|rest| rest.split(',').next()?.parse::<u64>().ok())
        .sum()
}

fn main() {
    let url = std::env::var("REDIS_URL").expect("REDIS_URL=redis://127.0.0.1:6379/");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let client = redis::Client::open(url).expect("a Redis URL");
        let mut admin = client
            .get_multiplexed_async_connection()
            .await
            .expect("Redis");
        let store = RedisFlowStore::new(client)
            .with_key_prefix("elicit-bench:flow-wait:")
            .with_max_per_principal(N);
        let now = UnixTime::now();
        let call = ParamsDigest::of(&serde_json::json!({ "name": "connect_api_key" }));
        let mut ids = Vec::new();
        for _ in 0..N {
            let flow = Flow::new(FlowId::random().unwrap(), "api_key", "bench", call, "Key?")
                .expiring(now, Duration::from_secs(600))
                .unwrap();
            ids.push(flow.id());
            store.begin(flow, now).await.expect("begin");
        }
        // Each `INFO` is counted by the next one: 1 is taken off each difference.
        let before = commands(&mut admin).await;
        let waiters: Vec<_> = ids
            .iter()
            .map(|id| {
                let (store, id) = (store.clone(), *id);
                tokio::spawn(async move { store.finished(&id).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let waiting = commands(&mut admin).await;
        tokio::time::sleep(WAIT).await;
        let waited = commands(&mut admin).await;
        for id in &ids {
            store
                .abandon(id, "bench", Abandonment::CallEnded, UnixTime::now())
                .await
                .expect("abandon");
        }
        for waiter in waiters {
            waiter.await.expect("a waiter").expect("woken with the flow");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let ended = commands(&mut admin).await;
        let per = |commands: u64| commands as f64 / N as f64;
        println!("{N} waits on one RedisFlowStore");
        println!(
            "  to start waiting:        {:.2} commands per wait",
            per(waiting - before - 1)
        );
        println!(
            "  while waiting {:>3} s:     {} commands in all",
            WAIT.as_secs(),
            waited - waiting - 1
        );
        println!(
            "  to end (the abandon's GET and EVAL, whose GET, SET and PUBLISH count too; the wake's GET; UNSUBSCRIBE): {:.2} commands per wait",
            per(ended - waited - 1)
        );
    });
}
