//! `StateKeys::from_env` and `Rounds::from_env`: keys from an environment variable.
//!
//! Changing the environment while another thread reads it is undefined behaviour on some
//! platforms, so every test here holds `ENV` while it sets, reads or removes a variable, and
//! nothing else in this test binary touches the environment.

use std::sync::{Mutex, MutexGuard};

use elicit_core::mrtr::Rounds;
use elicit_core::state::{HexKeyReason, KeyError, KeyId, KeyListReason, StateKeys};

static ENV: Mutex<()> = Mutex::new(());

const NEW: &str = "b7c1e04f9a2d8365b7c1e04f9a2d8365b7c1e04f9a2d8365b7c1e04f9a2d8365";
const OLD: &str = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";

/// Runs `test` with `var` set to `value` (or unset for `None`), then removes `var`.
fn with_var<T>(var: &str, value: Option<&std::ffi::OsStr>, test: impl FnOnce() -> T) -> T {
    let _env: MutexGuard<'_, ()> = ENV.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // SAFETY: `ENV` is held, and no other code in this binary reads or writes the environment.
    unsafe {
        match value {
            Some(value) => std::env::set_var(var, value),
            None => std::env::remove_var(var),
        }
    }
    let result = test();
    // SAFETY: as above.
    unsafe { std::env::remove_var(var) };
    result
}

#[test]
fn from_env_parses_the_variable_as_a_key_list() {
    let list = format!("2:{NEW},\n1:{OLD}\n");
    let keys = with_var("ELICIT_TEST_KEYS_LIST", Some(list.as_ref()), || {
        StateKeys::from_env("ELICIT_TEST_KEYS_LIST")
    })
    .expect("keys");
    assert_eq!(
        keys.key_ids().collect::<Vec<_>>(),
        [KeyId::new(2), KeyId::new(1)]
    );
}

#[test]
fn from_env_names_a_variable_that_is_not_set() {
    let error = with_var("ELICIT_TEST_KEYS_UNSET", None, || {
        StateKeys::from_env("ELICIT_TEST_KEYS_UNSET")
    })
    .unwrap_err();
    assert_eq!(
        error,
        KeyError::EnvVarNotSet {
            var: "ELICIT_TEST_KEYS_UNSET".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "environment variable `ELICIT_TEST_KEYS_UNSET` is not set; it must hold the state keys \
         as `<key id>:<64 hex digits>[,<key id>:<64 hex digits>...]`"
    );
}

#[cfg(unix)]
#[test]
fn from_env_names_a_variable_that_is_not_unicode() {
    use std::os::unix::ffi::OsStrExt;

    let value = [b"1:".as_slice(), &[0xff; 64]].concat();
    let error = with_var(
        "ELICIT_TEST_KEYS_NOT_UNICODE",
        Some(std::ffi::OsStr::from_bytes(&value)),
        || StateKeys::from_env("ELICIT_TEST_KEYS_NOT_UNICODE"),
    )
    .unwrap_err();
    assert_eq!(
        error,
        KeyError::EnvVarNotUnicode {
            var: "ELICIT_TEST_KEYS_NOT_UNICODE".into()
        }
    );
}

#[test]
fn from_env_reports_a_malformed_list_without_repeating_it() {
    let list = format!("2:{NEW},1:{}", &OLD[..60]);
    let error = with_var("ELICIT_TEST_KEYS_SHORT", Some(list.as_ref()), || {
        StateKeys::from_env("ELICIT_TEST_KEYS_SHORT")
    })
    .unwrap_err();
    assert_eq!(
        error,
        KeyError::MalformedKeyList {
            item: 2,
            reason: KeyListReason::Key(HexKeyReason::WrongLength { found: 60 })
        }
    );
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains("a1a1") && !shown.contains("b7c1"),
        "{shown}"
    );
}

#[test]
fn an_empty_variable_has_no_keys() {
    let error = with_var("ELICIT_TEST_KEYS_EMPTY", Some("".as_ref()), || {
        StateKeys::from_env("ELICIT_TEST_KEYS_EMPTY")
    })
    .unwrap_err();
    assert_eq!(error, KeyError::NoKeys);
}

#[test]
fn rounds_from_env_seal_with_the_first_key() {
    let list = format!("7:{NEW}");
    let rounds = with_var("ELICIT_TEST_KEYS_ROUNDS", Some(list.as_ref()), || {
        Rounds::from_env("ELICIT_TEST_KEYS_ROUNDS")
    })
    .expect("rounds");
    assert_eq!(rounds.keys().primary_key_id(), KeyId::new(7));
    assert_eq!(rounds.ttl(), Rounds::DEFAULT_TTL);

    let unset = with_var("ELICIT_TEST_KEYS_ROUNDS_UNSET", None, || {
        Rounds::from_env("ELICIT_TEST_KEYS_ROUNDS_UNSET")
    })
    .unwrap_err();
    assert_eq!(
        unset,
        KeyError::EnvVarNotSet {
            var: "ELICIT_TEST_KEYS_ROUNDS_UNSET".into()
        }
    );
}

#[test]
fn generated_rounds_have_one_key() {
    let rounds = Rounds::generate().expect("randomness");
    assert_eq!(rounds.keys().key_ids().count(), 1);
}
