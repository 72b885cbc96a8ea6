"""End-to-end: the `api_key_server` example (URL mode, finished on the library's own page) driven
by the official Python MCP client (`mcp==2.3.0`), with the user's browser played by the standard
library's HTTP client and a cookie jar.

The tool `connect_api_key` sends the user to `http://localhost:<port>/elicit/<flow id>`, a page
the server serves on loopback, where they type the key. Every case runs on both revisions:
- legacy (2025-11-25): the client accepts `elicitation/create`, and only then does the browser
  do the page, while the tool waits for it; the server sends `notifications/elicitation/complete`
  with that elicitationId, then the tool's result.
- 2026-07-28: the client accepts before the page is done (as the spec's URL flow has it), and
  its retry waits on the server while the browser does the page; that retry returns the result.
  A retry whose page is not finished within the server's page wait (`API_KEY_PAGE_WAIT_MS`, set
  short for `SHORT_WAIT`) is asked again with the same URL and a note, not ended in an error;
  a decline then ends the flow, and its page refuses saying why.

The browser here checks the page's HTTP contract (its cookie, the CSRF token in the form, the
`Origin` of a submission), not what a browser makes of it: the real-browser test is separate.
The `page_refuses_*` cases each try one thing the page must refuse, then finish the page as the
user would and check that the tool still connects: a refusal stores nothing and leaves the flow
open for its owner (on 2026-07-28 the refusal comes before the first accept, and the page's own
"Saved" afterwards, with one question asked, shows that the refusal finished nothing).

Every case also checks that the typed key reaches nothing the test can see: the server's stderr,
every JSON-RPC message the client received or sent, and every page the browser was shown. The
tool's result names the key's last four characters, and nothing longer of it may appear.

Run through `.ci/python_e2e.sh`, or:
API_KEY_SERVER=target/debug/examples/api_key_server python tests/e2e/test_api_key_server.py
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
import anyio.to_thread
from harness import CANCEL, DECLINE, accept, expect, only_on, result_text, run_cases
from page_browser import Browser, read_form
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client

SERVER = StdioServerParameters(command=os.environ["API_KEY_SERVER"], args=[])
# The same server, whose 2026-07-28 retries wait one second for the page (the library's default
# is 30 s) before they ask again.
PAGE_WAIT = 1.0
SHORT_WAIT = StdioServerParameters(command=os.environ["API_KEY_SERVER"], args=[],
                                   env={"API_KEY_PAGE_WAIT_MS": str(int(PAGE_WAIT * 1000))})
NOT_CONNECTED = "No key was connected: the page was declined, or not finished."
STILL_OPEN = "the page is still open: finish the step there, then retry or continue"
TOOL = "connect_api_key"
MESSAGE = "Enter your Example Co. API key on our page, never in the chat."
PAGE_URL = re.compile(r"http://localhost:(?P<port>[0-9]{1,5})/elicit/(?P<flow>[0-9a-f]{32})")
HTTP_TIMEOUT = 10


def new_key() -> str:
    """A key like a real one (32 characters, the page wants 20 to 200), fresh for each case. Its
    letters are none of the hex digits, so no flow id, cookie or digest the server writes can
    contain a piece of it by chance."""
    return "exco_" + "".join(secrets.choice("ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ") for _ in range(27))


def connected(key: str) -> str:
    return f"Connected the key ending {key[-4:]}."


# -------------------------------------------------------------------------------- client and wire

class Wire:
    """Everything the test can see of a server: every JSON-RPC message its client received and
    sent (as the SDK parsed them: an envelope's `params` and `result` are kept whole, as plain
    JSON), the notifications the SDK's `message_handler` was given, and the server's stderr."""

    def __init__(self, stderr) -> None:
        self.stderr = stderr
        self.received: list[dict] = []
        self.sent: list[dict] = []
        self.notifications: list[types.ServerNotification] = []
        self.faults: list[Exception] = []

    @staticmethod
    def _json(item) -> dict:
        if isinstance(item, Exception):
            return {"transport exception": repr(item)}
        return item.message.model_dump(mode="json", by_alias=True, exclude_unset=True)

    @asynccontextmanager
    async def transport(self, params: StdioServerParameters):
        """The SDK's stdio transport (which starts the server and stops it on exit), with every
        message in each direction recorded on its way."""
        async with stdio_client(params, errlog=self.stderr) as (from_server, to_server):
            to_client, client_reads = anyio.create_memory_object_stream(0)
            client_writes, to_forward = anyio.create_memory_object_stream(0)

            async def inbound():
                async with to_client:
                    async for item in from_server:
                        self.received.append(self._json(item))
                        await to_client.send(item)

            async def outbound():
                async with to_forward:
                    async for item in to_forward:
                        self.sent.append(self._json(item))
                        await to_server.send(item)

            async with anyio.create_task_group() as forwarding:
                forwarding.start_soon(inbound)
                forwarding.start_soon(outbound)
                try:
                    yield client_reads, client_writes
                finally:
                    forwarding.cancel_scope.cancel()

    async def message_handler(self, message) -> None:
        """The SDK's `message_handler=`: every server notification the session surfaces
        (`notifications/elicitation/complete` as `types.ElicitCompleteNotification`), and
        transport exceptions (the SDK logs what a handler raises: they are kept, and checked)."""
        if isinstance(message, Exception):
            self.faults.append(message)
        else:
            self.notifications.append(message)

    def completions(self) -> list[str]:
        return [n.params.elicitation_id for n in self.notifications
                if isinstance(n, types.ElicitCompleteNotification)]

    async def until_retried(self) -> None:
        """2026-07-28: until the client has sent its retry (a second `tools/call`), which
        carries its accept."""
        with anyio.fail_after(HTTP_TIMEOUT):
            while sum(m.get("method") == "tools/call" for m in self.sent) < 2:
                await anyio.sleep(0.01)

    async def until_accepted(self) -> None:
        """Until the client has answered the server's latest `elicitation/create` with accept."""
        with anyio.fail_after(HTTP_TIMEOUT):
            while True:
                asked = [m for m in self.received if m.get("method") == "elicitation/create"]
                if asked and any(m.get("id") == asked[-1]["id"] and "method" not in m
                                 and m.get("result", {}).get("action") == "accept" for m in self.sent):
                    return
                await anyio.sleep(0.01)

    def stderr_text(self) -> str:
        self.stderr.flush()
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")


def flow_of(url: str) -> str:
    """The flow id of a page URL, checking the URL is the page's base and the id, nothing else:
    no query, no fragment, no user data."""
    found = PAGE_URL.fullmatch(url)
    assert found, f"expected http://localhost:<port>/elicit/<32 lowercase hex>, got {url!r}"
    parts = urllib.parse.urlsplit(url)
    assert not parts.query and not parts.fragment and parts.username is None, url
    assert 0 < int(found["port"]) < 65536, url
    return found["flow"]


@dataclass
class Connection:
    """What one `connect_api_key` call came to, and everything seen on the way."""

    key: str
    result: tuple[str, bool]
    asked: list[types.ElicitRequestURLParams]
    wire: Wire
    stderr: str
    browsers: list[Browser] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.asked[0].url


async def connect(mode, *, before=None, after=None, early=False, key=None) -> Connection:
    """Call `connect_api_key` from a fresh client on a fresh server, the user doing the page in
    their `Browser`: `before(browser, url, key)` first (what the page must refuse), then
    `browser.finish`, then `after(browser, url, key)`. Blocking HTTP runs in a worker thread.

    legacy: the callback accepts at once and starts the browser, which waits until the accept
    has been sent: the tool is waiting for the page. 2026-07-28: the callback runs `before` and
    accepts with the page not finished, and the browser finishes the page (and runs `after`)
    half a second after the client sent its retry: the retry is waiting for the page then.
    `early`: on both, the callback does all of it before it accepts (a client that opens the
    page before it answers, and a quick user)."""
    key = key or new_key()
    browser = Browser()
    asked: list[types.ElicitRequestURLParams] = []

    def on_the_page(url, *, refusals, finish):
        if refusals and before is not None:
            before(browser, url, key)
        if finish:
            browser.finish(url, key)
            if after is not None:
                after(browser, url, key)

    with tempfile.TemporaryFile() as stderr:
        wire = Wire(stderr)

        # legacy: the browser's part, which goes on after the tool returns (`after`: a replay);
        # the client, and so the server and its pages, stay up until it is done.
        browsed = anyio.Event()

        async def browse_once_accepted(url):
            try:
                await wire.until_accepted()
                await anyio.to_thread.run_sync(lambda: on_the_page(url, refusals=True, finish=True))
            finally:
                browsed.set()

        async def browse_once_retried(url):
            try:
                await wire.until_retried()
                await anyio.sleep(0.5)
                await anyio.to_thread.run_sync(lambda: on_the_page(url, refusals=False, finish=True))
            finally:
                browsed.set()

        async with anyio.create_task_group() as user:

            async def callback(context, params):
                asked.append(params)
                assert isinstance(params, types.ElicitRequestURLParams), f"a URL question: {params!r}"
                if early:
                    await anyio.to_thread.run_sync(lambda: on_the_page(params.url, refusals=True, finish=True))
                elif mode == "legacy":
                    user.start_soon(browse_once_accepted, params.url)
                elif len(asked) == 1:
                    await anyio.to_thread.run_sync(lambda: on_the_page(params.url, refusals=True, finish=False))
                    user.start_soon(browse_once_retried, params.url)
                return accept()

            async with Client(wire.transport(SERVER), mode=mode, elicitation_callback=callback,
                              message_handler=wire.message_handler) as client:
                expected = "2025-11-25" if mode == "legacy" else mode
                assert client.session.protocol_version == expected, client.session.protocol_version
                result = await client.call_tool(TOOL, {})
                if not early and asked:
                    await browsed.wait()
        # The client has stopped the server: its stderr is all there.
        return Connection(key=key, result=result_text(result), asked=asked, wire=wire,
                          stderr=wire.stderr_text(), browsers=[browser])


def expect_connected(mode, seen: Connection) -> str:
    """The result says connected, the user was asked once (on 2026-07-28 too: the retry waited
    for the page rather than asking again), and the key leaked nowhere. Returns the flow id."""
    expect(seen.result, connected(seen.key))
    assert not seen.wire.faults, f"transport exceptions: {seen.wire.faults}"
    flow = flow_of(seen.url)
    for question in seen.asked:
        assert question.url == seen.url, f"every round asks with the same URL: {[q.url for q in seen.asked]}"
    assert seen.asked[0].message == MESSAGE, seen.asked[0].message
    if mode == "legacy":
        assert len(seen.asked) == 1, f"asked {len(seen.asked)} times"
        assert seen.asked[0].elicitation_id == flow, f"elicitationId {seen.asked[0].elicitation_id!r} != {flow}"
        expect_completed_before_the_result(seen.wire, flow)
    else:
        assert len(seen.asked) == 1, f"asked {len(seen.asked)} times: the retry did not wait for the page"
        assert all(q.elicitation_id is None for q in seen.asked), "2026-07-28 has no elicitationId"
        # The SDK drops it on 2026-07-28 before message_handler: look at the wire too.
        sent = [m for m in seen.wire.received if m.get("method") == "notifications/elicitation/complete"]
        assert not sent and not seen.wire.completions(), f"2026-07-28 has no completion notification: {sent}"
    expect_no_leak(seen)
    return flow


def expect_completed_before_the_result(wire: Wire, flow: str) -> None:
    """2025-11-25: one `notifications/elicitation/complete` for this flow reached the SDK's
    message_handler, and on the wire it came before the tool's result."""
    assert wire.completions() == [flow], f"completions {wire.completions()}, expected [{flow!r}]"
    methods = [m.get("method") or ("result" if "result" in m else "error") for m in wire.received]
    done = [i for i, m in enumerate(wire.received) if m.get("method") == "notifications/elicitation/complete"]
    assert len(done) == 1, methods
    assert wire.received[done[0]]["params"] == {"elicitationId": flow}, wire.received[done[0]]
    call = [i for i, m in enumerate(wire.received) if "content" in m.get("result", {})]
    assert len(call) == 1 and done[0] < call[0], f"the notification comes before the result: {methods}"


def expect_no_leak(seen: Connection) -> None:
    """Neither the key nor any 8 characters of it anywhere the test can see."""
    key = seen.key
    pieces = [key[i:i + 8] for i in range(len(key) - 7)]
    places = {
        "the server's stderr": seen.stderr,
        "the messages the client received": json.dumps(seen.wire.received),
        "the messages the client sent": json.dumps(seen.wire.sent),
        "the pages the browser was shown": "\n".join(p.body for b in seen.browsers for p in b.shown),
    }
    for place, text in places.items():
        assert key not in text, f"the key is in {place}"
        leaked = [piece for piece in pieces if piece in text]
        assert not leaked, f"pieces of the key {leaked} are in {place}"


# ------------------------------------------------------------------------------------ the cases

async def connect_with_the_page(mode):
    seen = await connect(mode)
    expect_connected(mode, seen)
    first = seen.browsers[0].shown[0]
    cookies = first.headers.get_all("Set-Cookie") or []
    assert len(cookies) == 1 and cookies[0].startswith("elicit-browser-"), cookies
    attributes = {a.strip().lower() for a in cookies[0].split(";")[1:]}
    assert {"httponly", "samesite=lax", "path=/elicit/"} <= attributes, cookies[0]
    assert first.headers["Cache-Control"] == "no-store", first.headers
    assert first.headers["Referrer-Policy"] == "no-referrer", first.headers
    assert "default-src 'none'" in first.headers["Content-Security-Policy"], first.headers


def post_without_origin(browser, url, key):
    # Neither `Origin` nor `Sec-Fetch-Site`: urllib sends neither unless told.
    page = browser.post(url, browser.open(url).filled(key), origin=None)
    assert page.status == 403, f"{page.status}: {page.body}"


def post_from_another_site(browser, url, key):
    page = browser.post(url, browser.open(url).filled(key), origin="http://evil.example")
    assert page.status == 403, f"{page.status}: {page.body}"


def open_in_a_second_browser(browser, url, key):
    browser.open(url)
    other = Browser()
    page = other.get(url)
    assert page.status == 403, f"{page.status}: {page.body}"
    assert "another browser" in page.body, page.body


def open_an_edited_flow_id(browser, url, key):
    last = url[-1]
    edited = url[:-1] + ("0" if last != "0" else "1")
    page = browser.get(edited)
    assert page.status == 404, f"{page.status}: {page.body}"


def open_under_another_host_name(browser, url, key):
    # A page elsewhere whose name now resolves to 127.0.0.1 (DNS rebinding) sends its own Host.
    port = urllib.parse.urlsplit(url).port
    page = browser.request("GET", url, headers={"Host": f"evil.example:{port}"})
    assert page.status == 421, f"{page.status}: {page.body}"


def replay_the_submission(browser, url, key):
    assert browser.submitted is not None
    page = browser.post(url, browser.submitted)
    assert page.status == 410, f"{page.status}: {page.body}"


def post_a_key_too_short(browser, url, key):
    # A rule of the form, not a refusal: the form again (422), and what was typed not shown.
    page = browser.post(url, browser.open(url).filled(key[:19]))
    assert page.status == 422, f"{page.status}: {page.body}"
    read_form(page)


async def page_refuses_a_post_without_origin(mode):
    expect_connected(mode, await connect(mode, before=post_without_origin))


async def page_refuses_a_post_from_another_site(mode):
    expect_connected(mode, await connect(mode, before=post_from_another_site))


async def page_refuses_a_second_browser(mode):
    seen = await connect(mode, before=open_in_a_second_browser)
    expect_connected(mode, seen)


async def page_refuses_an_edited_flow_id(mode):
    expect_connected(mode, await connect(mode, before=open_an_edited_flow_id))


async def page_refuses_another_host_name(mode):
    expect_connected(mode, await connect(mode, before=open_under_another_host_name))


async def page_refuses_a_replayed_submission(mode):
    expect_connected(mode, await connect(mode, after=replay_the_submission))


async def page_asks_again_for_a_key_too_short(mode):
    expect_connected(mode, await connect(mode, before=post_a_key_too_short))


async def page_finished_before_the_accept(mode):
    # The flow is read as it is when the accept comes: done already, not waited for.
    expect_connected(mode, await connect(mode, early=True))


async def answered(mode, answers, server=SERVER):
    """Call `connect_api_key` from a fresh client on a fresh server, the user giving `answers`
    in order and never doing the page; then, the server still up, the user's browser opens the
    page. Returns the result, the questions asked, when each was asked, and that page."""
    asked: list[types.ElicitRequestURLParams] = []
    times: list[float] = []

    async def callback(context, params):
        assert isinstance(params, types.ElicitRequestURLParams), f"a URL question: {params!r}"
        asked.append(params)
        times.append(anyio.current_time())
        return answers[len(asked) - 1]

    with tempfile.TemporaryFile() as stderr:
        wire = Wire(stderr)
        async with Client(wire.transport(server), mode=mode, elicitation_callback=callback,
                          message_handler=wire.message_handler) as client:
            result = result_text(await client.call_tool(TOOL, {}))
            page = await anyio.to_thread.run_sync(lambda: Browser().get(asked[0].url))
    assert not wire.faults, f"transport exceptions: {wire.faults}"
    return result, asked, times, page


@only_on("2026-07-28")
async def page_not_finished_in_the_wait_is_asked_again_then_declined(mode):
    # Three retries accept and each waits for the page (PAGE_WAIT), then is asked again with the
    # same URL and a note: more than the re-ask bound (2), and not an error, since an accept is
    # not a bad answer. The decline ends the flow, and its page says so.
    result, asked, times, page = await answered(mode, [accept(), accept(), accept(), DECLINE], SHORT_WAIT)
    expect(result, NOT_CONNECTED)
    assert len(asked) == 4, f"asked {len(asked)} times, expected 4"
    assert all(q.url == asked[0].url for q in asked), [q.url for q in asked]
    flow_of(asked[0].url)
    assert asked[0].message == MESSAGE, asked[0].message
    for again in asked[1:]:
        assert again.message.startswith(MESSAGE) and STILL_OPEN in again.message, again.message
    waits = [later - earlier for earlier, later in zip(times, times[1:])]
    assert all(wait >= PAGE_WAIT * 0.9 for wait in waits), f"each accept waited for the page: {waits}"
    assert page.status == 410 and "You declined this request" in page.body, f"{page.status}: {page.body}"


async def page_refuses_after_a_decline(mode):
    result, asked, _, page = await answered(mode, [DECLINE])
    expect(result, NOT_CONNECTED)
    assert len(asked) == 1, f"asked {len(asked)} times"
    assert page.status == 410 and "You declined this request" in page.body, f"{page.status}: {page.body}"
    assert "Nothing was stored" in page.body and "<form" not in page.body, page.body


async def page_refuses_after_a_cancel(mode):
    result, asked, _, page = await answered(mode, [CANCEL])
    expect(result, NOT_CONNECTED)
    assert len(asked) == 1, f"asked {len(asked)} times"
    assert page.status == 410 and "This request was dismissed" in page.body, f"{page.status}: {page.body}"


CASES = [connect_with_the_page, page_finished_before_the_accept,
         page_not_finished_in_the_wait_is_asked_again_then_declined,
         page_refuses_after_a_decline, page_refuses_after_a_cancel,
         page_refuses_a_post_without_origin, page_refuses_a_post_from_another_site,
         page_refuses_a_second_browser, page_refuses_an_edited_flow_id,
         page_refuses_another_host_name, page_refuses_a_replayed_submission,
         page_asks_again_for_a_key_too_short]


if __name__ == "__main__":
    sys.exit(anyio.run(run_cases, CASES))
