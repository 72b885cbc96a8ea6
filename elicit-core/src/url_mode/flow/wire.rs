//! A [`Flow`] as JSON, for a store that keeps flows outside the process: every field, so what is
//! read back is the flow that was written (`tests::a_flow_reads_back_as_written`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Abandonment, Flow, FlowId, FlowStatus};
use crate::state::{ParamsDigest, UnixTime};

/// The JSON of a flow: borrowed from the flow when written, owned when read.
#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    id: String,
    page: Cow<'a, str>,
    principal: Cow<'a, str>,
    call: String,
    message: Cow<'a, str>,
    expires_at: u64,
    status: Status<'a>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    browser: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claimed_until: Option<u64>,
    /// The number of the last claim (0, and left out, for none).
    #[serde(default, skip_serializing_if = "is_zero")]
    claims: u64,
    /// Why an abandoned flow was abandoned ([`Abandonment::as_str`]); left out for any other
    /// status. A flow written before reasons were kept reads as
    /// [`CallEnded`](Abandonment::CallEnded); an older replica reading this one ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    abandoned: Option<Cow<'a, str>>,
}

fn is_zero(claims: &u64) -> bool {
    *claims == 0
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status<'a> {
    Pending,
    Opened,
    Completed(Cow<'a, Value>),
    Failed(Cow<'a, str>),
    Expired,
    Abandoned,
}

/// `flow` as JSON.
pub(super) fn to_json(flow: &Flow) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Wire {
        id: flow.id.to_string(),
        page: Cow::Borrowed(&flow.page),
        principal: Cow::Borrowed(&flow.principal),
        call: hex(flow.call.as_bytes()),
        message: Cow::Borrowed(&flow.message),
        expires_at: flow.expires_at.as_secs(),
        status: match &flow.status {
            FlowStatus::Pending => Status::Pending,
            FlowStatus::Opened => Status::Opened,
            FlowStatus::Completed(value) => Status::Completed(Cow::Borrowed(value)),
            FlowStatus::Failed(why) => Status::Failed(Cow::Borrowed(why)),
            FlowStatus::Expired => Status::Expired,
            FlowStatus::Abandoned(_) => Status::Abandoned,
        },
        browser: flow.browser.as_deref().map(Cow::Borrowed),
        claimed_until: flow.claimed_until.map(UnixTime::as_secs),
        claims: flow.claims,
        abandoned: match flow.status {
            FlowStatus::Abandoned(why) => Some(Cow::Borrowed(why.as_str())),
            _ => None,
        },
    })
}

/// The flow `text` holds; `None` for anything this module did not write.
pub(super) fn from_json(text: &[u8]) -> Option<Flow> {
    let wire: Wire = serde_json::from_slice(text).ok()?;
    let mut call = [0u8; ParamsDigest::LEN];
    unhex(&wire.call, &mut call)?;
    Some(Flow {
        id: FlowId::parse(&wire.id).ok()?,
        page: wire.page.into(),
        principal: wire.principal.into(),
        call: ParamsDigest::from_bytes(call),
        message: wire.message.into(),
        expires_at: UnixTime::from_secs(wire.expires_at),
        status: match wire.status {
            Status::Pending => FlowStatus::Pending,
            Status::Opened => FlowStatus::Opened,
            Status::Completed(value) => FlowStatus::Completed(value.into_owned()),
            Status::Failed(why) => FlowStatus::Failed(why.into_owned()),
            Status::Expired => FlowStatus::Expired,
            Status::Abandoned => FlowStatus::Abandoned(match wire.abandoned.as_deref() {
                None => Abandonment::CallEnded,
                Some(why) => Abandonment::parse(why)?,
            }),
        },
        browser: wire.browser.map(Into::into),
        claimed_until: wire.claimed_until.map(UnixTime::from_secs),
        claims: wire.claims,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str, out: &mut [u8]) -> Option<()> {
    if text.len() != out.len() * 2 {
        return None;
    }
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    #[test]
    fn a_flow_reads_back_as_written() {
        let now = UnixTime::from_secs(1_800_000_000);
        let call = ParamsDigest::of(&json!({ "name": "connect", "arguments": { "x": 1 } }));
        let pending = Flow::new(
            FlowId::random().unwrap(),
            "api_key",
            "user-8f3a",
            call,
            "Key?",
        )
        .expiring(now, Duration::from_secs(60))
        .unwrap();
        let opened = pending.clone().opened("user-8f3a", "b1", now).unwrap();
        let claim = opened
            .clone()
            .claimed("user-8f3a", "b1", Duration::from_secs(30), now)
            .unwrap();
        let claimed = claim.flow().clone();
        // Every kind of JSON a receipt may hold, floats and non-ASCII text among them.
        let receipt = json!({
            "stored": true, "last4": "4f2a", "n": [0, -1, 1.5, 1e300, 0.1], "név": "ß€😀",
            "nested": { "null": null, "empty": {} }
        });
        let completed = claimed.clone().finished(&claim, Ok(receipt), now).unwrap();
        let failed = claimed
            .clone()
            .finished(&claim, Err("the vault is down".into()), now)
            .unwrap();
        let abandoned = [
            Abandonment::Declined,
            Abandonment::Dismissed,
            Abandonment::Cancelled,
            Abandonment::CallEnded,
        ]
        .map(|why| pending.clone().abandoned("user-8f3a", why, now).unwrap());
        let flows = [pending, opened, claimed, completed, failed];
        for flow in flows.into_iter().chain(abandoned) {
            let text = to_json(&flow).unwrap();
            assert_eq!(from_json(text.as_bytes()), Some(flow), "{text}");
        }
    }

    /// A rolling upgrade: a replica that kept no reasons wrote `"abandoned"` alone.
    #[test]
    fn an_abandoned_flow_written_without_a_reason_reads_as_a_call_that_ended() {
        let now = UnixTime::from_secs(1_800_000_000);
        let call = ParamsDigest::of(&json!({ "name": "connect" }));
        let flow = Flow::new(FlowId::random().unwrap(), "api_key", "u", call, "Key?")
            .expiring(now, Duration::from_secs(60))
            .unwrap()
            .abandoned("u", Abandonment::Declined, now)
            .unwrap();
        let mut old: Value = serde_json::from_str(&to_json(&flow).unwrap()).unwrap();
        assert_eq!(old["abandoned"], "declined");
        old.as_object_mut().unwrap().remove("abandoned");
        let read = from_json(old.to_string().as_bytes()).unwrap();
        assert_eq!(
            read.status(),
            &FlowStatus::Abandoned(Abandonment::CallEnded)
        );
        old["abandoned"] = json!("bored");
        assert_eq!(from_json(old.to_string().as_bytes()), None);
    }

    #[test]
    fn text_this_module_did_not_write_is_no_flow() {
        for text in [&b""[..], b"null", b"{}", b"{\"id\":\"00\"}", b"\xff"] {
            assert_eq!(from_json(text), None);
        }
    }
}
