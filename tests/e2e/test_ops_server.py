"""End-to-end: the `ops_server` example driven by the official Python MCP client (`mcp==2.3.0`).

Every case runs twice: in `legacy` mode (initialize handshake, 2025-11-25, the server sends
`elicitation/create`) and in `2026-07-28` mode (per-request `_meta`, the server answers with an
input-required result and the client retries). Each asserts the tool's exact result text and
isError, and how many times the user was asked.

The `wire_` cases at the end talk to the server binary themselves, line by line, so what they
assert is the server's own JSON text, not what the SDK made of it.

`connect_github` sends the user to the server's own page (`http://localhost:<port>/elicit/<flow
id>`), which sends them on to GitHub. The server is started with a made-up GitHub OAuth app
(`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`): the cases check the page and where it sends the
browser (urllib plays the browser, and stops at GitHub's door), never GitHub itself. The whole
consent, against a local OpenID provider standing in for GitHub, runs in Chromium in
`tests/browser/tests/ops_server_github.rs`; the tool's reading of a finished page, in process in
`examples/rmcp/tests/asker_url_mode.rs`. Without the two variables, the server starts and
`connect_github` says what to set (`connect_without_a_github_app`).

Run through `.ci/python_e2e.sh`, or: OPS_SERVER=target/debug/examples/ops_server python tests/e2e/test_ops_server.py
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from contextlib import asynccontextmanager

import anyio
import anyio.to_thread
from anyio.streams.buffered import BufferedByteReceiveStream
from harness import A_PERSON, CANCEL, DECLINE, Answers, accept, expect, only_on, result_text, run_cases
from mcp import Client, StdioServerParameters, types

# A GitHub OAuth app made up for these cases: nothing here reaches GitHub.
GITHUB_APP = {"GITHUB_CLIENT_ID": "Iv1.e2e0123456789ab", "GITHUB_CLIENT_SECRET": "e2e-app-secret-0123456789"}
SERVER = StdioServerParameters(command=os.environ["OPS_SERVER"], args=[], env=GITHUB_APP)
# The SDK starts a server with a short list of the environment's variables, and these two are not
# among them: this server has no GitHub app.
WITHOUT_GITHUB = StdioServerParameters(command=os.environ["OPS_SERVER"], args=[])
PAGE_URL = re.compile(r"http://localhost:(?P<port>[0-9]{1,5})/elicit/(?P<flow>[0-9a-f]{32})")
HTTP_TIMEOUT = 10


async def call(mode, tool, arguments, callback, server=SERVER):
    """Call `tool` from a fresh client (a fresh server); `callback` None is a client that cannot
    be asked. Returns the result's text and isError. A protocol error raises."""
    kwargs = {"mode": mode}
    if callback is not None:
        kwargs["elicitation_callback"] = callback
    async with Client(server, **kwargs) as client:
        expected = "2025-11-25" if mode == "legacy" else mode
        assert client.session.protocol_version == expected, client.session.protocol_version
        result = await client.call_tool(tool, arguments)
    return result_text(result)


def expect_headless(got, mode, elicitation_mode, hint):
    """A client that cannot be asked gets an isError result naming the capability it did not
    declare, where that revision declares it, and ending with what the tool did not do."""
    got_text, got_error = got
    root = "capabilities" if mode == "legacy" else '_meta["io.modelcontextprotocol/clientCapabilities"]'
    missing = f"(`{root}.elicitation.{elicitation_mode}` is missing)"
    assert got_error, f"a client that cannot be asked gets isError: {got_text!r}"
    assert missing in got_text, f"expected {missing!r} in {got_text!r}"
    assert got_text.endswith(hint), f"expected {got_text!r} to end with {hint!r}"


def reasked(explanation, message):
    """The message of a form asked again: what was wrong, a blank line, the original message."""
    return f"Your last answer could not be used: {explanation}\n\n{message}"


# --------------------------------------------------------------------------------------- deploy

DEPLOY = {"service": "billing-api"}
DEPLOY_MESSAGE = "Where should `billing-api` be deployed? Production serves customer traffic."
DEPLOY_FIELDS = ["env", "replicas", "change_ticket"]  # DeployTarget's fields, in struct order


async def deploy_accept(mode):
    answers = Answers(accept({"env": "production", "replicas": 3, "change_ticket": "CHG-1234"}))
    expect(await call(mode, "deploy", DEPLOY, answers),
           "Deployed `billing-api` to Production with 3 replicas.")
    assert len(answers.seen) == 1
    form = answers.seen[0]
    assert isinstance(form, types.ElicitRequestFormParams), form
    assert form.message == DEPLOY_MESSAGE, form.message
    schema = form.requested_schema
    assert schema["required"] == ["env", "replicas"], schema  # change_ticket is an Option
    env = schema["properties"]["env"]
    assert env["default"] == "staging", env  # production is dangerous: never the default
    assert [o["const"] for o in env["oneOf"]] == ["staging", "production"], env
    replicas = schema["properties"]["replicas"]
    assert (replicas["minimum"], replicas["maximum"], replicas["default"]) == (1, 10, 2), replicas


async def deploy_form_fields_in_struct_order(mode):
    # The SDK keeps `requestedSchema` as the JSON object it read (a dict, in document order);
    # wire_form_fields_in_struct_order checks the same on the raw line, with no SDK in between.
    answers = Answers(accept({"env": "staging", "replicas": 11}), accept({"env": "staging", "replicas": 2}))
    expect(await call(mode, "deploy", DEPLOY, answers), "Deployed `billing-api` to Staging with 2 replicas.")
    for form in answers.seen:  # the first form and the one asked again
        assert list(form.requested_schema["properties"]) == DEPLOY_FIELDS, form.requested_schema


async def deploy_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "deploy", DEPLOY, answers), "You declined: nothing was deployed.")
    assert len(answers.seen) == 1, "a decline is final: never asked again"


async def deploy_cancel(mode):
    answers = Answers(CANCEL)
    expect(await call(mode, "deploy", DEPLOY, answers), "You dismissed the question: nothing was deployed.")
    assert len(answers.seen) == 1, "a cancel is final: never asked again"


async def deploy_invalid_then_valid(mode):
    answers = Answers(accept({"env": "staging", "replicas": 11}), accept({"env": "staging", "replicas": 4}))
    expect(await call(mode, "deploy", DEPLOY, answers), "Deployed `billing-api` to Staging with 4 replicas.")
    assert len(answers.seen) == 2, "an answer that breaks the form is asked again, once"
    first, again = answers.seen
    assert first.message == DEPLOY_MESSAGE, first.message
    assert again.message == reasked("Replicas must be at most 10.", DEPLOY_MESSAGE), again.message
    assert again.requested_schema == first.requested_schema, "the same form, asked again"


async def deploy_reask_explains_every_rule_and_quotes_nothing(mode):
    answers = Answers(accept({"env": "prod-eu-9", "replicas": 0, "change_ticket": "X7"}),
                      accept({"env": "staging", "replicas": 1}))
    expect(await call(mode, "deploy", DEPLOY, answers), "Deployed `billing-api` to Staging with 1 replicas.")
    again = answers.seen[1].message
    explanation = ("Environment must be one of the choices offered; Replicas must be at least 1; "
                   "Change ticket must be at least 4 characters long.")
    assert again == reasked(explanation, DEPLOY_MESSAGE), again
    for sent in ("prod-eu-9", "X7"):
        assert sent not in again, f"the client's value {sent!r} is quoted back: {again!r}"


async def deploy_invalid_forever(mode):
    answers = Answers(accept({"env": "staging", "replicas": 99}))
    # A JSON-RPC error would raise here: the call must end with a result the model can read.
    expect(await call(mode, "deploy", DEPLOY, answers),
           "The answer could not be used after 2 tries: Replicas must be at most 10. Nothing was deployed.",
           is_error=True)
    assert len(answers.seen) == 2, f"asked {len(answers.seen)} times: once, then once again, then stop"
    assert answers.seen[1].message == reasked("Replicas must be at most 10.", DEPLOY_MESSAGE)


async def deploy_headless(mode):
    expect_headless(await call(mode, "deploy", DEPLOY, None), mode, "form", "Nothing was deployed.")


# ------------------------------------------------------------------------------------ drop_table

DROP = {"table": "users"}
DROP_MESSAGE = "Permanently drop table `users` and every row in it? This cannot be undone."


async def drop_consent_ticked(mode):
    answers = Answers(accept({"confirm": True}), after=A_PERSON)
    expect(await call(mode, "drop_table", DROP, answers), "Dropped table `users`.")
    assert len(answers.seen) == 1
    form = answers.seen[0]
    assert form.message == DROP_MESSAGE, form.message
    confirm = form.requested_schema["properties"]["confirm"]
    assert confirm["type"] == "boolean" and confirm.get("default") is not True, confirm


async def drop_consent_unticked_is_a_decline(mode):
    answers = Answers(accept({"confirm": False}))
    expect(await call(mode, "drop_table", DROP, answers), "You declined: `users` was not dropped.")
    assert len(answers.seen) == 1, "an unticked consent is an answer, not an invalid one: never asked again"


async def drop_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "drop_table", DROP, answers), "You declined: `users` was not dropped.")
    assert len(answers.seen) == 1


async def drop_cancel(mode):
    answers = Answers(CANCEL)
    expect(await call(mode, "drop_table", DROP, answers), "You dismissed the question: `users` was not dropped.")
    assert len(answers.seen) == 1


async def drop_headless(mode):
    expect_headless(await call(mode, "drop_table", DROP, None), mode, "form", "`users` was not dropped.")


# -------------------------------------------------------------------------------- connect_github

CONNECT_MESSAGE = "Connect your GitHub account on our page, so I can open pull requests for you."


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A browser that stops at the door: a redirect is a response to read, not to follow."""

    def redirect_request(self, *args, **kwargs):
        return None


def continue_to_github(url):
    """What the user's browser does on the page: open it (a cookie of the pages' own), press
    "Continue to GitHub" (its form, with its CSRF token, from its origin); returns where the page
    sends the browser, and the cookies it set."""
    cookies = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(
        urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(cookies), NoRedirects())
    with browser.open(url, timeout=HTTP_TIMEOUT) as page:
        assert page.status == 200, page.status
        html = page.read().decode()
    assert "Connect GitHub" in html and "Continue to GitHub" in html, html
    assert CONNECT_MESSAGE in html, html
    csrf = re.search(r'name="_csrf" value="([^"]+)"', html)
    assert csrf, html
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
    form = urllib.parse.urlencode({"_csrf": csrf.group(1)}).encode()
    request = urllib.request.Request(url, data=form, method="POST", headers={"Origin": origin})
    try:
        browser.open(request, timeout=HTTP_TIMEOUT)
    except urllib.error.HTTPError as redirect:
        with redirect:
            assert redirect.code in (302, 303), (redirect.code, redirect.read())
            return redirect.headers["Location"], [c.name for c in cookies]
    raise AssertionError("the page did not send the browser on to GitHub")


class OpensTheGithubPage(Answers):
    """A user who, shown the URL request, opens the page and presses "Continue to GitHub" (and
    stops there: GitHub's consent needs a GitHub account), then answers as queued."""

    def __init__(self, *answers):
        super().__init__(*answers)
        self.sent_to: list[tuple[str, list[str]]] = []

    async def __call__(self, context, params):
        if isinstance(params, types.ElicitRequestURLParams) and not self.sent_to:
            self.sent_to.append(await anyio.to_thread.run_sync(continue_to_github, params.url))
        return await super().__call__(context, params)


async def connect_page_sends_the_user_to_github(mode):
    answers = OpensTheGithubPage(DECLINE)
    expect(await call(mode, "connect_github", {}, answers), "You declined: GitHub was not connected.")
    assert len(answers.seen) == 1
    page = answers.seen[0]
    assert isinstance(page, types.ElicitRequestURLParams), page
    found = PAGE_URL.fullmatch(page.url)
    assert found, f"the server's page, and a flow id, nothing more: {page.url}"
    assert page.message == CONNECT_MESSAGE, page.message
    if mode == "legacy":
        assert page.elicitation_id == found["flow"], "2025-11-25: the elicitationId is the flow's id"
    else:
        # None, not "": the member is absent (wire_url_elicitation_id checks the raw line).
        assert page.elicitation_id is None, f"2026-07-28 has no elicitationId: {page.elicitation_id!r}"
    [(location, cookies)] = answers.sent_to
    github, query = location.split("?", 1)
    assert github == "https://github.com/login/oauth/authorize", location
    query = urllib.parse.parse_qs(query)
    assert query["client_id"] == [GITHUB_APP["GITHUB_CLIENT_ID"]], query
    assert query["scope"] == ["repo"], query
    assert query["redirect_uri"] == [f"http://localhost:{found['port']}/elicit/authorized/github"], query
    assert query["response_type"] == ["code"] and query["code_challenge_method"] == ["S256"], query
    assert query["state"][0] and query["code_challenge"][0], query
    assert f"elicit-authorization-{found['port']}" in cookies, cookies
    assert GITHUB_APP["GITHUB_CLIENT_SECRET"] not in location, "the app's secret stays on the server"


# The same server, whose 2026-07-28 retries wait one second for the page (the library's default
# is 30 s) before they ask again.
PAGE_WAIT = 1.0
SHORT_WAIT = StdioServerParameters(command=os.environ["OPS_SERVER"], args=[],
                                   env={**GITHUB_APP, "OPS_PAGE_WAIT_MS": str(int(PAGE_WAIT * 1000))})
STILL_OPEN = "the page is still open: finish the step there, then retry or continue"


@only_on("2026-07-28")
async def connect_unfinished_waits_then_is_asked_again(mode):
    # An accept before the page is done waits for it (PAGE_WAIT here), then the same page is
    # asked again with a note. Three such re-asks, more than the re-ask bound (2), end in no
    # error: an accept is not a bad answer. The decline ends the flow, and the page, opened
    # afterwards, refuses and says why. (Before 2026-07-28 an accepted page is waited for within
    # the server's ask timeout: examples/rmcp/tests/asker_url_mode.rs checks that.)
    answers = Answers(accept(), accept(), accept(), DECLINE)
    times = []

    async def callback(context, params):
        times.append(anyio.current_time())
        return await answers(context, params)

    async with Client(SHORT_WAIT, mode=mode, elicitation_callback=callback) as client:
        expect(result_text(await client.call_tool("connect_github", {})),
               "You declined: GitHub was not connected.")
        status, html = await anyio.to_thread.run_sync(open_page, answers.seen[0].url)
    assert len(answers.seen) == 4, f"asked {len(answers.seen)} times, expected 4"
    first = answers.seen[0]
    assert first.message == CONNECT_MESSAGE, first.message
    for again in answers.seen[1:]:
        assert again.url == first.url, "the same page"
        assert again.message.startswith(CONNECT_MESSAGE) and STILL_OPEN in again.message, again.message
    waits = [later - earlier for earlier, later in zip(times, times[1:])]
    assert all(wait >= PAGE_WAIT * 0.9 for wait in waits), f"each accept waited for the page: {waits}"
    assert status == 410 and "You declined this request" in html, (status, html)
    assert "Continue to GitHub" not in html, html


def open_page(url):
    """A browser opening `url`: its status and the page shown."""
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=HTTP_TIMEOUT) as page:
            return page.status, page.read().decode()
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.read().decode()


async def connect_without_a_github_app(mode):
    answers = Answers(DECLINE)
    text, is_error = await call(mode, "connect_github", {}, answers, server=WITHOUT_GITHUB)
    assert is_error, text
    assert text.startswith("GitHub is not set up on this server: nothing was asked."), text
    assert "GITHUB_CLIENT_ID" in text and "GITHUB_CLIENT_SECRET" in text, text
    assert re.search(r"the callback URL http://localhost:[0-9]{1,5}/elicit/authorized/github,", text), text
    assert answers.seen == [], "nothing was asked"
    # The other tools work.
    expect(await call(mode, "deploy", DEPLOY, Answers(DECLINE), server=WITHOUT_GITHUB),
           "You declined: nothing was deployed.")


async def connect_url_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "connect_github", {}, answers), "You declined: GitHub was not connected.")
    assert len(answers.seen) == 1


async def connect_url_cancel(mode):
    answers = Answers(CANCEL)
    expect(await call(mode, "connect_github", {}, answers), "You dismissed the request: GitHub was not connected.")
    assert len(answers.seen) == 1


async def connect_headless(mode):
    expect_headless(await call(mode, "connect_github", {}, None), mode, "url",
                    "You can also connect GitHub at https://ops.example.com/settings.")


# -------------------------------------------------------------------------------------- raw wire

CLIENT_INFO = {"name": "raw-wire-check", "version": "0"}
CAN_ASK = {"elicitation": {"form": {}, "url": {}}}
LONGEST_LINE = 1 << 20


class RawServer:
    """The server binary on stdio with nothing in between: JSON-RPC written and read as lines."""

    def __init__(self, mode, process):
        self.mode = mode
        self.process = process
        self.stdout = BufferedByteReceiveStream(process.stdout)
        self.last_id = 0

    @classmethod
    @asynccontextmanager
    async def start(cls, mode):
        """Start the server; on legacy, also the initialize handshake. Closing its stdin ends it."""
        environment = {**os.environ, **GITHUB_APP}
        async with await anyio.open_process([os.environ["OPS_SERVER"]], stderr=None, env=environment) as process:
            server = cls(mode, process)
            if mode == "legacy":
                await server.initialize()
            yield server

    async def initialize(self):
        sent = await self.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": CAN_ASK, "clientInfo": CLIENT_INFO})
        _, response = await self.read_until(id=sent)
        assert response["result"]["protocolVersion"] == "2025-11-25", response
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def send(self, message):
        await self.process.stdin.send(json.dumps(message).encode() + b"\n")

    async def request(self, method, params):
        """Send a request; from 2026-07-28 on its `_meta` says the revision and what the client
        can do, as the SDK's 2026-07-28 mode stamps every request. Returns the request's id."""
        if self.mode != "legacy":
            params = {**params, "_meta": {
                "io.modelcontextprotocol/protocolVersion": self.mode,
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                "io.modelcontextprotocol/clientCapabilities": CAN_ASK,
            }}
        self.last_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        return self.last_id

    async def read_until(self, *, id=None, method=None, timeout=10):
        """Read lines until the response to request `id`, or a message calling `method`, arrives;
        return it as the raw line and as parsed. Other lines are skipped."""
        with anyio.fail_after(timeout):
            while True:
                line = (await self.stdout.receive_until(b"\n", LONGEST_LINE)).decode()
                message = json.loads(line)
                if method is not None and message.get("method") == method:
                    return line, message
                if id is not None and "method" not in message and message.get("id") == id:
                    return line, message


async def question_on_the_wire(mode, tool, arguments):
    """The raw line that carries the server's question for `tool`: the `elicitation/create`
    request (legacy), or the input-required result of the call (2026-07-28)."""
    async with RawServer.start(mode) as server:
        call_id = await server.request("tools/call", {"name": tool, "arguments": arguments})
        if mode != "legacy":
            line, response = await server.read_until(id=call_id)
            assert response["result"]["resultType"] == "input_required", line
            return line
        line, question = await server.read_until(method="elicitation/create")
        await server.send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}})
        _, response = await server.read_until(id=call_id)
        assert response["result"]["content"][0]["text"].startswith("You declined"), response
        return line


async def wire_form_fields_in_struct_order(mode):
    line = await question_on_the_wire(mode, "deploy", DEPLOY)
    schema = line[line.index('"requestedSchema"'):]
    where = [re.search(f'"{name}"\\s*:', schema) for name in DEPLOY_FIELDS]
    assert all(where), f"a field is missing from {schema}"
    positions = [found.start() for found in where]
    assert positions == sorted(positions), f"properties not in struct order {DEPLOY_FIELDS}: {schema}"


async def wire_url_elicitation_id(mode):
    line = await question_on_the_wire(mode, "connect_github", {})
    assert '"mode":"url"' in line.replace(" ", ""), line
    if mode == "legacy":
        assert re.search(r'"elicitationId"\s*:\s*"[^"]+"', line), f"2025-11-25 needs a non-empty elicitationId: {line}"
    else:
        assert '"elicitationId"' not in line, f"2026-07-28 removed elicitationId: {line}"


CASES = [deploy_accept, deploy_form_fields_in_struct_order, deploy_decline, deploy_cancel,
         deploy_invalid_then_valid, deploy_reask_explains_every_rule_and_quotes_nothing,
         deploy_invalid_forever, deploy_headless,
         drop_consent_ticked, drop_consent_unticked_is_a_decline, drop_decline, drop_cancel, drop_headless,
         connect_page_sends_the_user_to_github, connect_unfinished_waits_then_is_asked_again,
         connect_without_a_github_app, connect_url_decline, connect_url_cancel, connect_headless,
         wire_form_fields_in_struct_order, wire_url_elicitation_id]


if __name__ == "__main__":
    sys.exit(anyio.run(run_cases, CASES))
