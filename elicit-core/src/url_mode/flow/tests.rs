use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::url_mode::UrlOutcome;

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);
const LEASE: Duration = Duration::from_secs(30);

fn flow(principal: &str) -> Flow {
    let call = ParamsDigest::of(&json!({ "name": "connect" }));
    Flow::new(
        FlowId::random().unwrap(),
        "api_key",
        principal,
        call,
        "Enter your key.",
    )
    .expiring(NOW, Duration::from_secs(60))
    .unwrap()
}

/// The one rule every side asks of a principal (`AskConfig`, `HttpPrincipal`, the pages): empty
/// or only white space, Unicode's included, names no one; anything else names someone.
#[test]
fn a_principal_of_nothing_but_white_space_names_no_one() {
    for no_one in ["", " ", "\t\n", "\u{a0}", "\u{3000}", " \u{2028} "] {
        assert!(Flow::names_no_one(no_one), "{no_one:?}");
    }
    for someone in ["me", " me ", "-", "\u{200b}", "_"] {
        assert!(!Flow::names_no_one(someone), "{someone:?}");
    }
}

#[test]
fn a_flow_id_is_128_random_bits_and_reads_back_only_as_written() {
    let id = FlowId::random().unwrap();
    let text = id.to_string();
    assert_eq!(text.len(), 32);
    assert_eq!(FlowId::parse(&text), Ok(id));
    assert_ne!(FlowId::random().unwrap(), id);
    assert_eq!(id.elicitation_id().as_str(), text);
    // Every edit a person or a proxy might make is refused, not normalised.
    for edited in [
        text.to_uppercase(),
        format!("{text}0"),
        text[1..].to_owned(),
        format!(" {}", &text[1..]),
        format!("{}g", &text[..31]),
        format!("{}é", &text[..30]),
        String::new(),
    ] {
        assert_eq!(FlowId::parse(&edited), Err(InvalidFlowId), "{edited:?}");
    }
    // A log line shows enough to tell flows apart, not the id.
    assert!(!format!("{id:?}").contains(&text));
}

#[test]
fn only_the_owner_opens_and_the_first_browser_binds() {
    let store = MemoryFlowStore::new();
    let flow = flow("alice");
    let id = flow.id();
    store.begin_now(flow, NOW).unwrap();
    assert_eq!(
        store.open_now(&id, "mallory", "b1", NOW),
        Err(FlowError::WrongUser)
    );
    // The refusal changed nothing: the owner still opens it.
    assert_eq!(
        store.get_now(&id, NOW).unwrap().status(),
        &FlowStatus::Pending
    );
    let opened = store.open_now(&id, "alice", "b1", NOW).unwrap();
    assert_eq!(opened.status(), &FlowStatus::Opened);
    assert_eq!(opened.browser(), Some("b1"));
    // Opening again in the same browser (a reload) is fine; another browser is refused.
    assert!(store.open_now(&id, "alice", "b1", NOW).is_ok());
    assert_eq!(
        store.open_now(&id, "alice", "b2", NOW),
        Err(FlowError::OpenedElsewhere)
    );
    assert_eq!(
        store.claim_now(&id, "alice", "b2", LEASE, NOW),
        Err(FlowError::OpenedElsewhere)
    );
    assert_eq!(
        store.get_now(&id, NOW).unwrap().status(),
        &FlowStatus::Opened
    );
}

#[test]
fn a_flow_finishes_once_and_only_after_it_was_opened() {
    let store = MemoryFlowStore::new();
    let flow = flow("alice");
    let id = flow.id();
    store.begin_now(flow, NOW).unwrap();
    assert_eq!(
        store.claim_now(&id, "alice", "b1", LEASE, NOW),
        Err(FlowError::NotOpened)
    );
    store.open_now(&id, "alice", "b1", NOW).unwrap();
    assert_eq!(
        store.claim_now(&id, "mallory", "b1", LEASE, NOW),
        Err(FlowError::WrongUser)
    );
    let claim = store.claim_now(&id, "alice", "b1", LEASE, NOW).unwrap();
    store
        .finish_now(&claim, Err("the vault is down".into()), NOW)
        .unwrap();
    assert_eq!(
        store.finish_now(&claim, Ok(json!(1)), NOW),
        Err(FlowError::Finished)
    );
    assert_eq!(
        store.open_now(&id, "alice", "b1", NOW),
        Err(FlowError::Finished)
    );
    assert_eq!(
        store.get_now(&id, NOW).unwrap().status(),
        &FlowStatus::Failed("the vault is down".into())
    );
}

#[test]
fn an_expired_flow_can_be_read_as_expired_but_not_opened_or_finished() {
    let store = MemoryFlowStore::new();
    let flow = flow("alice");
    let id = flow.id();
    let later = UnixTime::from_secs(NOW.as_secs() + 60);
    store.begin_now(flow, NOW).unwrap();
    store.open_now(&id, "alice", "b1", NOW).unwrap();
    let claim = store.claim_now(&id, "alice", "b1", LEASE, NOW).unwrap();
    assert_eq!(
        store.get_now(&id, later).unwrap().status(),
        &FlowStatus::Expired
    );
    assert_eq!(
        store.open_now(&id, "alice", "b1", later),
        Err(FlowError::Expired)
    );
    assert_eq!(
        store.finish_now(&claim, Ok(json!(1)), later),
        Err(FlowError::Expired)
    );
    // Evicted by a later begin, it is unknown.
    store.begin_now(self::flow("bob"), later).unwrap();
    assert_eq!(store.get_now(&id, later), Err(FlowError::Unknown));
}

#[test]
fn the_store_refuses_new_flows_rather_than_forget_open_ones() {
    let store = MemoryFlowStore::new()
        .with_max_flows(3)
        .with_max_per_principal(2);
    store.begin_now(flow("alice"), NOW).unwrap();
    store.begin_now(flow("alice"), NOW).unwrap();
    assert_eq!(
        store.begin_now(flow("alice"), NOW),
        Err(FlowError::PrincipalFull { max: 2 })
    );
    // Bob still has his share.
    store.begin_now(flow("bob"), NOW).unwrap();
    assert_eq!(store.begin_now(flow("carol"), NOW), Err(FlowError::Full));
    let twice = flow("dave");
    let again = twice.clone();
    let store = MemoryFlowStore::new();
    store.begin_now(twice, NOW).unwrap();
    assert_eq!(store.begin_now(again, NOW), Err(FlowError::Exists));
}

#[test]
fn the_store_answers_unknown_ids_the_same_whoever_asks() {
    let store = MemoryFlowStore::new();
    let id = FlowId::random().unwrap();
    assert_eq!(store.get_now(&id, NOW), Err(FlowError::Unknown));
    assert_eq!(
        store.open_now(&id, "alice", "b1", NOW),
        Err(FlowError::Unknown)
    );
    assert_eq!(
        store.claim_now(&id, "alice", "b1", LEASE, NOW),
        Err(FlowError::Unknown)
    );
}

struct Count(std::sync::atomic::AtomicUsize);
impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn finishing_wakes_whoever_waits() {
    let store = MemoryFlowStore::new();
    // Expiring far from the real clock's now, which `finished` reads.
    let now = UnixTime::now();
    let flow = flow("alice")
        .expiring(now, Duration::from_secs(600))
        .unwrap();
    let id = flow.id();
    store.begin_now(flow, now).unwrap();
    let count = Arc::new(Count(0.into()));
    let waker = Waker::from(Arc::clone(&count));
    let mut context = Context::from_waker(&waker);
    let mut waiting = store.finished(&id);
    assert!(waiting.as_mut().poll(&mut context).is_pending());
    store.open_now(&id, "alice", "b1", now).unwrap();
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    let claim = store.claim_now(&id, "alice", "b1", LEASE, now).unwrap();
    store.finish_now(&claim, Ok(json!("done")), now).unwrap();
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    match waiting.as_mut().poll(&mut context) {
        Poll::Ready(Ok(flow)) => assert_eq!(flow.status(), &FlowStatus::Completed(json!("done"))),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_abandoned_flow_can_be_neither_opened_nor_finished() {
    let store = MemoryFlowStore::new();
    let flow = flow("alice");
    let id = flow.id();
    store.begin_now(flow, NOW).unwrap();
    store.open_now(&id, "alice", "b1", NOW).unwrap();
    let claim = store.claim_now(&id, "alice", "b1", LEASE, NOW).unwrap();
    // Only the owner's asking side ends it; a refusal changes nothing.
    assert_eq!(
        store.abandon_now(&id, "mallory", Abandonment::Declined, NOW),
        Err(FlowError::WrongUser)
    );
    assert_eq!(
        store.get_now(&id, NOW).unwrap().status(),
        &FlowStatus::Opened
    );
    let abandoned = store
        .abandon_now(&id, "alice", Abandonment::Declined, NOW)
        .unwrap();
    assert_eq!(
        abandoned.status(),
        &FlowStatus::Abandoned(Abandonment::Declined)
    );
    // The first reason stays.
    assert_eq!(
        store
            .abandon_now(&id, "alice", Abandonment::CallEnded, NOW)
            .unwrap()
            .status(),
        &FlowStatus::Abandoned(Abandonment::Declined)
    );
    assert_eq!(
        store.open_now(&id, "alice", "b1", NOW),
        Err(FlowError::Abandoned(Abandonment::Declined))
    );
    assert_eq!(
        store.finish_now(&claim, Ok(json!(1)), NOW),
        Err(FlowError::Abandoned(Abandonment::Declined))
    );
    assert_eq!(
        FlowOutcome::of(UrlOutcome::Accept, abandoned.status()),
        Some(FlowOutcome::Abandoned)
    );
    assert_eq!(
        store.abandon_now(
            &FlowId::random().unwrap(),
            "alice",
            Abandonment::Declined,
            NOW
        ),
        Err(FlowError::Unknown)
    );
}

#[test]
fn abandoning_leaves_a_flow_that_is_over_as_it_is() {
    let store = MemoryFlowStore::new();
    let finished = flow("alice");
    let id = finished.id();
    store.begin_now(finished, NOW).unwrap();
    store.open_now(&id, "alice", "b1", NOW).unwrap();
    let claim = store.claim_now(&id, "alice", "b1", LEASE, NOW).unwrap();
    store.finish_now(&claim, Ok(json!("stored")), NOW).unwrap();
    // The page finished as the call was given up: the call reads the result.
    assert_eq!(
        store
            .abandon_now(&id, "alice", Abandonment::CallEnded, NOW)
            .unwrap()
            .status(),
        &FlowStatus::Completed(json!("stored"))
    );
    let expired = flow("alice");
    let id = expired.id();
    store.begin_now(expired, NOW).unwrap();
    let later = UnixTime::from_secs(NOW.as_secs() + 60);
    assert_eq!(
        store
            .abandon_now(&id, "alice", Abandonment::CallEnded, later)
            .unwrap()
            .status(),
        &FlowStatus::Expired
    );
}

#[test]
fn abandoning_wakes_whoever_waits() {
    let store = MemoryFlowStore::new();
    let now = UnixTime::now();
    let flow = flow("alice")
        .expiring(now, Duration::from_secs(600))
        .unwrap();
    let id = flow.id();
    store.begin_now(flow, now).unwrap();
    let count = Arc::new(Count(0.into()));
    let waker = Waker::from(Arc::clone(&count));
    let mut context = Context::from_waker(&waker);
    let mut waiting = store.finished(&id);
    assert!(waiting.as_mut().poll(&mut context).is_pending());
    store
        .abandon_now(&id, "alice", Abandonment::Cancelled, now)
        .unwrap();
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    match waiting.as_mut().poll(&mut context) {
        Poll::Ready(Ok(flow)) => assert_eq!(
            flow.status(),
            &FlowStatus::Abandoned(Abandonment::Cancelled)
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_claim_finishes_only_its_own_flow_and_only_while_it_holds() {
    let opened = |flow: Flow| flow.opened("alice", "b1", NOW).unwrap();
    let one = opened(flow("alice"));
    let two = opened(flow("alice"));
    let claim_one = one.clone().claimed("alice", "b1", LEASE, NOW).unwrap();
    let claim_two = two.clone().claimed("alice", "b1", LEASE, NOW).unwrap();
    // Same number, another flow: refused.
    assert_eq!(claim_one.number(), claim_two.number());
    assert_eq!(
        claim_two
            .flow()
            .clone()
            .finished(&claim_one, Ok(json!(1)), NOW),
        Err(FlowError::ClaimLapsed)
    );
    // Its own flow, a second before it runs out: finished; at its end: refused.
    let until = claim_one.until();
    let almost = UnixTime::from_secs(until.as_secs() - 1);
    assert!(
        claim_one
            .flow()
            .clone()
            .finished(&claim_one, Ok(json!(1)), almost)
            .is_ok()
    );
    assert_eq!(
        claim_one
            .flow()
            .clone()
            .finished(&claim_one, Ok(json!(1)), until),
        Err(FlowError::ClaimLapsed)
    );
}
