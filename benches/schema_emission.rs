//! Schema emission: the `elicitation/create` params of the same 8-field form, written as JSON.
//!
//! - `elicit`: `serde_json::to_writer(&mut buf, &Signup::form_request())` into a reused buffer
//!   (and `to_string`, which allocates the result);
//! - `rmcp from_type`: what an rmcp user writes: `ElicitationSchema::from_type::<T>()` (schemars)
//!   into `ElicitRequestParams::FormElicitationParams`, serialized into a reused buffer;
//! - `rmcp cached`: the same params built once and only serialized per call (a user caching the
//!   schema by hand);
//! - `floor`: copying the already-serialized text (a `&'static str`) into the reused buffer.
//!
//! Run: `cargo bench --bench schema_emission`.

mod common;

use common::forms::{Signup, SignupSerde};
use common::{Counting, case, compare, keep};
use mcp_elicit::Elicit;
use rmcp::model::{ElicitRequestParams, ElicitationSchema};

#[global_allocator]
static ALLOC: Counting = Counting;

fn rmcp_params() -> ElicitRequestParams {
    let schema = ElicitationSchema::from_type::<SignupSerde>().expect("schemars schema");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "Sign up for the beta: we need a way to reach you and what you want to try."
            .to_owned(),
        requested_schema: schema,
    }
}

fn main() {
    let ours = serde_json::to_string(&Signup::form_request()).expect("serializes");
    let theirs = serde_json::to_string(&rmcp_params()).expect("serializes");
    if std::env::var_os("BENCH_PRINT").is_some() {
        println!("elicit ({} bytes): {ours}", ours.len());
        println!("rmcp   ({} bytes): {theirs}", theirs.len());
    }
    // The floor copies the same text `elicit` writes.
    let floor: &'static str = Box::leak(ours.clone().into_boxed_str());

    let mut buf_ours = Vec::with_capacity(4096);
    let mut buf_string = String::new();
    let mut buf_rmcp = Vec::with_capacity(4096);
    let mut buf_cached = Vec::with_capacity(4096);
    let mut buf_floor = Vec::with_capacity(4096);
    let cached = rmcp_params();
    compare(
        "schema emission (8-field form, elicitation/create params)",
        vec![
            case("elicit to_writer (reused Vec)", || {
                buf_ours.clear();
                serde_json::to_writer(&mut buf_ours, &Signup::form_request()).unwrap();
                keep(&buf_ours);
            }),
            case("elicit to_string", || {
                buf_string = serde_json::to_string(&Signup::form_request()).unwrap();
                keep(&buf_string);
            }),
            case("rmcp from_type + serialize", || {
                buf_rmcp.clear();
                serde_json::to_writer(&mut buf_rmcp, &rmcp_params()).unwrap();
                keep(&buf_rmcp);
            }),
            case("rmcp cached params, serialize only", || {
                buf_cached.clear();
                serde_json::to_writer(&mut buf_cached, &cached).unwrap();
                keep(&buf_cached);
            }),
            case("floor: copy a &'static str", || {
                buf_floor.clear();
                buf_floor.extend_from_slice(std::hint::black_box(floor).as_bytes());
                keep(&buf_floor);
            }),
        ],
    );
}
