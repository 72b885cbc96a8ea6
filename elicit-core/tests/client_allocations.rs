//! What a client's reader copies before it refuses: counted, through a counting allocator (a
//! test of behaviour, not of time). One test per binary thread: the count is per thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use elicit_core::client::{IncomingError, read_input_required};
use elicit_core::limits::MAX_INPUT_REQUESTS;
use serde_json::{Map, Value, json};

/// Counts the allocations of the current thread, forwarding every call to `System`.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter left, and needs none.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (result, ALLOCATIONS.with(Cell::get) - before)
}

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
