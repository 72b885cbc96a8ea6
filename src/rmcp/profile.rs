//! [`Profile`]: the hosts a server's users run, each scripted in the test kit by one documented
//! rule, and [`Pace`]: how fast the kit's user answers.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::client::Incoming;
use crate::schema::PropertyKind;
use crate::{Mode, Revision};

/// How long the kit's user takes to answer a request: `floor`, plus `per_field` for each field
/// of a form. The [`TestKit`](super::TestKit) waits that long, on tokio's clock, before it sends the answer (no
/// time at all on the paused clock of `#[tokio::test(start_paused = true)]`). This is the kit's
/// only lever on speed: the library has no switch that takes a fast answer for a person's.
///
/// A consent accepted faster than the server's [`TooFast`](crate::observe::TooFast) threshold
/// is not taken as the user's ([`Stop::AutomaticConsent`](super::Stop)): a test whose user
/// consents answers at [`PERSON`](Pace::PERSON), as a person would. On 2026-07-28 the time is
/// the wall clock's, sealed in the round's state, which a paused clock does not move: such a
/// test runs on the real clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    floor: Duration,
    per_field: Duration,
}

impl Pace {
    /// At once: a script, a hook, an auto-approver. The kit's default.
    pub const INSTANT: Pace = Pace::new(Duration::ZERO, Duration::ZERO);

    /// A person: 3 s to read a request, plus 2 s a field. Slower than the library's default
    /// threshold for a person ([`TooFast::DEFAULT`](crate::observe::TooFast::DEFAULT): 1 s plus
    /// 250 ms a field), as people are.
    pub const PERSON: Pace = Pace::new(Duration::from_secs(3), Duration::from_secs(2));

    /// `floor`, plus `per_field` for each field of a form.
    pub const fn new(floor: Duration, per_field: Duration) -> Self {
        Self { floor, per_field }
    }

    /// How long an answer to `request` takes.
    pub fn time(&self, request: &Incoming) -> Duration {
        let fields = match request {
            Incoming::Form(form) => form.schema().properties().len(),
            Incoming::Url(_) => 0,
        };
        let fields = u32::try_from(fields).unwrap_or(u32::MAX);
        self.floor
            .saturating_add(self.per_field.saturating_mul(fields))
    }
}

impl Default for Pace {
    fn default() -> Self {
        Pace::INSTANT
    }
}

/// A host a server's users run, scripted in the [`TestKit`](super::TestKit): the revision and elicitation
/// modes that host declares, and one rule for how it meets a request, taken from that host's
/// public tracker or source ([`source`](Profile::source)). A behaviour with no public source is
/// left out. [`kit`](Profile::kit) is a kit that connects as that host, with a person answering
/// at [`Pace::PERSON`] and a wait that outlasts the server's default timeout (10 minutes); its
/// rules act on what your [`Scripted`](crate::client::Scripted) user answers.
///
/// Run a tool against every profile and assert, per profile, what it should do there: finish,
/// fail legibly, or never act without a person. The guide [`hosts`](super::hosts) shows the
/// loop and what each host does; `examples/rmcp/tests/kit.rs` (`book_table_in_every_host`) and
/// `examples/rmcp/tests/api_key_hosts.rs` run it. Use tokio's paused clock
/// (`#[tokio::test(start_paused = true)]`), where the person's pace and the kit's wait take no
/// time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// A host that does what the revision's elicitation page says: it declares every mode the
    /// revision has (form; URL from 2025-11-25), shows each request to the person, and sends
    /// their answer. Source: `/specification/<revision>/client/elicitation` on
    /// modelcontextprotocol.io.
    WellBehaved(Revision),
    /// Claude Code 2.1.337 (`clientInfo` `claude-code`): 2026-07-28, declaring form and URL
    /// mode. The person answers forms, and a URL question ("wants to open a URL": Open in
    /// browser / I'm done, continue / Decline); "I'm done" sends `accept` without content.
    /// Source: run in CI against 2.1.337 (`tests/hosts/test_coding_hosts.py`); the host table's
    /// `claude-code` row.
    ClaudeCode,
    /// Claude Code's print mode (`claude -p`, `clientInfo` `claude-code`), with no
    /// `Elicitation` hook: 2026-07-28, form and URL declared, and every question cancelled at
    /// once, by no person. Source: run in CI against 2.1.337 (`tests/hosts/test_coding_hosts.py`,
    /// `print_mode_cancels`).
    ClaudeCodePrint,
    /// Claude Code with an `Elicitation` hook that answers every form itself, at once, with the
    /// content it was written to give (your script's answers), and no person. Source:
    /// <https://github.com/anthropics/claude-code/issues/38755> (a hook answering
    /// `{"action": "accept", "content": ..}`), taken from that tracker; seen by hand against
    /// 2.1.337 (issue 42, item 7: `drop_table` accepted 1.0 s after the form appeared), not in
    /// CI.
    ClaudeCodeHook,
    /// VS Code: 2025-11-25, form and URL mode; the person answers each request (a URL request's
    /// accept means they agreed to open the page; VS Code then waits for
    /// `notifications/elicitation/complete`, and offers Retry). Source:
    /// <https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1819> (by VS Code's
    /// MCP maintainer), taken from that tracker, which names no version; not run here.
    VsCode,
    /// Cursor: declares form mode on 2025-11-25 and silently drops every `elicitation/create`
    /// from a stdio server: no UI, no error, and no answer ever comes. Source:
    /// <https://github.com/gleanwork/glean-plugins-vnext/pull/39> (Cursor 3.10.20, verified
    /// against Cursor's own bundle there), taken from that tracker; not run here.
    Cursor,
    /// Codex 0.171.0 (`clientInfo` `codex-mcp-client`): 2025-06-18, declaring form and URL
    /// mode. Its TUI draws a form only when every field is text, a boolean or a single select:
    /// a form with an integer, number or multi-select field is shown as an approval dialog
    /// whose yes is an `accept` with empty content `{}`. Other forms the person answers, each
    /// field as the TUI's widget sends it (a number typed in a text field is text). A URL
    /// question whose link is not `https` is declined at once, unseen. Its own form offers no
    /// decline: enter, ^p / ^n and esc, which sends `cancel`. Sources:
    /// <https://github.com/openai/codex/issues/41797>, and runs in CI against 0.171.0
    /// (`tests/hosts/test_coding_hosts.py`). The library adapts its forms from the host table's `codex-mcp-client` row
    /// (what [`kit`](Profile::kit) sees is what Codex sees); this rule stays written by hand,
    /// so that a wrong row fails a kit test.
    Codex,
    /// GitHub Copilot CLI 1.0.102 (`clientInfo` `copilot-cli`): 2026-07-28 when offered,
    /// declaring form and URL mode. The first option of a single select is shown highlighted
    /// but is not selected, so a person who keeps it submits the form without that field
    /// (<https://github.com/github/copilot-cli/issues/1872>). A 2026-07-28 URL question
    /// without an `elicitationId` fails before the person sees anything; the kit plays it as a
    /// dismissal (`cancel`). The library sends it the flow's `elicitationId` from the host
    /// table's `copilot-cli` row ([`Host::url_needs_elicitation_id`](crate::hosts::Host::url_needs_elicitation_id));
    /// this rule stays written by hand, so that a wrong row fails a kit test. Source: run by
    /// hand on 2026-12-07 (issue 43); not run in CI.
    CopilotCli,
    /// MCP Inspector 1.x (1.0.3), not the 2.12 that CI runs (the host table's `mcp-inspector`
    /// row, `^2.12.0`, which this profile's `clientInfo` version 1.0.3 does not match):
    /// 2025-11-25, form and URL mode; a call is given up 60 s after
    /// it was sent, whatever the progress notifications say (its maximum total timeout, 60 s by
    /// default), with no `notifications/cancelled`: a form still open is still answered, and
    /// the tool acts while the user sees an error. The kit gives up the call at 60 s and sends
    /// no cancel. Source: `client/src/lib/constants.ts` of
    /// <https://github.com/modelcontextprotocol/inspector> (`MCP_REQUEST_MAX_TOTAL_TIMEOUT`,
    /// 60000; read in the 1.0.3 package, not run).
    Inspector1,
    /// fast-agent: 2025-11-25, form and URL mode; a URL request is accepted at once, and its URL
    /// is shown only after the call returns: nobody opens the page while the tool waits for it.
    /// The person answers forms. Source: `src/fast_agent/mcp/elicitation_handlers.py` of
    /// <https://github.com/evalstate/fast-agent> (`_handle_url_elicitation`; checked against
    /// the 0.10.48 package).
    FastAgent,
}

impl Profile {
    /// Every profile: a well-behaved host per revision, then the hosts by name.
    pub const ALL: [Profile; 12] = [
        Profile::WellBehaved(Revision::V2025_06_18),
        Profile::WellBehaved(Revision::V2025_11_25),
        Profile::WellBehaved(Revision::V2026_07_28),
        Profile::ClaudeCode,
        Profile::ClaudeCodePrint,
        Profile::ClaudeCodeHook,
        Profile::VsCode,
        Profile::Cursor,
        Profile::Codex,
        Profile::CopilotCli,
        Profile::Inspector1,
        Profile::FastAgent,
    ];

    /// How long a profile's kit waits for a call: longer than the server's default timeout (10
    /// minutes), so that a host that never answers ends in the tool's own `NoReply`. The
    /// Inspector's is its own 60 s.
    pub const WAIT: Duration = Duration::from_secs(15 * 60);

    /// The revision the host speaks.
    pub fn revision(self) -> Revision {
        match self {
            Profile::WellBehaved(revision) => revision,
            Profile::ClaudeCode
            | Profile::ClaudeCodePrint
            | Profile::ClaudeCodeHook
            | Profile::CopilotCli => Revision::V2026_07_28,
            Profile::Codex => Revision::V2025_06_18,
            Profile::VsCode | Profile::Cursor | Profile::Inspector1 | Profile::FastAgent => {
                Revision::V2025_11_25
            }
        }
    }

    /// The elicitation modes the host declares.
    pub fn modes(self) -> &'static [Mode] {
        const FORM: &[Mode] = &[Mode::Form];
        const BOTH: &[Mode] = &[Mode::Form, Mode::Url];
        match self {
            Profile::WellBehaved(revision) if revision.has_url_mode() => BOTH,
            Profile::WellBehaved(_) => FORM,
            Profile::ClaudeCodeHook | Profile::Cursor => FORM,
            Profile::ClaudeCode
            | Profile::ClaudeCodePrint
            | Profile::Codex
            | Profile::CopilotCli
            | Profile::VsCode
            | Profile::Inspector1
            | Profile::FastAgent => BOTH,
        }
    }

    /// The host's name, as its users know it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::WellBehaved(Revision::V2025_06_18) => "a well-behaved host (2025-06-18)",
            Profile::WellBehaved(Revision::V2025_11_25) => "a well-behaved host (2025-11-25)",
            Profile::WellBehaved(_) => "a well-behaved host (2026-07-28)",
            Profile::ClaudeCode => "Claude Code",
            Profile::ClaudeCodePrint => "Claude Code in print mode (claude -p)",
            Profile::ClaudeCodeHook => "Claude Code with an auto-accepting hook",
            Profile::VsCode => "VS Code",
            Profile::Cursor => "Cursor",
            Profile::Codex => "Codex",
            Profile::CopilotCli => "GitHub Copilot CLI",
            Profile::Inspector1 => "MCP Inspector 1.x",
            Profile::FastAgent => "fast-agent",
        }
    }

    /// Where the rule comes from: an issue, or a source file, of that host.
    pub fn source(self) -> &'static str {
        match self {
            Profile::WellBehaved(Revision::V2025_06_18) => {
                "https://modelcontextprotocol.io/specification/2025-06-18/client/elicitation"
            }
            Profile::WellBehaved(Revision::V2025_11_25) => {
                "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"
            }
            Profile::WellBehaved(_) => {
                "https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation"
            }
            Profile::ClaudeCode | Profile::ClaudeCodePrint => {
                "claude-code 2.1.337, run in CI (tests/hosts/test_coding_hosts.py)"
            }
            Profile::ClaudeCodeHook => "https://github.com/anthropics/claude-code/issues/38755",
            Profile::VsCode => {
                "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1819"
            }
            Profile::Cursor => "https://github.com/gleanwork/glean-plugins-vnext/pull/39",
            Profile::Codex => {
                "https://github.com/openai/codex/issues/41797; codex 0.171.0, run in CI \
                 (tests/hosts/test_coding_hosts.py)"
            }
            Profile::CopilotCli => {
                "https://github.com/github/copilot-cli/issues/1872; copilot-cli 1.0.102, run by \
                 hand on 2026-12-07 (issue 43)"
            }
            Profile::Inspector1 => {
                "https://github.com/modelcontextprotocol/inspector/blob/main/client/src/lib/constants.ts"
            }
            Profile::FastAgent => {
                "https://github.com/evalstate/fast-agent/blob/main/src/fast_agent/mcp/elicitation_handlers.py"
            }
        }
    }

    /// The `clientInfo` (name, version) the host sends, for the hosts whose own is known; the
    /// others send the kit client's (`elicit-client`). A server looks the name up in its host
    /// table, so the kit of a host in the table is asked as that host is.
    pub fn client_info(self) -> Option<(&'static str, &'static str)> {
        match self {
            Profile::ClaudeCode | Profile::ClaudeCodePrint | Profile::ClaudeCodeHook => {
                Some(("claude-code", "2.1.337"))
            }
            Profile::Codex => Some(("codex-mcp-client", "0.171.0")),
            Profile::CopilotCli => Some(("copilot-cli", "1.0.102")),
            Profile::FastAgent => Some(("fast-agent-mcp", "0.10.48")),
            Profile::Inspector1 => Some(("mcp-inspector", "1.0.3")),
            Profile::WellBehaved(_) | Profile::VsCode | Profile::Cursor => None,
        }
    }

    /// Whether the host drops `elicitation/create` without an answer (Cursor).
    pub(super) fn drops_requests(self) -> bool {
        self == Profile::Cursor
    }

    /// What the host sends for `request` without asking anyone, if it does (fast-agent accepts
    /// a URL request at once).
    pub(super) fn answers_itself(self, request: &Incoming) -> Option<Value> {
        match (self, request) {
            (Profile::FastAgent, Incoming::Url(_)) => Some(json!({"action": "accept"})),
            (Profile::ClaudeCodePrint, _) => Some(json!({"action": "cancel"})),
            // Any link that is not https, declined at once, unseen.
            (Profile::Codex, Incoming::Url(url)) if url.url().as_str().starts_with("http:") => {
                Some(json!({"action": "decline"}))
            }
            // Its client fails the question before the person sees it.
            (Profile::CopilotCli, Incoming::Url(url)) if url.elicitation_id().is_none() => {
                Some(json!({"action": "cancel"}))
            }
            _ => None,
        }
    }

    /// Whether the answer comes at once, from no person (a hook).
    pub(super) fn answers_at_once(self) -> bool {
        self == Profile::ClaudeCodeHook
    }

    /// What the host sends when the answer given in its UI is `answer`.
    pub(super) fn sends(self, request: &Incoming, mut answer: Value) -> Value {
        let Incoming::Form(form) = request else {
            // "I'm done, continue": an accept, with no content.
            if self == Profile::ClaudeCode
                && answer.get("action").and_then(Value::as_str) == Some("accept")
            {
                return json!({"action": "accept"});
            }
            return answer;
        };
        if answer.get("action").and_then(Value::as_str) != Some("accept") {
            return answer;
        }
        let properties = form.schema().properties();
        match self {
            // The approval dialog's yes: no field reaches the server.
            Profile::Codex
                if properties.iter().any(|p| {
                    matches!(
                        p.kind(),
                        PropertyKind::Integer(_)
                            | PropertyKind::Number(_)
                            | PropertyKind::MultiSelect(_)
                    )
                }) =>
            {
                json!({"action": "accept", "content": {}})
            }
            // Its widgets send text: a number typed in a text field, or picked from a select
            // of numbers' text, is text.
            Profile::Codex => {
                if let Some(content) = answer.get_mut("content").and_then(Value::as_object_mut) {
                    numbers_as_text(properties, content);
                }
                answer
            }
            // The first option, highlighted, is not selected: kept, it is not sent.
            Profile::CopilotCli => {
                if let Some(content) = answer.get_mut("content").and_then(Value::as_object_mut) {
                    drop_highlighted_first_options(form.schema().properties(), content);
                }
                answer
            }
            _ => answer,
        }
    }
}

/// Writes each number answered to a text or single-select field as its text.
fn numbers_as_text(properties: &[crate::schema::Property], content: &mut Map<String, Value>) {
    for property in properties {
        if !matches!(
            property.kind(),
            PropertyKind::String(_) | PropertyKind::Select(_)
        ) {
            continue;
        }
        if let Some(value) = content.get_mut(property.name())
            && let Value::Number(number) = value
        {
            *value = Value::String(number.to_string());
        }
    }
}

/// Removes from `content` each single select answered with its first option.
fn drop_highlighted_first_options(
    properties: &[crate::schema::Property],
    content: &mut Map<String, Value>,
) {
    for property in properties {
        let PropertyKind::Select(select) = property.kind() else {
            continue;
        };
        let first = select.options().first().map(|option| option.value());
        if first.is_some() && content.get(property.name()).and_then(Value::as_str) == first {
            content.remove(property.name());
        }
    }
}
