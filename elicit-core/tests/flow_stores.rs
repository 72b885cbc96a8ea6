//! The `FlowStore` contract, one set of cases run against every store: `MemoryFlowStore`
//! (always), and `RedisFlowStore` against a real Redis (ignored by default, so `cargo test`
//! passes on a machine without one; run with
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo test -p elicit-core --features redis --test flow_stores -- --include-ignored`).
//!
//! Each case gets two handles on the same flows, as two replicas of a server have: for the
//! memory store, two clones of one store; for Redis, two stores, each with its own connection.
//! After the shared cases, what only a store in another process has: a dropped waiter's
//! subscription, one connection for many waiters, and a Redis that is gone.
#![cfg(feature = "mrtr")]

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::time::{Duration, Instant};

use elicit_core::state::{ParamsDigest, UnixTime};
use elicit_core::url_mode::{Abandonment, Claim, Flow, FlowError, FlowId, FlowStatus, FlowStore};
use serde_json::{Value, json};
use tokio::sync::Barrier;
use tokio::task::JoinHandle;

/// Two replicas' handles on one set of flows.
struct Replicas {
    a: Arc<dyn FlowStore>,
    b: Arc<dyn FlowStore>,
}

const LEASE: Duration = Duration::from_secs(30);

/// A flow for `principal`, expiring ten minutes from the real clock's now (which `finished`
/// reads, and Redis expires keys by).
fn flow(principal: &str) -> Flow {
    let call = ParamsDigest::of(&json!({ "name": "connect" }));
    Flow::new(
        FlowId::random().unwrap(),
        "api_key",
        principal,
        call,
        "Enter your key.",
    )
    .expiring(UnixTime::now(), Duration::from_secs(600))
    .unwrap()
}

fn later(now: UnixTime, secs: u64) -> UnixTime {
    UnixTime::from_secs(now.as_secs() + secs)
}

/// A flow of Alice's begun on `store` now: its id, and that now.
async fn begun(store: &Arc<dyn FlowStore>) -> (FlowId, UnixTime) {
    let now = UnixTime::now();
    let flow = flow("alice");
    let id = flow.id();
    store.begin(flow, now).await.unwrap();
    (id, now)
}

/// A task that waits on `store` for flow `id` to end.
fn waiter(store: &Arc<dyn FlowStore>, id: FlowId) -> JoinHandle<Result<Flow, FlowError>> {
    let store = Arc::clone(store);
    tokio::spawn(async move { store.finished(&id).await })
}

/// The flow `waiter` was woken with, within 5 s.
async fn woken(waiter: JoinHandle<Result<Flow, FlowError>>) -> Flow {
    tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .expect("woken within 5 s")
        .unwrap()
        .unwrap()
}

/// Alice's claim on flow `id`, which she opens in browser `b1` first.
async fn claimed(store: &Arc<dyn FlowStore>, id: &FlowId, now: UnixTime) -> Claim {
    store.open(id, "alice", "b1", now).await.unwrap();
    store.claim(id, "alice", "b1", LEASE, now).await.unwrap()
}

async fn only_the_owner_opens_and_the_first_browser_binds(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    assert_eq!(
        b.open(&id, "mallory", "b1", now).await,
        Err(FlowError::WrongUser)
    );
    assert_eq!(
        b.get(&id, now).await.unwrap().status(),
        &FlowStatus::Pending
    );
    let opened = b.open(&id, "alice", "b1", now).await.unwrap();
    assert_eq!(opened.status(), &FlowStatus::Opened);
    assert_eq!(opened.browser(), Some("b1"));
    // A reload in the same browser, on either replica, is fine; another browser is refused.
    assert_eq!(a.open(&id, "alice", "b1", now).await, Ok(opened));
    assert_eq!(
        a.open(&id, "alice", "b2", now).await,
        Err(FlowError::OpenedElsewhere)
    );
    assert_eq!(
        a.claim(&id, "alice", "b2", LEASE, now).await,
        Err(FlowError::OpenedElsewhere)
    );
}

async fn a_flow_finishes_once_and_only_after_it_was_opened(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let now = UnixTime::now();
    let flow = flow("alice");
    let id = flow.id();
    a.begin(flow.clone(), now).await.unwrap();
    assert_eq!(b.begin(flow, now).await, Err(FlowError::Exists));
    assert_eq!(
        b.claim(&id, "alice", "b1", LEASE, now).await,
        Err(FlowError::NotOpened)
    );
    let claim = claimed(&a, &id, now).await;
    b.finish(&claim, Err("the vault is down".into()), now)
        .await
        .unwrap();
    assert_eq!(
        a.finish(&claim, Ok(json!(1)), now).await,
        Err(FlowError::Finished)
    );
    assert_eq!(
        a.get(&id, now).await.unwrap().status(),
        &FlowStatus::Failed("the vault is down".into())
    );
}

async fn an_expired_flow_is_read_as_expired_and_neither_opened_nor_finished(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let now = UnixTime::now();
    let flow = flow("alice");
    let id = flow.id();
    let expired = flow.expires_at();
    a.begin(flow, now).await.unwrap();
    let claim = claimed(&a, &id, now).await;
    assert_eq!(
        b.get(&id, expired).await.unwrap().status(),
        &FlowStatus::Expired
    );
    assert_eq!(
        b.open(&id, "alice", "b1", expired).await,
        Err(FlowError::Expired)
    );
    assert_eq!(
        b.claim(&id, "alice", "b1", LEASE, expired).await,
        Err(FlowError::Expired)
    );
    assert_eq!(
        b.finish(&claim, Ok(json!(1)), expired).await,
        Err(FlowError::Expired)
    );
    // Abandoning a flow that is over leaves it as it is.
    assert_eq!(
        b.abandon(&id, "alice", Abandonment::CallEnded, expired)
            .await
            .unwrap()
            .status(),
        &FlowStatus::Expired
    );
}

async fn unknown_ids_are_unknown_to_every_operation(replicas: Replicas) {
    let Replicas { a, .. } = replicas;
    let now = UnixTime::now();
    let id = FlowId::random().unwrap();
    assert_eq!(a.get(&id, now).await, Err(FlowError::Unknown));
    assert_eq!(
        a.open(&id, "alice", "b1", now).await,
        Err(FlowError::Unknown)
    );
    assert_eq!(
        a.claim(&id, "alice", "b1", LEASE, now).await,
        Err(FlowError::Unknown)
    );
    assert_eq!(
        a.abandon(&id, "alice", Abandonment::CallEnded, now).await,
        Err(FlowError::Unknown)
    );
    assert_eq!(a.finished(&id).await, Err(FlowError::Unknown));
}

async fn the_finished_value_reads_back_exactly_on_another_replica(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let claim = claimed(&a, &id, now).await;
    let receipt = json!({
        "stored": true, "last4": "4f2a", "n": [0, -1, 1.5, 1e300, 0.1, 18446744073709551615_u64],
        "név": "ß€😀 \"quoted\" \\ \u{0}", "nested": { "null": null, "empty": {}, "list": [] }
    });
    let finished = a.finish(&claim, Ok(receipt.clone()), now).await.unwrap();
    let read = b.get(&id, now).await.unwrap();
    assert_eq!(read, finished);
    assert_eq!(read.status(), &FlowStatus::Completed(receipt));
}

async fn of_many_finishes_of_one_flow_on_two_replicas_exactly_one_wins(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    // One claim, its finish sent 64 times at once (a retried request, on two replicas).
    let claim = claimed(&a, &id, now).await;
    let start = Arc::new(Barrier::new(64));
    let tasks: Vec<_> = (0..64)
        .map(|n| {
            let store = if n % 2 == 0 { a.clone() } else { b.clone() };
            let (start, claim) = (start.clone(), claim.clone());
            tokio::spawn(async move {
                start.wait().await;
                let result = store.finish(&claim, Ok(json!(n)), now).await;
                (n, result)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            (n, Ok(_)) => winners.push(n),
            (_, Err(FlowError::Finished)) => {}
            (_, other) => panic!("neither won nor refused as finished: {other:?}"),
        }
    }
    let [winner] = winners[..] else {
        panic!("not exactly one winner: {winners:?}");
    };
    // The flow holds the winner's value, whichever replica reads it.
    for store in [&a, &b] {
        assert_eq!(
            store.get(&id, now).await.unwrap().status(),
            &FlowStatus::Completed(json!(winner))
        );
    }
}

async fn of_many_claims_of_one_flow_on_two_replicas_one_holds_until_its_lease_runs_out(
    replicas: Replicas,
) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    // Only an opened flow is claimed, only by its owner, only in its browser.
    assert_eq!(
        a.claim(&id, "alice", "b1", LEASE, now).await,
        Err(FlowError::NotOpened)
    );
    a.open(&id, "alice", "b1", now).await.unwrap();
    assert_eq!(
        b.claim(&id, "mallory", "b1", LEASE, now).await,
        Err(FlowError::WrongUser)
    );
    assert_eq!(
        b.claim(&id, "alice", "b2", LEASE, now).await,
        Err(FlowError::OpenedElsewhere)
    );
    let start = Arc::new(Barrier::new(64));
    let tasks: Vec<_> = (0..64)
        .map(|n| {
            let store = if n % 2 == 0 { a.clone() } else { b.clone() };
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                store.claim(&id, "alice", "b1", LEASE, now).await
            })
        })
        .collect();
    let mut claimed = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(claim) => {
                assert_eq!(claim.until(), later(now, LEASE.as_secs()));
                assert_eq!(claim.flow().claimed_until(), Some(claim.until()));
                assert_eq!(claim.number(), 1);
                claimed += 1;
            }
            Err(FlowError::Claimed) => {}
            other => panic!("neither claimed nor refused as claimed: {other:?}"),
        }
    }
    assert_eq!(claimed, 1);
    // A claim is still open to a reload, and still held a second before its lease runs out.
    assert_eq!(
        a.open(&id, "alice", "b1", now).await.unwrap().status(),
        &FlowStatus::Opened
    );
    let almost = later(now, LEASE.as_secs() - 1);
    assert_eq!(
        b.claim(&id, "alice", "b1", LEASE, almost).await,
        Err(FlowError::Claimed)
    );
    // The replica that claimed died: once the lease ran out, the form may be sent again.
    let ran_out = later(now, LEASE.as_secs());
    let again = b.claim(&id, "alice", "b1", LEASE, ran_out).await.unwrap();
    assert_eq!(again.until(), later(ran_out, LEASE.as_secs()));
    assert_eq!(again.number(), 2);
    b.finish(&again, Ok(json!("stored")), ran_out)
        .await
        .unwrap();
    assert_eq!(
        a.claim(&id, "alice", "b1", LEASE, ran_out).await,
        Err(FlowError::Finished)
    );
}

/// A claim is a fencing token: only the flow's last claim, before it runs out, finishes the flow.
/// A submission whose sink outlived its claim is refused, whether or not another submission
/// claimed the flow since, and nothing it sent is written.
async fn a_claim_that_ran_out_cannot_finish_the_flow(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let first = claimed(&a, &id, now).await;
    let ran_out = later(now, LEASE.as_secs());
    // Ran out, and no one claimed since: still refused.
    assert_eq!(
        a.finish(&first, Ok(json!("late")), ran_out).await,
        Err(FlowError::ClaimLapsed)
    );
    // Another submission claims on the other replica; the first one's sink ends after: refused
    // on either replica, before or after its lease's end.
    let second = b.claim(&id, "alice", "b1", LEASE, ran_out).await.unwrap();
    assert_eq!(second.number(), first.number() + 1);
    for store in [&a, &b] {
        for at in [now, ran_out] {
            assert_eq!(
                store.finish(&first, Ok(json!("late")), at).await,
                Err(FlowError::ClaimLapsed)
            );
        }
    }
    assert_eq!(
        a.get(&id, ran_out).await.unwrap().status(),
        &FlowStatus::Opened
    );
    // The holder finishes.
    let done = b
        .finish(&second, Ok(json!("stored")), ran_out)
        .await
        .unwrap();
    assert_eq!(done.status(), &FlowStatus::Completed(json!("stored")));
    assert_eq!(
        a.finish(&second, Ok(json!("again")), ran_out).await,
        Err(FlowError::Finished)
    );
}

async fn a_waiter_on_one_replica_is_woken_by_a_finish_on_another(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let waiter = waiter(&a, id);
    // Let it subscribe and read the flow still open.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiter.is_finished());
    let claim = claimed(&b, &id, now).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !waiter.is_finished(),
        "opening and claiming are not finishing"
    );
    b.finish(&claim, Ok(json!("done")), now).await.unwrap();
    let woken = woken(waiter).await;
    assert_eq!(woken.status(), &FlowStatus::Completed(json!("done")));
}

async fn a_waiter_on_one_replica_is_woken_by_an_abandon_on_another(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    // Two waiters on the same replica, as a retry beside the first wait.
    let waiters: Vec<_> = (0..2).map(|_| waiter(&a, id)).collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    b.abandon(&id, "alice", Abandonment::Declined, now)
        .await
        .unwrap();
    for waiter in waiters {
        let woken = woken(waiter).await;
        assert_eq!(
            woken.status(),
            &FlowStatus::Abandoned(Abandonment::Declined)
        );
    }
    // The reason is kept with the flow, for the page on either replica to say.
    assert_eq!(
        a.open(&id, "alice", "b1", now).await,
        Err(FlowError::Abandoned(Abandonment::Declined))
    );
}

async fn a_waiter_for_a_flow_already_over_returns_at_once(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let claim = claimed(&a, &id, now).await;
    a.finish(&claim, Ok(Value::Null), now).await.unwrap();
    let read = tokio::time::timeout(Duration::from_secs(5), b.finished(&id))
        .await
        .expect("at once")
        .unwrap();
    assert_eq!(read.status(), &FlowStatus::Completed(Value::Null));
}

/// A sink that asks the user to try again releases its claim: the flow stays opened, a waiter
/// on the other replica is not woken, the next submission claims at once (its number counting
/// on), and a release under a claim that is no longer the flow's is refused as its finish would
/// be.
async fn a_released_claim_leaves_the_flow_open_for_the_next_submission(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let waiter = waiter(&a, id);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let first = claimed(&b, &id, now).await;
    // While the first claim holds, nobody else claims.
    assert_eq!(
        a.claim(&id, "alice", "b1", LEASE, now).await.err(),
        Some(FlowError::Claimed)
    );
    let released = b.release(&first, now).await.unwrap();
    assert_eq!(released.status(), &FlowStatus::Opened);
    assert_eq!(released.claimed_until(), None);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiter.is_finished(), "a release is not a finish");
    // The next submission claims at once, on the other replica.
    let second = a.claim(&id, "alice", "b1", LEASE, now).await.unwrap();
    assert_eq!(second.number(), first.number() + 1);
    // The first claim can neither release nor finish what the second holds.
    for store in [&a, &b] {
        assert_eq!(
            store.release(&first, now).await.err(),
            Some(FlowError::ClaimLapsed)
        );
        assert_eq!(
            store.finish(&first, Ok(json!("late")), now).await.err(),
            Some(FlowError::ClaimLapsed)
        );
    }
    // A release under a claim that ran out is refused too.
    assert_eq!(
        b.release(&second, later(now, LEASE.as_secs())).await.err(),
        Some(FlowError::ClaimLapsed)
    );
    a.finish(&second, Ok(json!("stored")), now).await.unwrap();
    let woken = woken(waiter).await;
    assert_eq!(woken.status(), &FlowStatus::Completed(json!("stored")));
    // Over: nothing to release.
    assert_eq!(
        b.release(&second, now).await.err(),
        Some(FlowError::Finished)
    );
}

/// A waker that counts its clones (its `Arc`'s strong count): what a store keeps of a waiting
/// task.
struct Counted;

impl Wake for Counted {
    fn wake(self: Arc<Self>) {}
}

/// Polls `waiting` with `waker` for half a second (a Redis store subscribes and reads first), so
/// that the store holds its waker when this returns; it is still waiting.
async fn poll_a_while(
    waiting: &mut Pin<Box<dyn Future<Output = Result<Flow, FlowError>> + Send + '_>>,
    waker: &Waker,
) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(500) {
        let polled = waiting.as_mut().poll(&mut Context::from_waker(waker));
        assert!(polled.is_pending(), "the flow is open: {polled:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A waiter that gives up (its future dropped while the flow is open, as a 2026-07-28 retry at
/// its `page_wait`) leaves nothing of itself in the store: its waker is given back at once,
/// even while another task still waits for the same flow (which is still woken).
async fn a_dropped_waiter_leaves_no_waker_behind(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let (id, now) = begun(&a).await;
    let other = waiter(&a, id);
    let counted = Arc::new(Counted);
    let waker = Waker::from(Arc::clone(&counted));
    let alone = Arc::strong_count(&counted);
    for _ in 0..3 {
        let mut waiting = a.finished(&id);
        poll_a_while(&mut waiting, &waker).await;
        assert!(
            Arc::strong_count(&counted) > alone,
            "the store holds the waiting task's waker"
        );
        drop(waiting);
        let start = Instant::now();
        while Arc::strong_count(&counted) != alone {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the dropped waiter's waker is still held ({} clones)",
                Arc::strong_count(&counted) - alone
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let claim = claimed(&b, &id, now).await;
    b.finish(&claim, Ok(json!("done")), now).await.unwrap();
    let woken = woken(other).await;
    assert_eq!(woken.status(), &FlowStatus::Completed(json!("done")));
}

/// One flow holds at most its store's bound of waiters (the default): one more does not wait
/// but is refused at once, naming the bound; a place given back (a waiter dropped) is taken
/// again; the waiters within the bound are all woken.
async fn a_flow_holds_at_most_its_bound_of_waiters(replicas: Replicas) {
    let Replicas { a, b } = replicas;
    let max = elicit_core::url_mode::MemoryFlowStore::DEFAULT_MAX_WAITERS_PER_FLOW;
    let (id, now) = begun(&a).await;
    let mut waiters: Vec<_> = (0..max).map(|_| waiter(&a, id)).collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let over = tokio::time::timeout(Duration::from_secs(5), a.finished(&id))
        .await
        .expect("one over the bound does not wait");
    assert_eq!(over.err(), Some(FlowError::TooManyWaiters { max }));
    // A place given back is taken again.
    waiters.pop().unwrap().abort();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = tokio::time::timeout(Duration::from_millis(300), a.finished(&id)).await;
    assert!(again.is_err(), "it waits: {again:?}");
    let claim = claimed(&b, &id, now).await;
    b.finish(&claim, Ok(json!(1)), now).await.unwrap();
    for waiter in waiters {
        let woken = woken(waiter).await;
        assert_eq!(woken.status(), &FlowStatus::Completed(json!(1)));
    }
}

/// The last eighth of the store's cap is kept for principals that hold fewer than four flows:
/// principals that fill their own caps stop at seven eighths of it, and a user with none (up
/// to four) still starts one there; past the whole cap, everyone is refused. Each store capped
/// at 16 in all (a reserve of 2) and 8 a principal, on two replicas.
async fn the_last_eighth_is_kept_for_principals_holding_few_flows(replicas: Replicas) {
    let now = UnixTime::now();
    for (n, principal) in ["mallory"; 8].into_iter().chain(["trudy"; 6]).enumerate() {
        let store = if n % 2 == 0 { &replicas.a } else { &replicas.b };
        store.begin(flow(principal), now).await.unwrap();
    }
    // Fourteen of sixteen: the reserve is not for trudy, who holds six, on either replica.
    for store in [&replicas.a, &replicas.b] {
        assert_eq!(store.begin(flow("trudy"), now).await, Err(FlowError::Full));
    }
    // Alice and bob hold none: they take the reserve.
    replicas.a.begin(flow("alice"), now).await.unwrap();
    replicas.b.begin(flow("bob"), now).await.unwrap();
    // The whole cap is the whole cap.
    assert_eq!(
        replicas.a.begin(flow("carol"), now).await,
        Err(FlowError::Full)
    );
}

/// Each case as a test for each store.
macro_rules! every_store {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let store = elicit_core::url_mode::MemoryFlowStore::new();
                    super::$case(super::Replicas {
                        a: std::sync::Arc::new(store.clone()),
                        b: std::sync::Arc::new(store),
                    })
                    .await;
                }
            )*
        }

        #[cfg(feature = "redis")]
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                #[ignore = "needs redis-server (REDIS_URL)"]
                async fn $case() {
                    let prefix = super::redis_only::prefix(stringify!($case));
                    super::$case(super::Replicas {
                        a: std::sync::Arc::new(super::redis_only::store(&prefix)),
                        b: std::sync::Arc::new(super::redis_only::store(&prefix)),
                    })
                    .await;
                }
            )*
        }
    };
}

every_store!(
    only_the_owner_opens_and_the_first_browser_binds,
    a_flow_finishes_once_and_only_after_it_was_opened,
    an_expired_flow_is_read_as_expired_and_neither_opened_nor_finished,
    unknown_ids_are_unknown_to_every_operation,
    the_finished_value_reads_back_exactly_on_another_replica,
    of_many_finishes_of_one_flow_on_two_replicas_exactly_one_wins,
    of_many_claims_of_one_flow_on_two_replicas_one_holds_until_its_lease_runs_out,
    a_claim_that_ran_out_cannot_finish_the_flow,
    a_waiter_on_one_replica_is_woken_by_a_finish_on_another,
    a_waiter_on_one_replica_is_woken_by_an_abandon_on_another,
    a_waiter_for_a_flow_already_over_returns_at_once,
    a_released_claim_leaves_the_flow_open_for_the_next_submission,
    a_dropped_waiter_leaves_no_waker_behind,
    a_flow_holds_at_most_its_bound_of_waiters,
);

/// [`the_last_eighth_is_kept_for_principals_holding_few_flows`] on the memory store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_keeps_the_last_eighth_for_principals_holding_few_flows() {
    let store = elicit_core::url_mode::MemoryFlowStore::new()
        .with_max_flows(16)
        .with_max_per_principal(8);
    the_last_eighth_is_kept_for_principals_holding_few_flows(Replicas {
        a: Arc::new(store.clone()),
        b: Arc::new(store),
    })
    .await;
}

/// [`the_last_eighth_is_kept_for_principals_holding_few_flows`] on Redis, two replicas.
#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server (REDIS_URL)"]
async fn redis_keeps_the_last_eighth_for_principals_holding_few_flows() {
    let prefix = redis_only::prefix("reserve");
    let store = || {
        redis_only::store(&prefix)
            .with_max_flows(16)
            .with_max_per_principal(8)
    };
    the_last_eighth_is_kept_for_principals_holding_few_flows(Replicas {
        a: Arc::new(store()),
        b: Arc::new(store()),
    })
    .await;
}

/// What only a store in another process has.
#[cfg(feature = "redis")]
mod redis_only {
    use std::process::{Child, Command, Stdio};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use elicit_core::state::UnixTime;
    use elicit_core::url_mode::{Abandonment, FlowError, FlowStatus, FlowStore, RedisFlowStore};
    use serde_json::json;

    use super::{LEASE, flow};

    fn url() -> String {
        std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into())
    }

    /// A prefix of its own for every test in every run, so runs never see each other's keys.
    pub(super) fn prefix(test: &str) -> String {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        format!("elicit-test:{}:{nanos}:{test}:", std::process::id())
    }

    pub(super) fn store(prefix: &str) -> RedisFlowStore {
        RedisFlowStore::new(redis::Client::open(url()).unwrap()).with_key_prefix(prefix)
    }

    async fn admin() -> redis::aio::MultiplexedConnection {
        redis::Client::open(url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .expect("Redis is reachable at REDIS_URL")
    }

    async fn subscribers(channel: &str) -> i64 {
        let reply: (String, i64) = redis::cmd("PUBSUB")
            .arg("NUMSUB")
            .arg(channel)
            .query_async(&mut admin().await)
            .await
            .unwrap();
        reply.1
    }

    /// Polls `check` for up to 5 s.
    async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
        let start = Instant::now();
        while !check().await {
            assert!(start.elapsed() < Duration::from_secs(5), "never: {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn a_waiter_dropped_before_the_flow_finishes_unsubscribes() {
        let prefix = prefix("dropped_waiter");
        let store: Arc<dyn FlowStore> = Arc::new(store(&prefix));
        let (id, now) = super::begun(&store).await;
        let channel = format!("{prefix}done:{id}");
        let waiters: Vec<_> = (0..2).map(|_| super::waiter(&store, id)).collect();
        // Two waiters of one store: one subscription.
        eventually("subscribed", async || subscribers(&channel).await == 1).await;
        let [first, second] = <[_; 2]>::try_from(waiters).unwrap();
        first.abort();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(subscribers(&channel).await, 1, "the other still waits");
        second.abort();
        eventually("unsubscribed", async || subscribers(&channel).await == 0).await;
        // Waiting again subscribes again, and a finish still wakes it.
        let waiter = super::waiter(&store, id);
        eventually("subscribed again", async || {
            subscribers(&channel).await == 1
        })
        .await;
        store.open(&id, "alice", "b1", now).await.unwrap();
        let claim = store.claim(&id, "alice", "b1", LEASE, now).await.unwrap();
        store.finish(&claim, Ok(json!(1)), now).await.unwrap();
        let woken = super::woken(waiter).await;
        assert_eq!(woken.status(), &FlowStatus::Completed(json!(1)));
        eventually("unsubscribed once woken", async || {
            subscribers(&channel).await == 0
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn a_thousand_waiting_flows_share_one_connection() {
        let prefix = prefix("one_connection");
        // One user's thousand flows: past the default cap of 64.
        let store = Arc::new(store(&prefix).with_max_per_principal(1000));
        let now = UnixTime::now();
        let mut waiters = Vec::new();
        for _ in 0..1000 {
            let flow = flow("alice");
            let id = flow.id();
            store.begin(flow, now).await.unwrap();
            let store = store.clone();
            waiters.push(tokio::spawn(async move { store.finished(&id).await }));
        }
        // One client of Redis holds all thousand subscriptions.
        eventually("a thousand subscriptions on one connection", async || {
            let clients: String = redis::cmd("CLIENT")
                .arg("LIST")
                .query_async(&mut admin().await)
                .await
                .unwrap();
            clients.lines().any(|client| client.contains(" sub=1000 "))
        })
        .await;
        waiters.iter().for_each(|waiter| waiter.abort());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn a_flow_that_expires_while_waited_for_resolves_expired() {
        let store = store(&prefix("expires_while_waited"));
        let now = UnixTime::now();
        let flow = flow("alice").expiring(now, Duration::from_secs(1)).unwrap();
        let id = flow.id();
        store.begin(flow, now).await.unwrap();
        let read = tokio::time::timeout(Duration::from_secs(5), store.finished(&id))
            .await
            .expect("resolved at its expiry")
            .unwrap();
        assert_eq!(read.status(), &FlowStatus::Expired);
    }

    /// One user cannot fill Redis for the others: each principal holds at most its cap of
    /// unexpired flows, counted across replicas and atomically with the write; the next is
    /// refused naming the cap, and nothing of it is written. Expired flows free their places.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn one_principal_fills_only_its_own_share_of_redis() {
        let prefix = prefix("principal_cap");
        let a: Arc<dyn FlowStore> = Arc::new(store(&prefix).with_max_per_principal(4));
        let b: Arc<dyn FlowStore> = Arc::new(store(&prefix).with_max_per_principal(4));
        let now = UnixTime::now();
        // Sixteen begins at once on two replicas: exactly four are kept.
        let flows: Vec<_> = (0..16).map(|_| flow("alice")).collect();
        let tasks: Vec<_> = flows
            .iter()
            .cloned()
            .enumerate()
            .map(|(n, flow)| {
                let store = if n % 2 == 0 { a.clone() } else { b.clone() };
                tokio::spawn(async move { store.begin(flow, now).await })
            })
            .collect();
        let mut kept = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(()) => kept += 1,
                Err(FlowError::PrincipalFull { max: 4 }) => {}
                other => panic!("neither kept nor refused naming the cap: {other:?}"),
            }
        }
        assert_eq!(kept, 4);
        let mut unknown = 0;
        for flow in &flows {
            if a.get(&flow.id(), now).await == Err(FlowError::Unknown) {
                unknown += 1;
            }
        }
        assert_eq!(unknown, 12, "a refused flow is not written");
        let refused = b.begin(flow("alice"), now).await.unwrap_err();
        assert_eq!(
            refused.to_string(),
            "too many steps are waiting to be finished for this user (at most 4): finish or let \
             one expire"
        );
        // Bob still has his share.
        b.begin(flow("bob"), now).await.unwrap();
        // A flow that expired frees its place.
        let expired = UnixTime::from_secs(flows[0].expires_at().as_secs());
        a.begin(flow("alice"), expired).await.unwrap();
    }

    /// Every operation of `store`, each refused as `Unavailable`: never success, never a panic.
    async fn every_operation_is_unavailable(store: &dyn FlowStore, flow: super::Flow) {
        let now = UnixTime::now();
        let id = flow.id();
        let unavailable = |result: Result<_, FlowError>| {
            assert!(
                matches!(result, Err(FlowError::Unavailable(_))),
                "{result:?}"
            );
        };
        // A claim on the same flow, made where one can be: to finish with.
        let elsewhere: Arc<dyn FlowStore> = Arc::new(elicit_core::url_mode::MemoryFlowStore::new());
        elsewhere.begin(flow.clone(), now).await.unwrap();
        let claim = super::claimed(&elsewhere, &id, now).await;
        unavailable(store.begin(flow, now).await.map(|()| None));
        unavailable(store.get(&id, now).await.map(Some));
        unavailable(store.open(&id, "alice", "b1", now).await.map(Some));
        unavailable(
            store
                .claim(&id, "alice", "b1", LEASE, now)
                .await
                .map(|claim| Some(claim.flow().clone())),
        );
        unavailable(store.finish(&claim, Ok(json!(1)), now).await.map(Some));
        unavailable(store.release(&claim, now).await.map(Some));
        unavailable(
            store
                .abandon(&id, "alice", Abandonment::CallEnded, now)
                .await
                .map(Some),
        );
        unavailable(store.finished(&id).await.map(Some));
    }

    /// A port nothing listens on.
    fn dead_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    #[tokio::test]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn with_redis_unreachable_every_operation_is_unavailable() {
        let store = RedisFlowStore::new(
            redis::Client::open(format!("redis://127.0.0.1:{}/", dead_port())).unwrap(),
        );
        every_operation_is_unavailable(&store, flow("alice")).await;
    }

    /// A `redis-server` of the test's own, on a free loopback port, killed when dropped.
    struct OwnRedis {
        child: Child,
        port: u16,
    }

    impl OwnRedis {
        async fn start() -> Self {
            let port = dead_port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server is installed");
            let own = Self { child, port };
            let client = redis::Client::open(own.url()).unwrap();
            eventually("redis-server is up", async || {
                client.get_multiplexed_async_connection().await.is_ok()
            })
            .await;
            own
        }

        fn url(&self) -> String {
            format!("redis://127.0.0.1:{}/", self.port)
        }

        fn kill(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    impl Drop for OwnRedis {
        fn drop(&mut self) {
            self.kill();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn when_redis_goes_away_waiters_and_every_operation_see_unavailable() {
        let mut redis = OwnRedis::start().await;
        let store: Arc<dyn FlowStore> = Arc::new(RedisFlowStore::new(
            redis::Client::open(redis.url()).unwrap(),
        ));
        let now = UnixTime::now();
        let flow = flow("alice");
        let id = flow.id();
        store.begin(flow.clone(), now).await.unwrap();
        store.open(&id, "alice", "b1", now).await.unwrap();
        let waiter = super::waiter(&store, id);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!waiter.is_finished());
        redis.kill();
        // The waiter hears the connection drop: it does not hang until the flow expires.
        let seen = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("told within 5 s")
            .unwrap();
        assert!(matches!(seen, Err(FlowError::Unavailable(_))), "{seen:?}");
        every_operation_is_unavailable(&*store, flow).await;
    }
}
