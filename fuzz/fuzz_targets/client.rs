//! See `elicit_fuzz::client` for what this target checks.
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| elicit_fuzz::client(data));
