"""Claude Code 2.1.337 and Codex 0.171.0 (npm, pinned in `package-lock.json`), each in a real
pseudo-terminal as its user runs it: the TUI drawn through a terminal emulator (pyte), the
screen read, keys typed, never a shortcut a person does not have. A scripted model on loopback
stands in for the vendor's API (`scripted_model.py`): the person types `call <tool> {json}`, the
model calls that tool, and answers with the tool's result, which the test reads there and on
the screen. The model fails the run if any request it receives holds a page's URL or a flow id.

The servers are the examples, over stdio, each behind `stdio_tap.py` (which keeps what the host
sent them): `booking`, `ops_server` (`drop_table`), `api_key_server` (its page opened by the
test's browser, `tests/e2e/page_browser.py`, at the URL the host showed the person). Each case:

- `booking_accepted`: the form, its fields typed, accepted: "A table for 4 on 2026-12-24.";
- `booking_declined`, `booking_dismissed`: declined, and dismissed (Esc);
- `drop_table_at_a_persons_pace`: the consent form read for a few seconds, ticked, accepted;
- `api_key_saved_then_accepted`: the page saved, then the host's "done": the key connects;
- `api_key_accepted_then_saved`: "done" first; the call waits; the page saved: it connects;
- `api_key_declined`: the URL question declined: nothing is connected;
- `print_mode_cancels` (Claude Code): `claude -p` answers the form `cancel` at once.

Codex 0.171.0 cannot carry some of these with the library as it is (issue 43): its TUI draws a
form with an integer field as a yes/no approval whose "Yes" sends `accept` with `{}`, and it
declines an `http` link at once. Those cases are marked in `CASES`: run only with
`CODEX_ADAPTED=1` (`.ci/hosts.sh` does not set it yet), never counted as passing otherwise.
Codex's `booking_declined` declines in its approval dialog ("No, but continue without it");
where Codex draws the form itself (once the library adapts it), its form offers no decline (only
Esc, which dismisses), and the case fails saying so.

The whole test runs inside a network namespace with only loopback up (`.ci/hosts.sh` starts it
with `unshare -n`): the host, its servers and their pages, the model and the browser share it,
and nothing may leave the machine. It refuses to run with any other interface.

Screens are kept in `$HOSTS_ARTIFACTS/<host>/<case>/` (`.ci/hosts.sh`: `target/hosts`), with
`handshake.json`: what the host sent each server first (initialize or server/discover), and in
`sent-to-servers/` every message it sent them.

Run by `.ci/hosts.sh claude-code|codex`, or inside `unshare -n` by hand:
BOOKING_SERVER=… API_KEY_SERVER=… OPS_SERVER=… python tests/hosts/test_coding_hosts.py claude-code [case ...]
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
from terminal import DOWN, ENTER, ESC, RIGHT, Terminal  # noqa: E402

BIN = HERE / "node_modules" / ".bin"
SERVERS = {
    "booking": os.environ["BOOKING_SERVER"],
    "ops_server": os.environ["OPS_SERVER"],
    "api_key_server": os.environ["API_KEY_SERVER"],
}
TOOLS = {"booking": "book_table", "ops_server": "drop_table", "api_key_server": "connect_api_key"}
# The servers' own waits, in seconds: a 2026-07-28 retry that accepts waits this long for the
# page before it asks again.
SERVER_ENV = {"api_key_server": {"API_KEY_PAGE_WAIT_MS": "20000"},
              "ops_server": {"OPS_PAGE_WAIT_MS": "20000"}}
ARTIFACTS = Path(os.environ.get("HOSTS_ARTIFACTS", tempfile.gettempdir()))
PAGE_URL = re.compile(r"http://localhost:[0-9]{1,5}/elicit/(?P<flow>[0-9a-f]{32})")
PACE = 3.0  # seconds a person takes to read a question before answering it
COLUMNS = 200

BOOKED = "A table for 4 on 2026-12-24."
DECLINED = "You declined: nothing was booked."
DISMISSED = "You dismissed the form: nothing was booked."
DROPPED = "Dropped table `orders`."
NOT_CONNECTED = "No key was connected: the page was declined, or not finished."


def new_key() -> str:
    return "exco_" + "".join(secrets.choice("ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ") for _ in range(27))


def connected(key: str) -> str:
    return f"Connected the key ending {key[-4:]}."


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

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model
        self.home = Path(tempfile.mkdtemp(prefix=f"elicit-{self.name}-"))
        self.work = self.home / "work"
        self.work.mkdir()
        self.taps = self.home / "taps"
        self.taps.mkdir()
        self.term: Terminal | None = None

    def server_command(self, server: str) -> list[str]:
        return [sys.executable, str(HERE / "stdio_tap.py"), str(self.taps / f"{server}.jsonl"),
                SERVERS[server]]

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

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(model)
        (self.home / ".claude.json").write_text(json.dumps({
            "hasCompletedOnboarding": True, "theme": "dark",
            "customApiKeyResponses": {"approved": [self.key[-20:]], "rejected": []},
            "projects": {str(self.work): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }))
        self.mcp = self.home / "mcp.json"
        self.mcp.write_text(json.dumps({"mcpServers": {
            server: {"command": self.server_command(server)[0], "args": self.server_command(server)[1:],
                     "env": SERVER_ENV.get(server, {})}
            for server in SERVERS}}))

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

    def url_question(self, term: Terminal) -> str:
        term.wait_for(r"wants to open a URL")
        url = term.wait_for(PAGE_URL.pattern).group(0)
        term.snap("url-question")
        return url


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


def claude_api_key_saved_then_accepted(host: ClaudeCode, term: Terminal) -> None:
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = host.url_question(term)
    forbid_page(host.model, url)
    Browser().finish(url, key)  # the person opens the page, types the key, saves
    term.idle(PACE)
    term.type(RIGHT)  # "I'm done, continue"
    term.snap("to-done")
    term.type(ENTER)
    expect(host.result(term, before), connected(key))


def claude_api_key_accepted_then_saved(host: ClaudeCode, term: Terminal) -> None:
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = host.url_question(term)
    forbid_page(host.model, url)
    term.idle(PACE)
    term.type(RIGHT)  # "I'm done, continue", before the page is saved
    term.type(ENTER)
    term.idle(PACE)  # the call waits for the page
    assert len(host.model.results) == before, f"the call ended before the page: {host.model.results[before:]}"
    term.snap("waiting")
    Browser().finish(url, key)
    expect(host.result(term, before), connected(key))


def claude_api_key_declined(host: ClaudeCode, term: Terminal) -> None:
    before = host.ask(term, "connect_api_key")
    url = host.url_question(term)
    forbid_page(host.model, url)
    term.idle(PACE)
    term.type(RIGHT)
    term.type(RIGHT)  # "Decline"
    term.snap("to-decline")
    term.type(ENTER)
    expect(host.result(term, before), NOT_CONNECTED)


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

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(model)
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir()
        servers = ""
        for server in SERVERS:
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


def codex_booking_accepted(host: Codex, term: Terminal) -> None:
    """Party size (an integer from 1 to 12) reaches Codex as a single-select: the form adapted
    to what Codex draws (`mcp_elicit::hosts`); the tool gets the same typed value."""
    before = host.ask(term, "book_table")
    answers = {"Party size": "4", "Date": "2026-12-24", "Seating": "Indoors|indoors",
               "Anything we should know": None}
    deadline = time.monotonic() + 60
    answered: set[str] = set()
    while len(host.model.results) == before:
        assert time.monotonic() < deadline, f"the form did not end; Codex shows:\n{term.text()}"
        screen = term.text()
        if re.search(r"needs your approval", screen):
            term.snap("approval-not-a-form")
            host.choose(term, "Yes, provide the requested info")  # all a person can do with it
            term.idle(2)
            continue
        field = re.search(r"Field (\d+)/(\d+)", screen)
        if not field or field.group(0) in answered:
            term.pump()
            continue
        answered.add(field.group(0))
        term.snap(f"field-{field.group(1)}")
        title = next((t for t in answers if t in screen), None)
        assert title is not None, f"a field the booking form has not:\n{screen}"
        answer = answers[title]
        if answer is None:
            term.type("\x0e")  # optional, left empty: ^n, the next field (Enter on nothing stays)
        elif re.search(r"(?m)^\s*(?:› )?\d+\. ", screen):
            host.choose(term, answer)
        else:
            term.type_slowly(answer)
            term.type(ENTER)
        term.idle(1)
    expect(host.result(term, before), BOOKED)


def codex_link_form(host: Codex, term: Terminal, before: int) -> str:
    """The page's URL in what Codex shows the person (the URL step asked as a form, issue 43
    item 3)."""
    deadline = time.monotonic() + 30
    while not (shown := PAGE_URL.search(term.text())):
        if len(host.model.results) > before:
            term.snap("ended-without-the-page")
            raise AssertionError(f"the call ended before Codex showed the page: "
                                 f"{host.model.results[before]!r}")
        assert time.monotonic() < deadline, f"no page's URL within 30s; Codex shows:\n{term.text()}"
        term.pump()
    term.snap("url-question")
    return shown.group(0)


def codex_api_key_saved_then_accepted(host: Codex, term: Terminal) -> None:
    """ADAPTED: needs the URL step as a form (issue 43, item 3)."""
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = codex_link_form(host, term, before)
    forbid_page(host.model, url)
    Browser().finish(url, key)
    term.idle(PACE)
    host.choose(term, "Yes")
    expect(host.result(term, before), connected(key))


def codex_api_key_accepted_then_saved(host: Codex, term: Terminal) -> None:
    """ADAPTED: needs the URL step as a form (issue 43, item 3)."""
    key = new_key()
    before = host.ask(term, "connect_api_key")
    url = codex_link_form(host, term, before)
    forbid_page(host.model, url)
    term.idle(PACE)
    host.choose(term, "Yes")
    term.idle(PACE)
    assert len(host.model.results) == before, f"the call ended before the page: {host.model.results[before:]}"
    term.snap("waiting")
    Browser().finish(url, key)
    expect(host.result(term, before), connected(key))


def codex_api_key_declined(host: Codex, term: Terminal) -> None:
    """ADAPTED: needs the URL step as a form (issue 43, item 3)."""
    before = host.ask(term, "connect_api_key")
    url = codex_link_form(host, term, before)
    forbid_page(host.model, url)
    term.idle(PACE)
    host.choose(term, "No")
    expect(host.result(term, before), NOT_CONNECTED)


def forbid_page(model: ScriptedModel, url: str) -> None:
    model.forbid(url)
    model.forbid(PAGE_URL.search(url).group("flow"))


# (name, function, needs the library's adaptation for this host)
CASES = {
    "claude-code": [
        ("booking_accepted", claude_booking_accepted, False),
        ("booking_declined", claude_booking_declined, False),
        ("booking_dismissed", claude_booking_dismissed, False),
        ("drop_table_at_a_persons_pace", claude_drop_table, False),
        ("api_key_saved_then_accepted", claude_api_key_saved_then_accepted, False),
        ("api_key_accepted_then_saved", claude_api_key_accepted_then_saved, False),
        ("api_key_declined", claude_api_key_declined, False),
        ("print_mode_cancels", claude_print_mode_cancels, False),
    ],
    "codex": [
        ("booking_accepted", codex_booking_accepted, False),
        ("booking_form_offers_no_decline", codex_booking_form_offers_no_decline, False),
        ("booking_dismissed", codex_booking_dismissed, False),
        ("drop_table_at_a_persons_pace", codex_drop_table, False),
        ("api_key_saved_then_accepted", codex_api_key_saved_then_accepted, True),
        ("api_key_accepted_then_saved", codex_api_key_accepted_then_saved, True),
        ("api_key_declined", codex_api_key_declined, True),
    ],
}
HOSTS = {"claude-code": ClaudeCode, "codex": Codex}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in HOSTS:
        print(f"usage: {sys.argv[0]} {'|'.join(HOSTS)} [case ...]", file=sys.stderr)
        return 2
    only_loopback()
    name, only = sys.argv[1], sys.argv[2:]
    adapted = os.environ.get("CODEX_ADAPTED") == "1"
    # The adapted cases' screens apart from CI's (today's main shows what they need, not a pass).
    out = ARTIFACTS / (f"{name}-adapted" if adapted and name == "codex" else name)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    model = ScriptedModel()
    host = HOSTS[name](model)
    passed = failed = left = 0
    try:
        for case, run, needs_adaptation in CASES[name]:
            if only and not any(f in case for f in only):
                continue
            if needs_adaptation and not adapted:
                left += 1
                print(f"NOT RUN {name}/{case} (needs the adaptation: CODEX_ADAPTED=1)")
                continue
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
        host.close()
        model.close()
        handshake = host.handshake()
        (out / "handshake.json").write_text(json.dumps(handshake, indent=2) + "\n")
        (out / "model-requests.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in model.requests))
        print(f"--- what {name} sent each server first (also in {out}/handshake.json)")
        for server, seen in handshake.items():
            print(f"{server}: {json.dumps(seen['first'])}")
        shutil.copytree(host.taps, out / "sent-to-servers", dirs_exist_ok=True)
        shutil.rmtree(host.home, ignore_errors=True)
    print(f"{passed} passed, {failed} failed, {left} not run (need CODEX_ADAPTED=1)")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
