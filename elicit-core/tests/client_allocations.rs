//! What a client's reader copies before it refuses: counted, through a counting allocator (a
//! test of behaviour, not of time). One test per binary thread: the count is per thread.

use elicit_core::client::{IncomingError, read_input_required};
use elicit_core::limits::MAX_INPUT_REQUESTS;
use serde_json::{Map, Value, json};

#[path = "common/counting.rs"]
mod counting;

use counting::allocations;

#[test]
fn too_many_input_requests_are_refused_before_any_is_copied() {
    let requests: Map<String, Value> = (0..100_000)
        .map(|i| (format!("k{i}"), json!({"method": "roots/list"})))
        .collect();
    let result = json!({"resultType": "input_required", "inputRequests": requests});
    let (read, allocated) = allocations(|| read_input_required(&result));
    assert_eq!(
        read.unwrap_err(),
        IncomingError::TooLarge {
            at: "inputRequests".to_owned(),
            what: "input requests",
            limit: MAX_INPUT_REQUESTS
        }
    );
    // The error's own text; a copy of the requests would be hundreds of thousands.
    assert!(allocated <= 4, "{allocated} allocations before the refusal");
}
