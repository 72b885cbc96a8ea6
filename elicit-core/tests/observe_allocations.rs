//! What counting an answer costs when no one counts: every reply read records its outcome
//! (`observe::answered`), so with no observer installed (and no `metrics` feature) it must copy
//! nothing, not even the client's label. Counted through a counting allocator (a test of
//! behaviour, not of time); the count is per thread. No test here installs an observer. With
//! `metrics` an answer is counted, label and all: nothing to test then.

#![cfg(not(feature = "metrics"))]

use elicit_core::observe::{self, ClientNames, Outcome};

#[path = "common/counting.rs"]
mod counting;

use counting::allocations;

/// With no observer and no `metrics`, recording an answer allocates nothing: outside any
/// client's scope, and inside one (whose outcome is still noted for the answer's timing).
#[test]
fn an_answer_no_one_counts_copies_nothing() {
    // The thread's first look-up sets its scope up: not the cost of an answer.
    observe::answered("Warm", Outcome::Accepted);
    let ((), outside) = allocations(|| observe::answered("DeployTarget", Outcome::Accepted));
    assert_eq!(outside, 0, "allocations outside a client's scope");

    let client = ClientNames::new(["cursor"]).label(Some("Cursor"));
    let ((), outcome) = observe::read_for_client(&client, || {
        let ((), inside) = allocations(|| observe::answered("DeployTarget", Outcome::Declined));
        assert_eq!(inside, 0, "allocations inside a client's scope");
    });
    assert_eq!(outcome, Some(Outcome::Declined));
}
