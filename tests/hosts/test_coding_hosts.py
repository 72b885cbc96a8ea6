"""Claude Code 2.1.337 and Codex 0.171.0 (npm, pinned in `package-lock.json`), each in a real
pseudo-terminal as its user runs it: the TUI drawn through a terminal emulator (pyte), the
screen read, keys typed, never a shortcut a person does not have. A scripted model on loopback
stands in for the vendor's API (`scripted_model.py`): the person types `call <tool> {json}`, the
model calls that tool, and answers with the tool's result, which the test reads there and on
the screen. The model fails the run if any request it receives holds a page's URL or a flow id.

The servers are the examples, over stdio, each behind `stdio_tap.py` (which keeps what the host
sent them): `booking`, `ops_server` (`drop_table`), `api_key_server` (its page opened by the
test's browser, `tests/e2e/page_browser.py`, at the URL the person read on the host's screen),
and `examples/rmcp/bin/alerts_server.rs`, a new user's own server. Each case:

- `booking_accepted`: the form, its fields typed, accepted: "A table for 4 on 2026-12-24."
  (Codex: the party size a single-select, the form adapted to what Codex draws);
- `booking_declined` (Claude Code), `booking_dismissed`: declined, and dismissed (Esc);
  `booking_form_offers_no_decline` (Codex): its own form has enter, ^p / ^n and esc only;
- `drop_table_at_a_persons_pace`: the consent form read for a few seconds, ticked, accepted;
- `api_key_saved_then_accepted`: the page saved, then the host's "done": the key connects;
- `api_key_accepted_then_saved`: "done" first; the call waits; the page saved: it connects;
- `api_key_asked_again_until_saved` (Codex): "done" with the page unsaved past the server's page
  wait: the link form comes back "The step is not finished yet."; saved, then done: it connects;
- `api_key_declined`: the step declined: nothing is connected;
- `print_mode_cancels` (Claude Code): `claude -p` answers the form `cancel` at once;
- `newcomer_server`: `set_up_alerts`, a number and a multi-select, then a page: completed;
- `unadapted_*_fails` (Codex): negative controls, see `fails_without_the_adaptation`.

The API-key steps are written once: Claude Code (2026-07-28) shows its URL question, Codex
(2025-06-18, no URL mode, `http` links declined) the library's link form, a form with no field
whose message gives the page's URL; each host says how the person reads the URL, says they
finished, and declines.

The whole test runs inside a network namespace with only loopback up (`.ci/hosts.sh` starts it
with `unshare -n`): the host, its servers and their pages, the model and the browser share it,
and nothing may leave the machine. It refuses to run with any other interface.

Screens are kept in `$HOSTS_ARTIFACTS/<host>/<case>/` (`.ci/hosts.sh`: `target/hosts`), with
`handshake.json`: what the host sent each server first (initialize or server/discover), and in
`sent-to-servers/` every message it sent them.

Run by `.ci/hosts.sh claude-code|codex`, or inside `unshare -n` by hand:
BOOKING_SERVER=… API_KEY_SERVER=… OPS_SERVER=… ALERTS_SERVER=… UNADAPTED_SERVER=… \\
  python tests/hosts/test_coding_hosts.py claude-code [case ...]
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))
from page_browser import Browser  # noqa: E402
from scripted_model import ScriptedModel  # noqa: E402
from terminal import DOWN, ENTER, ESC, LEFT, RIGHT, Terminal, plain  # noqa: E402

BIN = HERE / "node_modules" / ".bin"
# The servers a host session starts, by the name the host knows them under: the examples as they
# are, and (for the negative controls) `booking` and `api_key_server` with the library's
# adaptations off (`examples/rmcp/bin/unadapted.rs`: the host table and the link form off), under
# the same names and tools, in a host session of their own.
SERVERS = {
    "booking": [os.environ["BOOKING_SERVER"]],
    "ops_server": [os.environ["OPS_SERVER"]],
    "api_key_server": [os.environ["API_KEY_SERVER"]],
    "weather": [os.environ["ALERTS_SERVER"]],
}
UNADAPTED = {
    "booking": [os.environ["UNADAPTED_SERVER"], "booking"],
    "api_key_server": [os.environ["UNADAPTED_SERVER"], "api_key_server"],
}
TOOLS = {"booking": "book_table", "ops_server": "drop_table", "api_key_server": "connect_api_key",
         "weather": "set_up_alerts"}
# The servers' own waits, in seconds: a 2026-07-28 retry that accepts waits this long for the
# page before it asks again.
# Before 2026-07-28, a link form accepted with the page still open waits this long for the page
# before the form is asked again.
SERVER_ENV = {"api_key_server": {"API_KEY_PAGE_WAIT_MS": "20000"},
              "ops_server": {"OPS_PAGE_WAIT_MS": "20000"}}
PAGE_WAIT = 20.0
ARTIFACTS = Path(os.environ.get("HOSTS_ARTIFACTS", tempfile.gettempdir()))
PAGE_URL = re.compile(r"http://localhost:[0-9]{1,5}/elicit/(?P<flow>[0-9a-f]{32})")
PACE = 3.0  # seconds a person takes to read a question before answering it
COLUMNS = 200

BOOKED = "A table for 4 on 2026-12-24."
DECLINED = "You declined: nothing was booked."
DISMISSED = "You dismissed the form: nothing was booked."
DROPPED = "Dropped table `orders`."
NOT_CONNECTED = "No key was connected: the page was declined, or not finished."
# What a client that cannot take the URL question gets with the link form off (`CannotAsk`).
CANNOT_OPEN_A_PAGE = ("This tool needs to send you to a web page for a sensitive step such as "
                      "signing in or paying (URL-mode elicitation), but the protocol version in use "
                      "(2025-06-18) does not support it. Nothing was changed.")
# The link form's text (the contract with src/rmcp/link_form.rs): the step's message, then the
# page, then what accept and decline mean; asked again, it starts by saying so.
LINK_FORM_OPEN = "Open this page in your browser and finish there: "
LINK_FORM_THEN = "Then accept here to say you finished; decline if you will not."
LINK_FORM_AGAIN = "The step is not finished yet. "
# Codex 0.171.0 draws a form with no field as "Field 1/1", the message, and Allow / Deny / Cancel.
LINK_FORM_ACCEPT = "Allow"
LINK_FORM_DECLINE = "Deny"
API_KEY_MESSAGE = "Enter your Example Co. API key on our page, never in the chat."
ALERTS_KEY_MESSAGE = "Enter your Example Weather API key on our page, never in the chat."


def new_key() -> str:
    return "exco_" + "".join(secrets.choice("ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ") for _ in range(27))


def connected(key: str) -> str:
    return f"Connected the key ending {key[-4:]}."


def flat(text: str) -> str:
    """Text with its runs of white space (a screen's line breaks, a box's indent) as one space."""
    return " ".join(text.split())


def expect(got: str, want: str) -> None:
    assert got == want, f"the tool said {got!r}, not {want!r}"


def only_loopback() -> None:
    """Nothing may leave this machine: the namespace has loopback and nothing else."""
    lines = Path("/proc/self/net/dev").read_text().splitlines()[2:]  # this namespace's own
    interfaces = sorted(line.split(":")[0].strip() for line in lines)
    assert interfaces == ["lo"], (
        f"run inside `unshare -n` with only loopback up (found {interfaces}): .ci/hosts.sh does")


class Host:
    """One host's session: its throwaway HOME, the model, and the TUI in a terminal."""

    name = ""

    def __init__(self, model: ScriptedModel, servers: dict[str, list[str]]) -> None:
        self.model = model
        self.servers = servers
        self.home = Path(tempfile.mkdtemp(prefix=f"elicit-{self.name}-"))
        self.work = self.home / "work"
        self.work.mkdir()
        self.taps = self.home / "taps"
        self.taps.mkdir()
        self.term: Terminal | None = None

    def server_command(self, server: str) -> list[str]:
        return [sys.executable, str(HERE / "stdio_tap.py"), str(self.taps / f"{server}.jsonl"),
                *self.servers[server]]

    def env(self) -> dict[str, str]:
        return {"PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(self.home),
                "TERM": "xterm-256color", "LANG": "C.UTF-8", "NO_PROXY": "*"}

    def open(self, artifacts: Path) -> Terminal:
        raise NotImplementedError

    def terminal(self, artifacts: Path) -> Terminal:
        """The running TUI, started if it is not (or was closed after a failed case)."""
        if self.term is None:
            self.term = self.open(artifacts)
        self.term.artifacts = artifacts
        return self.term

    def close(self) -> None:
        if self.term is not None:
            self.term.close()
            self.term = None

    def ask(self, term: Terminal, tool: str, arguments: dict | None = None) -> int:
        """Types the prompt and sends it; returns how many tool results the model had before."""
        before = len(self.model.results)
        term.type_slowly(f"call {tool} {json.dumps(arguments or {})}", pause=0.02)
        term.idle(0.3)
        term.type(ENTER)
        return before

    def result(self, term: Terminal, before: int, seconds: float = 60) -> str:
        """The next tool result the host sent the model, and the screen showing the model's
        answer to it."""
        deadline = time.monotonic() + seconds
        while len(self.model.results) <= before:
            if time.monotonic() > deadline:
                term.snap("no-result")
                raise AssertionError(f"no tool result within {seconds}s; {self.name} shows:\n{term.text()}")
            term.pump()
        text = self.model.results[before]
        first_line = text.splitlines()[0].replace("`", "") if text else ""  # markdown: no backticks
        if first_line:
            term.wait_for(re.escape(f"The tool said: {first_line}"[:60]), seconds=20)
        term.snap("result")
        return text

    def handshake(self) -> dict:
        """What the host sent each server first: the method, and its params."""
        out = {}
        for log in sorted(self.taps.glob("*.jsonl")):
            messages = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            first = [m for m in messages if m.get("method") in ("initialize", "server/discover")]
            calls = [m for m in messages if m.get("method") == "tools/call"]
            out[log.stem] = {
                "first": first[:1],
                "methods": sorted({m.get("method") for m in messages if m.get("method")}),
                "a tools/call's _meta": (calls[0].get("params") or {}).get("_meta") if calls else None,
            }
        return out


# ------------------------------------------------------------------------------------ Claude Code

class ClaudeCode(Host):
    name = "claude-code"
    key = "sk-ant-scripted-" + "0" * 40
    allowed = ",".join(f"mcp__{server}__{tool}" for server, tool in TOOLS.items())

    def __init__(self, model: ScriptedModel, servers: dict[str, list[str]]) -> None:
        super().__init__(model, servers)
        (self.home / ".claude.json").write_text(json.dumps({
            "hasCompletedOnboarding": True, "theme": "dark",
            "customApiKeyResponses": {"approved": [self.key[-20:]], "rejected": []},
            "projects": {str(self.work): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }))
        self.mcp = self.home / "mcp.json"
        self.mcp.write_text(json.dumps({"mcpServers": {
            server: {"command": self.server_command(server)[0], "args": self.server_command(server)[1:],
                     "env": SERVER_ENV.get(server, {})}
            for server in self.servers}}))

    def env(self) -> dict[str, str]:
        return {**super().env(),
                "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.model.port}",
                "ANTHROPIC_API_KEY": self.key, "ENABLE_TOOL_SEARCH": "false",
                "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}

    def args(self) -> list[str]:
        return ["--mcp-config", str(self.mcp), "--strict-mcp-config", "--allowedTools", self.allowed]

    def open(self, artifacts: Path) -> Terminal:
        term = Terminal(str(BIN / "claude"), self.args(), env=self.env(), cwd=str(self.work),
                        columns=COLUMNS, what="Claude Code", artifacts=artifacts)
        term.wait_for(r"Claude Code v2\.1\.337", seconds=60)
        term.wait_for(r"(?m)^❯", seconds=60)
        term.idle(2)  # the servers connect
        term.snap("started")
        return term

    def form(self, term: Terminal) -> None:
        term.wait_for(r"requests your input")
        term.snap("form")

    def to_buttons(self, term: Terminal) -> None:
        """Down the form to its Accept / Decline row, field by field, as a person does."""
        for _ in range(10):
            if re.search(r"❯ Accept +Decline", term.text()):
                return
            term.type(DOWN)
        raise AssertionError(f"no Accept / Decline row; Claude Code shows:\n{term.text()}")

    def page_step(self, term: Terminal, before: int) -> str:
        """The URL question (2026-07-28, URL mode declared): "wants to open a URL", its page's
        URL on the screen, and Open in browser / I'm done, continue / Decline."""
        term.wait_for(r"wants to open a URL")
        url = term.wait_for(PAGE_URL.pattern).group(0)
        term.snap("url-question")
        return url

    def finished_there(self, term: Terminal) -> None:
        term.type(RIGHT)  # "I'm done, continue"
        term.snap("to-done")
        term.type(ENTER)

    def decline_step(self, term: Terminal) -> None:
        term.type(RIGHT)
        term.type(RIGHT)  # "Decline"
        term.snap("to-decline")
        term.type(ENTER)


def claude_booking_accepted(host: ClaudeCode, term: Terminal) -> None:
    before = host.ask(term, "book_table")
    host.form(term)
    term.wait_for(r"❯ Party size")
    term.type_slowly("4")
    term.type(DOWN)
    term.wait_for(r"❯ Date")
    term.type_slowly("2026-12-24")
    term.snap("typed")
    host.to_buttons(term)
    term.wait_for(r"Date\*: +Thu, Dec 24, 2026")  # the host read the date as a date
    term.snap("to-accept")
    term.type(ENTER)
    expect(host.result(term, before), BOOKED)


def claude_booking_declined(host: ClaudeCode, term: Terminal) -> None:
    before = host.ask(term, "book_table")
    host.form(term)
    host.to_buttons(term)
    term.type(RIGHT)
    term.snap("to-decline")
    term.type(ENTER)
    expect(host.result(term, before), DECLINED)


def claude_booking_dismissed(host: ClaudeCode, term: Terminal) -> None:
    before = host.ask(term, "book_table")
    host.form(term)
    term.type(ESC)
    expect(host.result(term, before), DISMISSED)


def claude_drop_table(host: ClaudeCode, term: Terminal) -> None:
    before = host.ask(term, "drop_table", {"table": "orders"})
    host.form(term)
    term.wait_for(r"Permanently drop table `orders`")
    term.idle(PACE)  # the person reads the question
    term.wait_for(r"❯ Drop it permanently")
    term.type(" ")  # ticks the box
    term.snap("ticked")
    host.to_buttons(term)
    term.type(ENTER)
    expect(host.result(term, before), DROPPED)


def claude_print_mode_cancels(host: ClaudeCode, artifacts: Path) -> None:
    """`claude -p`: no TUI to draw a form in; it answers the form `cancel` at once."""
    before = len(host.model.results)
    started = time.monotonic()
    term = Terminal(str(BIN / "claude"), ["-p", "call book_table {}", *host.args()], env=host.env(),
                    cwd=str(host.work), columns=COLUMNS, what="claude -p", artifacts=artifacts)
    try:
        term.wait_for(re.escape(f"The tool said: {DISMISSED}"), seconds=60)
        term.snap("printed")
    finally:
        term.close()
    assert host.model.results[before:] == [DISMISSED], host.model.results[before:]
    assert time.monotonic() - started < 30, "the cancel came at once, not after a wait"


# ------------------------------------------------------------------------------------------ Codex

class Codex(Host):
    name = "codex"

    def __init__(self, model: ScriptedModel, servers: dict[str, list[str]]) -> None:
        super().__init__(model, servers)
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir()
        servers = ""
        for server in self.servers:
            command, *args = self.server_command(server)
            env = "".join(f", {k} = {json.dumps(v)}" for k, v in SERVER_ENV.get(server, {}).items())
            servers += (f"\n[mcp_servers.{server}]\ncommand = {json.dumps(command)}\n"
                        f"args = {json.dumps(args)}\nenv = {{ {env.lstrip(', ')} }}\n"
                        f"default_tools_approval_mode = \"approve\"\n")
        (self.codex_home / "config.toml").write_text(
            f'model = "scripted"\nmodel_provider = "scripted"\n'
            f"check_for_update_on_startup = false\n\n"
            f"[analytics]\nenabled = false\n\n"
            f"[model_providers.scripted]\nname = \"scripted\"\n"
            f"base_url = \"http://127.0.0.1:{model.port}/v1\"\nwire_api = \"responses\"\n"
            f"env_key = \"SCRIPTED_API_KEY\"\n\n"
            f"[projects.{json.dumps(str(self.work))}]\ntrust_level = \"trusted\"\n" + servers)

    def env(self) -> dict[str, str]:
        return {**super().env(), "CODEX_HOME": str(self.codex_home), "SCRIPTED_API_KEY": "scripted"}

    def open(self, artifacts: Path) -> Terminal:
        term = Terminal(str(BIN / "codex"), ["--no-daemon"], env=self.env(), cwd=str(self.work),
                        columns=COLUMNS, what="Codex", artifacts=artifacts)
        term.wait_for(r"OpenAI Codex \(v0\.171\.0\)", seconds=60)
        term.wait_for(r"(?m)^› ", seconds=60)
        term.idle(2)  # the servers connect
        term.snap("started")
        return term

    def approval(self, term: Terminal) -> None:
        """Codex's generic approval dialog (what it draws for a form it cannot draw)."""
        term.wait_for(r"needs your approval")
        term.wait_for(r"Press enter to confirm or esc to cancel")
        term.snap("approval")

    def booking_question(self, term: Terminal) -> str:
        """What Codex drew for the booking form: "approval" (its generic yes/no dialog, for a
        form it cannot draw: Codex 0.171.0 with the form as the library sends it today) or
        "form" (its own form, field by field)."""
        shown = term.wait_for(r"needs your approval|Field \d+/\d+").group(0)
        term.snap("question")
        return "approval" if shown == "needs your approval" else "form"

    def choose(self, term: Terminal, option: str) -> None:
        """Moves the dialog's marker down to the option whose text matches `option`, then
        presses Enter."""
        for _ in range(6):
            if re.search(rf"(?m)^\s*› \d+\. (?:{option})", term.text()):
                term.snap(f"to-{re.sub(r'[^A-Za-z]+', '-', option)[:20]}")
                term.type(ENTER)
                return
            term.type(DOWN)
        raise AssertionError(f"no option {option!r}; Codex shows:\n{term.text()}")

    def page_step(self, term: Terminal, before: int, again: bool = False,
                  message: str = API_KEY_MESSAGE) -> str:
        """The URL step as Codex 0.171.0 gets it: a form with no field (the link form; 2025-06-18
        has no URL mode, and Codex declines `http` links), whose message gives the page's URL in
        the words of the contract; `again`, the form asked again, saying the step is not
        finished. Fails if the call ends first."""
        deadline = time.monotonic() + 30 + (PAGE_WAIT if again else 0)
        while not (shown := PAGE_URL.search(term.text())) or (
                again and LINK_FORM_AGAIN.strip() not in flat(term.text())):
            if len(self.model.results) > before:
                term.snap("ended-without-the-page")
                raise AssertionError(f"the call ended before Codex showed the page: "
                                     f"{self.model.results[before]!r}")
            assert time.monotonic() < deadline, f"no link form within the wait; Codex shows:\n{term.text()}"
            term.pump()
        url = shown.group(0)
        screen = flat(term.text())
        for words in ((LINK_FORM_AGAIN if again else "") + message, LINK_FORM_OPEN + url,
                      LINK_FORM_THEN):
            assert flat(words) in screen, f"the link form does not say {words!r}:\n{term.text()}"
        term.snap("link-form-again" if again else "link-form")
        return url

    def finished_there(self, term: Terminal) -> None:
        self.choose(term, LINK_FORM_ACCEPT)

    def decline_step(self, term: Terminal) -> None:
        self.choose(term, LINK_FORM_DECLINE)


def codex_booking_form_offers_no_decline(host: Codex, term: Terminal) -> None:
    """Codex 0.171.0 draws the (adapted) booking form field by field, and its keys are enter,
    ^p / ^n and esc: a person can fill it in or dismiss it, never decline it. Should a later
    Codex offer a decline, this fails, and its profile and the hosts guide are to follow."""
    before = host.ask(term, "book_table")
    assert host.booking_question(term) == "form", (
        f"Codex did not draw the booking form as a form:\n{term.text()}")
    keys = term.wait_for(r"(?m)^.*esc to cancel.*$").group(0)
    assert not re.search(r"(?i)decline", keys), f"Codex's form offers a decline now: {keys!r}"
    term.type(ESC)
    expect(host.result(term, before), DISMISSED)


def codex_booking_dismissed(host: Codex, term: Terminal) -> None:
    before = host.ask(term, "book_table")
    host.booking_question(term)
    term.type(ESC)
    expect(host.result(term, before), DISMISSED)


def codex_drop_table(host: Codex, term: Terminal) -> None:
    before = host.ask(term, "drop_table", {"table": "orders"})
    term.wait_for(r"Field 1/1")
    term.wait_for(r"Permanently drop table `orders`")
    term.idle(PACE)  # the person reads the question
    host.choose(term, "True")
    expect(host.result(term, before), DROPPED)


def codex_fill(host: Codex, term: Terminal, before: int, answers: dict[str, str | None]) -> None:
    """Answers Codex's form field by field ("Field n/m"), as a person reads each title: a select
    chosen, text typed, an optional field left empty; until the form is gone. A generic approval
    dialog (what Codex draws for a form it cannot draw) is answered "Yes", all a person can do
    with it."""
    deadline = time.monotonic() + 90
    answered: set[str] = set()
    while len(host.model.results) == before and not PAGE_URL.search(term.text()):
        assert time.monotonic() < deadline, f"the form did not end; Codex shows:\n{term.text()}"
        screen = term.text()
        if re.search(r"needs your approval", screen):
            term.snap("approval-not-a-form")
            host.choose(term, "Yes, provide the requested info")
            term.idle(2)
            continue
        field = re.search(r"Field (\d+)/(\d+)", screen)
        if not field or field.group(0) in answered or LINK_FORM_OPEN.strip() in screen:
            term.pump()
            continue
        answered.add(field.group(0))
        term.snap(f"field-{field.group(1)}")
        title = max((t for t in answers if t in screen), key=len, default=None)
        assert title is not None, f"a field the form has not:\n{screen}"
        answer = answers[title]
        if answer is None:
            term.type("\x0e")  # optional, left empty: ^n, the next field (Enter on nothing stays)
        elif re.search(r"(?m)^\s*(?:› )?\d+\. ", screen):
            host.choose(term, answer)
        else:
            term.type_slowly(answer)
            term.type(ENTER)
        term.idle(1)


def codex_booking_accepted(host: Codex, term: Terminal) -> None:
    """Party size (an integer from 1 to 12) reaches Codex as a single-select: the form adapted
    to what Codex draws (`mcp_elicit::hosts`); the tool gets the same typed value."""
    before = host.ask(term, "book_table")
    codex_fill(host, term, before, {"Party size": "4", "Date": "2026-12-24",
                                    "Seating": "Indoors|indoors", "Anything we should know": None})
    expect(host.result(term, before), BOOKED)


# ------------------------------------------------------------- the API key, in either host
#
# `api_key_server`'s page step, as each host shows it: Claude Code's URL question, Codex's link
# form. The host gives `page_step` (the page's URL as the person reads it on the screen),
# `finished_there` (the person says they finished) and `decline_step`; the steps are the same.

def api_key_saved_then_accepted(host: Host, term: Terminal) -> None:
    """The person opens the page, saves the key, then says they finished: it connects."""
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = host.page_step(term, before)
    forbid_page(host.model, url)
    Browser().finish(url, key)  # the person opens the page, types the key, saves
    term.idle(PACE)
    host.finished_there(term)
    expect(host.result(term, before), connected(key))


def api_key_accepted_then_saved(host: Host, term: Terminal) -> None:
    """The person says they finished before saving: the call waits for the page (Claude Code's
    retry; Codex's link form waits `API_KEY_PAGE_WAIT_MS` before it asks again), nothing is
    asked again meanwhile, and the key saved a few seconds later connects."""
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = host.page_step(term, before)
    forbid_page(host.model, url)
    term.idle(PACE)
    host.finished_there(term)  # before the page is saved
    asked = term.mark()
    term.idle(PACE)  # the call waits for the page
    assert len(host.model.results) == before, f"the call ended before the page: {host.model.results[before:]}"
    term.snap("waiting")
    Browser().finish(url, key)
    expect(host.result(term, before), connected(key))
    assert LINK_FORM_AGAIN.strip() not in flat(plain(term.seen[asked:])), "asked again while it waited"


def api_key_declined(host: Host, term: Terminal) -> None:
    """The person declines the step: nothing is connected."""
    before = host.ask(term, "connect_api_key")
    url = host.page_step(term, before)
    forbid_page(host.model, url)
    term.idle(PACE)
    host.decline_step(term)
    expect(host.result(term, before), NOT_CONNECTED)


def codex_api_key_asked_again_until_saved(host: Codex, term: Terminal) -> None:
    """Codex: "finished" with the page still open, and not saved within the server's page wait:
    the link form comes back saying the step is not finished yet, at the same page; saved, then
    accepted, it connects."""
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = host.page_step(term, before)
    forbid_page(host.model, url)
    term.idle(PACE)
    host.finished_there(term)
    again = host.page_step(term, before, again=True)
    assert again == url, f"asked again for another page: {again} (first {url})"
    Browser().finish(url, key)
    term.idle(PACE)
    host.finished_there(term)
    expect(host.result(term, before), connected(key))


def forbid_page(model: ScriptedModel, url: str) -> None:
    model.forbid(url)
    model.forbid(PAGE_URL.search(url).group("flow"))


# ----------------------------------------------------------------- a newcomer's own server
#
# `examples/rmcp/bin/alerts_server.rs`: a form with a number (`f64`, 20 to 50) and a multi-select
# (email, sms, push; at least one), then a page for an API key. The same typed values reach the
# tool in both hosts.

def alerts_set_up(key: str) -> str:
    return f"Heat alerts from 30.5 °C by email and push, with the key ending {key[-4:]}."


def claude_tick(term: Terminal, ticked: list[str]) -> None:
    """Claude Code's multi-select: → expands it into ☐ boxes, ↑/↓ move, space toggles, ←
    folds it back showing what is ticked."""
    term.type(RIGHT)
    term.wait_for(r"Space to toggle")
    for _ in range(10):
        at = re.search(r"(?m)^\s*❯ [☐☒] (\w+)\s*$", term.text())
        assert at, f"no option under the marker; Claude Code shows:\n{term.text()}"
        if at.group(1) in ticked:
            term.type(" ")
            term.wait_for(rf"❯ ☒ {at.group(1)}")
        if re.search(r"(?m)^\s*❯ [☐☒] \w+\s*$\n\s*$", term.text()):  # the last option
            break
        term.type(DOWN)
    term.snap("ticked")
    term.type(LEFT)
    term.wait_for(re.escape(f"▸ {', '.join(ticked)}"))


def claude_newcomer_server(host: ClaudeCode, term: Terminal) -> None:
    key = new_key()
    before = host.ask(term, "set_up_alerts")
    host.form(term)
    term.wait_for(r"❯ Heat alert from")
    term.type_slowly("30.5")
    term.type(DOWN)
    term.wait_for(r"❯ Send alerts by")
    claude_tick(term, ["email", "push"])
    term.snap("typed")
    host.to_buttons(term)
    term.type(ENTER)
    url = host.page_step(term, before)
    forbid_page(host.model, url)
    Browser().finish(url, key)
    term.idle(PACE)
    host.finished_there(term)
    expect(host.result(term, before), alerts_set_up(key))


def codex_newcomer_server(host: Codex, term: Terminal) -> None:
    """Codex draws the number as a text field with its bounds, the multi-select as a yes/no
    per option (the host table); the page's URL comes in a link form."""
    key = new_key()
    before = host.ask(term, "set_up_alerts")
    codex_fill(host, term, before, {"Heat alert from": "30.5", "Send alerts by: email": "True",
                                    "Send alerts by: sms": "False", "Send alerts by: push": "True"})
    url = host.page_step(term, before, message=ALERTS_KEY_MESSAGE)
    forbid_page(host.model, url)
    Browser().finish(url, key)
    term.idle(PACE)
    host.finished_there(term)
    expect(host.result(term, before), alerts_set_up(key))


# ------------------------------------------------- Codex without the library's adaptations
#
# Negative controls: the cases above that rely on an adaptation, run in a Codex session whose
# servers have the host table and the link form switched off (`UNADAPTED`). Each must fail, and
# fail as Codex 0.171.0 without the library fails its person (issue 43): a case here passes only
# when the very same steps that pass above do NOT complete, for the reason the adaptation is for.

def fails_without_the_adaptation(case, why):
    """Runs `case` and requires it to fail; then `why(host, term, before)` checks how."""

    def control(host: Host, term: Terminal) -> None:
        before = len(host.model.results)
        try:
            case(host, term)
        except AssertionError as failed:
            print(f"    (as it should, {case.__name__} failed: {str(failed).splitlines()[0][:160]})")
        else:
            raise AssertionError(f"{case.__name__} passed with the adaptations off: it does not "
                                 f"show that it needs them")
        if len(host.model.results) <= before:
            host.result(term, before, seconds=60)
        why(host, term, before)

    control.__name__ = f"without_adaptations_{case.__name__}"
    return control


def booking_stopped_after_generic_approvals(host: Codex, term: Terminal, before: int) -> None:
    """Codex drew its yes/no approval, never the form; its "Yes" sent `{}`, asked once more, then
    the tool stopped: nothing booked."""
    seen = plain(term.seen)
    assert "needs your approval" in seen, "Codex did not show its generic approval dialog"
    assert not re.search(r"Field \d+/\d+", seen), "Codex drew a form: the table is not off"
    said = host.model.results[before]
    assert said.startswith("The answer could not be used after 2 tries"), said
    assert BOOKED not in said, said


def api_key_cannot_be_asked(host: Codex, term: Terminal, before: int) -> None:
    """No page reached the person: the tool said at once that the client cannot open one."""
    said = host.model.results[before]
    assert said.startswith(CANNOT_OPEN_A_PAGE), said
    assert not PAGE_URL.search(plain(term.seen)), "a page's URL was shown"


# (name, function, the servers of the host session it runs in)
CASES = {
    "claude-code": [
        ("booking_accepted", claude_booking_accepted, SERVERS),
        ("booking_declined", claude_booking_declined, SERVERS),
        ("booking_dismissed", claude_booking_dismissed, SERVERS),
        ("drop_table_at_a_persons_pace", claude_drop_table, SERVERS),
        ("api_key_saved_then_accepted", api_key_saved_then_accepted, SERVERS),
        ("api_key_accepted_then_saved", api_key_accepted_then_saved, SERVERS),
        ("api_key_declined", api_key_declined, SERVERS),
        ("print_mode_cancels", claude_print_mode_cancels, SERVERS),
        ("newcomer_server", claude_newcomer_server, SERVERS),
    ],
    "codex": [
        ("booking_accepted", codex_booking_accepted, SERVERS),
        ("booking_form_offers_no_decline", codex_booking_form_offers_no_decline, SERVERS),
        ("booking_dismissed", codex_booking_dismissed, SERVERS),
        ("drop_table_at_a_persons_pace", codex_drop_table, SERVERS),
        ("api_key_saved_then_accepted", api_key_saved_then_accepted, SERVERS),
        ("api_key_accepted_then_saved", api_key_accepted_then_saved, SERVERS),
        ("api_key_asked_again_until_saved", codex_api_key_asked_again_until_saved, SERVERS),
        ("api_key_declined", api_key_declined, SERVERS),
        ("newcomer_server", codex_newcomer_server, SERVERS),
        ("unadapted_booking_accepted_fails",
         fails_without_the_adaptation(codex_booking_accepted, booking_stopped_after_generic_approvals),
         UNADAPTED),
        ("unadapted_api_key_saved_then_accepted_fails",
         fails_without_the_adaptation(api_key_saved_then_accepted, api_key_cannot_be_asked),
         UNADAPTED),
    ],
}
HOSTS = {"claude-code": ClaudeCode, "codex": Codex}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in HOSTS:
        print(f"usage: {sys.argv[0]} {'|'.join(HOSTS)} [case ...]", file=sys.stderr)
        return 2
    only_loopback()
    name, only = sys.argv[1], sys.argv[2:]
    out = ARTIFACTS / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    model = ScriptedModel()
    sessions: dict[int, Host] = {}  # one host session per set of servers, started when needed
    passed = failed = 0
    try:
        for case, run, servers in CASES[name]:
            if only and not any(f in case for f in only):
                continue
            if id(servers) not in sessions:
                sessions[id(servers)] = HOSTS[name](model, servers)
            host = sessions[id(servers)]
            for other in sessions.values():
                if other is not host:
                    other.close()  # one TUI at a time
            started = time.monotonic()
            artifacts = out / case
            try:
                if run is claude_print_mode_cancels:
                    run(host, artifacts)
                else:
                    run(host, host.terminal(artifacts))
                    host.term.snap("end")
                broken = model.violations()
                assert not broken, f"the model was sent a page's URL or flow id: {broken}"
            except Exception as error:  # noqa: BLE001 - report and go on
                failed += 1
                print(f"FAIL {name}/{case} ({time.monotonic() - started:.1f}s): {error}")
                traceback.print_exc(limit=3)
                if host.term is not None:
                    host.term.snap("failed")
                host.close()  # the next case starts from a fresh TUI
            else:
                passed += 1
                print(f"PASS {name}/{case} ({time.monotonic() - started:.1f}s)")
            sys.stdout.flush()
    finally:
        model.close()
        for n, host in enumerate(sessions.values()):
            host.close()
            kept = out if n == 0 else out / f"session-{n + 1}"
            kept.mkdir(parents=True, exist_ok=True)
            handshake = host.handshake()
            (kept / "handshake.json").write_text(json.dumps(handshake, indent=2) + "\n")
            print(f"--- what {name} sent each server first (also in {kept}/handshake.json)")
            for server, seen in handshake.items():
                print(f"{server}: {json.dumps(seen['first'])}")
            shutil.copytree(host.taps, kept / "sent-to-servers", dirs_exist_ok=True)
            shutil.rmtree(host.home, ignore_errors=True)
        (out / "model-requests.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in model.requests))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
