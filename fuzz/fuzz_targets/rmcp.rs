//! See `elicit_fuzz::rmcp` for what this target checks.
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elicit_fuzz::rmcp(data));
