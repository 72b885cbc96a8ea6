"""fast-agent (PyPI `fast-agent-mcp` 0.10.48), a terminal agent, run in a real pseudo-terminal
as its user runs it, against `examples/rmcp/fleet_server.rs` (one replica and a real
`redis-server`, on loopback) over streamable HTTP. Its `passthrough` model calls a tool without
an LLM: the user types `***CALL_TOOL <server>__<tool> {json}`. The screen is read through a
terminal emulator (pyte), as the user sees it.

- `a_form` (2025-11-25 and 2026-07-28): `book_table` shows fast-agent's form; the user types the
  party size and the date and submits; the tool books.
- `url_mode_waits_for_the_page` (2025-11-25 and 2026-07-28): `connect_api_key`. fast-agent
  0.10.48 declares URL mode but shows a URL question's link only after the call returns (its row
  in the host table, checked here), so the library carries the step in a link form: a form with
  no field whose message gives the page's URL. The person reads the URL in that form, opens it
  in the test's browser, saves the key, and accepts; the call answers "Connected the key ending
  …". The URL on the screen is checked against the flow the replica keeps in Redis. (2026-07-28
  needs the link form on that revision: branch g-linkform; on lf-base the library still sends
  fast-agent the URL question there, which it accepts at once, and this case fails.)

Run by `.ci/hosts.sh` with the venv's Python 3.13:
FLEET_SERVER=target/debug/examples/fleet_server python tests/hosts/test_fast_agent.py [case ...]
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))
from page_browser import Browser  # noqa: E402
from processes import free_port, stop, wait_for_port  # noqa: E402
from terminal import Terminal, plain  # noqa: E402

SERVER = os.environ["FLEET_SERVER"]
FAST_AGENT = str(Path(sys.executable).parent / "fast-agent")


class Replica:
    """redis-server and one `fleet_server`, each a child process on a free loopback port."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="elicit-fast-agent-"))
        self.redis_port = free_port()
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.dir)],
            stdout=open(self.dir / "redis.log", "wb"), stderr=subprocess.STDOUT)
        wait_for_port(self.redis_port, "redis-server", self.redis)
        self.port = free_port()
        self.public = f"http://localhost:{self.port}"
        env = dict(os.environ, PORT=str(self.port), REPLICA="r1", FLEET_PUBLIC_URL=self.public,
                   REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/?protocol=resp3",
                   ELICIT_STATE_KEYS="1:" + secrets.token_hex(32))
        self.server = subprocess.Popen([SERVER], env=env, stdin=subprocess.DEVNULL,
                                       stdout=open(self.dir / "r1.log", "wb"),
                                       stderr=subprocess.STDOUT)
        wait_for_port(self.port, "fleet_server", self.server)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def redis_cli(self, *args: str) -> str:
        return subprocess.run(["redis-cli", "-p", str(self.redis_port), *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout.strip()

    def open_flows(self) -> list[str]:
        """The page URLs of the flows the replica keeps in Redis (`fleet:flow:<id>`)."""
        keys = self.redis_cli("--scan", "--pattern", "fleet:flow:*").split()
        ids = [k.removeprefix("fleet:flow:") for k in keys if re.fullmatch(r"fleet:flow:[0-9a-f]{32}", k)]
        return [f"{self.public}/elicit/{flow}" for flow in ids]

    def close(self) -> None:
        for process in (self.server, self.redis):
            stop(process)
        shutil.rmtree(self.dir, ignore_errors=True)

    def logs(self) -> str:
        return (self.dir / "r1.log").read_text(errors="replace")[-3000:]


class FastAgent(Terminal):
    """fast-agent in a pseudo-terminal (`tests/e2e/terminal.py`), its passthrough model's
    prompt."""

    def __init__(self, protocol: str, url: str) -> None:
        self.home = tempfile.mkdtemp(prefix="elicit-fast-agent-home-")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home,
               "TERM": "xterm", "LANG": "C.UTF-8", "NO_PROXY": "*"}
        super().__init__(
            FAST_AGENT,
            ["--no-update-check", "go", "--no-home", "--model", "passthrough",
             "--mcp-protocol", protocol, "--url", url],
            env=env, cwd=self.home, what="fast-agent")

    def wait_for(self, pattern: str, seconds: float = 30, since: int | None = 0, flags: int = 0):
        # The screen, or the output since `since` (from the start unless told).
        return super().wait_for(pattern, seconds, since, flags)

    def call(self, server: str, tool: str, arguments: str = "{}") -> int:
        """Types the passthrough model's tool call at the prompt; returns where its output begins."""
        self.wait_for(r"❯")
        start = self.mark()
        self.type(f"***CALL_TOOL {server}__{tool} {arguments}\r")
        return start

    def close(self) -> None:
        super().close()
        shutil.rmtree(self.home, ignore_errors=True)


def server_name(term: FastAgent) -> str:
    """The name fast-agent gave the server it started (its `Startup MCP server '<name>'` line)."""
    return term.wait_for(r"MCP server '([^']+)'").group(1)


REPLICA: Replica


def a_form(protocol: str) -> None:
    term = FastAgent(protocol, REPLICA.url)
    try:
        name = server_name(term)
        since = term.call(name, "book_table")
        term.wait_for(r"Party size", since=since)
        term.wait_for(r"Accept")
        term.type("4")
        term.type("\t")
        term.type("2026-12-24")
        term.type("\r")
        term.wait_for(r"A table for 4 on 2026-12-24 \(booked on r1\)\.", since=since)
    finally:
        term.close()


# The link form's words (the contract with src/rmcp/link_form.rs), and the page's URL in them.
LINK_FORM = re.compile(r"Open this page in your browser and finish there: "
                       r"(?P<url>http://localhost:[0-9]{1,5}/elicit/[0-9a-f]{32})")
LINK_FORM_THEN = "Then accept here to say you finished; decline if you will not."


def url_mode_waits_for_the_page(protocol: str) -> None:
    key = "exco_" + "".join(secrets.choice("ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ") for _ in range(27))
    term = FastAgent(protocol, REPLICA.url)
    try:
        name = server_name(term)
        since = term.call(name, "connect_api_key")
        # The link form: the step's message, the page's URL, what accept means; read off the
        # screen as the person reads it.
        term.wait_for(r"Enter your Example Co\. API key on our page", since=since)
        url = term.wait_for(LINK_FORM.pattern).group("url")
        term.wait_for(re.escape(LINK_FORM_THEN))
        term.wait_for(r"Accept")
        assert url in REPLICA.open_flows(), f"{url} is not a flow the replica keeps"
        shown = plain(term.seen[since:])
        assert "Connected" not in shown and "could not be used" not in shown, shown
        Browser().finish(url, key)  # the person opens the page, types the key, saves
        time.sleep(1.5)  # a person's pace back to the terminal
        term.type("\r")  # accept: "I finished there"
        term.wait_for(rf"Connected the key ending {key[-4:]} \(asked on r1\)\.", seconds=30, since=since)
        assert "isError" not in plain(term.seen[since:])
    finally:
        term.close()


a_form.protocols = ("legacy", "modern")
url_mode_waits_for_the_page.protocols = ("legacy", "modern")
CASES = [a_form, url_mode_waits_for_the_page]
REVISION = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def main() -> int:
    global REPLICA
    only = sys.argv[1:]
    REPLICA = Replica()
    passed = failed = 0
    try:
        for case in CASES:
            for protocol in case.protocols:
                name = f"{case.__name__}[{REVISION[protocol]}]"
                if only and not any(f in name for f in only):
                    continue
                started = time.monotonic()
                try:
                    case(protocol)
                except Exception as error:  # noqa: BLE001 - report and go on
                    failed += 1
                    print(f"FAIL {name} ({time.monotonic() - started:.1f}s): {error}")
                    print(f"--- fleet_server log\n{REPLICA.logs()}")
                else:
                    passed += 1
                    print(f"PASS {name} ({time.monotonic() - started:.1f}s)")
    finally:
        REPLICA.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
