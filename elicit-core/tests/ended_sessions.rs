//! The pages' browser sessions signed out before they expired (`FlowStore::end_session`), kept
//! in the flows' store until they would have expired: seen by every replica sharing the store,
//! and by a store opened anew (Redis: a restart), and bounded.
//!
//! The Redis cases are ignored unless asked for (a `redis-server`, `REDIS_URL`:
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo test -p elicit-core --features redis --test ended_sessions -- --include-ignored`).
#![cfg(feature = "mrtr")]

use std::sync::Arc;

use elicit_core::state::{StateId, UnixTime};
use elicit_core::url_mode::{FlowError, FlowStore, MemoryFlowStore};

fn later(now: UnixTime, secs: u64) -> UnixTime {
    UnixTime::from_secs(now.as_secs() + secs)
}

fn session(byte: u8) -> StateId {
    StateId::from_bytes([byte; StateId::LEN])
}

/// Ended on one handle (a replica, or the store before a restart), ended on the other until it
/// would have expired, and not a moment longer; another session is not ended; one that has
/// expired already is not kept.
async fn a_signed_out_session_is_ended_everywhere_until_it_would_have_expired(
    a: Arc<dyn FlowStore>,
    b: Arc<dyn FlowStore>,
) {
    let now = UnixTime::now();
    let (ended, other, stale) = (session(1), session(2), session(3));
    assert!(!b.session_ended(&ended, now).await.unwrap());
    a.end_session(&ended, "alice", later(now, 100), now)
        .await
        .unwrap();
    assert!(b.session_ended(&ended, now).await.unwrap());
    assert!(b.session_ended(&ended, later(now, 99)).await.unwrap());
    assert!(!b.session_ended(&ended, later(now, 100)).await.unwrap());
    assert!(!b.session_ended(&other, now).await.unwrap());
    // Ended twice: still ended, no error.
    b.end_session(&ended, "alice", later(now, 100), now)
        .await
        .unwrap();
    assert!(a.session_ended(&ended, now).await.unwrap());
    a.end_session(&stale, "alice", now, now).await.unwrap();
    assert!(!b.session_ended(&stale, now).await.unwrap());
}

#[tokio::test]
async fn memory_a_signed_out_session_is_ended_everywhere_until_it_would_have_expired() {
    let store = MemoryFlowStore::new();
    a_signed_out_session_is_ended_everywhere_until_it_would_have_expired(
        Arc::new(store.clone()),
        Arc::new(store),
    )
    .await;
}

/// The memory a signed-out list takes is bounded: one principal keeps at most
/// `MAX_ENDED_SESSIONS_PER_PRINCIPAL` (the next sign-out refused, another principal's taken),
/// the store at most `max_ended_sessions`; those expired are forgotten, and make room again.
#[test]
fn signed_out_sessions_are_bounded_per_principal_and_in_all() {
    let now = UnixTime::now();
    let until = later(now, 100);
    let most = MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL;
    assert_eq!(most, 64);
    let store = MemoryFlowStore::new();
    for byte in 0..u8::try_from(most).unwrap() {
        store
            .end_session_now(&session(byte), "alice", until, now)
            .unwrap();
    }
    let refused = store.end_session_now(&session(200), "alice", until, now);
    assert!(
        matches!(&refused, Err(FlowError::Unavailable(why)) if why.contains("64 sessions")),
        "{refused:?}"
    );
    assert!(!store.session_ended_now(&session(200), now));
    store
        .end_session_now(&session(201), "bob", until, now)
        .unwrap();
    // Once alice's would have expired, they are forgotten, and she may sign out again.
    let after = later(now, 100);
    store
        .end_session_now(&session(200), "alice", later(after, 100), after)
        .unwrap();

    let small = MemoryFlowStore::new().with_max_ended_sessions(3);
    for (byte, who) in [(1, "a"), (2, "b"), (3, "c")] {
        small
            .end_session_now(&session(byte), who, until, now)
            .unwrap();
    }
    let refused = small.end_session_now(&session(4), "d", until, now);
    assert!(
        matches!(&refused, Err(FlowError::Unavailable(why)) if why.contains("3 signed-out")),
        "{refused:?}"
    );
    small
        .end_session_now(&session(4), "d", later(after, 100), after)
        .unwrap();
}

#[cfg(feature = "redis")]
mod redis {
    use std::sync::Arc;

    use elicit_core::url_mode::RedisFlowStore;

    fn store(prefix: &str) -> RedisFlowStore {
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into());
        RedisFlowStore::new(redis::Client::open(url).unwrap()).with_key_prefix(prefix)
    }

    /// Two stores, each with its own connection (two replicas; or one store, and the same
    /// store opened again after a restart).
    #[tokio::test]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn redis_a_signed_out_session_is_ended_everywhere_until_it_would_have_expired() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let prefix = format!("elicit-test:{}:{nanos}:ended:", std::process::id());
        super::a_signed_out_session_is_ended_everywhere_until_it_would_have_expired(
            Arc::new(store(&prefix)),
            Arc::new(store(&prefix)),
        )
        .await;
    }

    /// One principal keeps at most `MAX_ENDED_SESSIONS_PER_PRINCIPAL` in Redis too.
    #[tokio::test]
    #[ignore = "needs redis-server (REDIS_URL)"]
    async fn redis_signed_out_sessions_are_bounded_per_principal() {
        use elicit_core::state::UnixTime;
        use elicit_core::url_mode::{FlowError, FlowStore, MemoryFlowStore};
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let store = store(&format!(
            "elicit-test:{}:{nanos}:ended-cap:",
            std::process::id()
        ));
        let now = UnixTime::now();
        let until = super::later(now, 100);
        let most = u8::try_from(MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL).unwrap();
        for byte in 0..most {
            store
                .end_session(&super::session(byte), "alice", until, now)
                .await
                .unwrap();
        }
        let refused = store
            .end_session(&super::session(200), "alice", until, now)
            .await;
        assert!(
            matches!(&refused, Err(FlowError::Unavailable(why)) if why.contains("64 sessions")),
            "{refused:?}"
        );
        assert!(
            !store
                .session_ended(&super::session(200), now)
                .await
                .unwrap()
        );
        store
            .end_session(&super::session(201), "bob", until, now)
            .await
            .unwrap();
    }
}
