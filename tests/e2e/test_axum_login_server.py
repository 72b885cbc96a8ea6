"""End-to-end: the `axum_login_server` example (users signed in by axum-login; URL mode on the
library's page) driven by the official Python MCP client (`mcp==2.3.0`) over streamable HTTP,
with the user's browser played by plain HTTP (`httpx2`, the SDK's own HTTP client) and its
cookie jar.

The MCP client carries no browser cookie: it sends its account's bearer token
(`Authorization: Bearer <token>`), checked against the server's own accounts. The browser signs
in on axum-login's login page with the same account's password. Both name the same principal:
`connect_api_key` sends the user to the page, and the browser, sent to `/login` and back, saves
the key there; the tool answers "Connected the key ending ...". On both revisions: legacy
(2025-11-25, a session bound to the token's account) and 2026-07-28 (stateless rounds, each
retry carrying the token).

Every case starts its own server on a free loopback port, and stops it when the case ends.

Run through `.ci/python_e2e.sh`, or:
AXUM_LOGIN_SERVER=target/debug/examples/axum_login_server python tests/e2e/test_axum_login_server.py
(or `python -m pytest tests/e2e/test_axum_login_server.py`, every case in one test).
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import subprocess
import sys
import tempfile
import urllib.parse
from contextlib import asynccontextmanager

import anyio
import httpx2
from harness import accept, expect, only_on, result_text, run_cases
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from processes import free_port, stop, wait_for_port

SERVER = os.environ.get("AXUM_LOGIN_SERVER", "")
PASSWORD = "correct horse battery staple"
TOKEN = "alice-mcp-token-" + secrets.token_hex(16)
BOB_TOKEN = "bob-mcp-token-" + secrets.token_hex(16)
ACCOUNTS = f"alice:{PASSWORD}:{TOKEN}\nbob:tr0ub4dor&3:{BOB_TOKEN}\n"
CSRF = re.compile(r'name="_csrf" value="([^"]+)"')


def new_key() -> str:
    return "exco_" + secrets.token_hex(16)


@asynccontextmanager
async def server():
    """`axum_login_server` on a free port, its accounts alice and bob; its origin."""
    port = free_port()
    log = tempfile.TemporaryFile()
    process = subprocess.Popen([SERVER], env=dict(os.environ, PORT=str(port), ACCOUNTS=ACCOUNTS),
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, "axum_login_server", process)
        yield f"http://localhost:{port}"
    except BaseException:
        log.seek(0)
        print(log.read().decode(errors="replace")[-3000:], file=sys.stderr)
        raise
    finally:
        stop(process)
        log.close()


async def browse(origin: str, url: str, key: str) -> None:
    """What alice does in her browser: opens the page, is sent to the login page, signs in, comes
    back to the page and saves the key. Plain HTTP with a cookie jar; each form posted with the
    site's `Origin`, as a browser does."""
    async with httpx2.AsyncClient(timeout=10, follow_redirects=False) as browser:
        path = urllib.parse.urlsplit(url).path
        first = await browser.get(url)
        assert first.status_code == 303, (first.status_code, first.text)
        to_login = first.headers["location"]
        assert to_login.startswith("/login?next="), to_login
        form = await browser.get(origin + to_login)
        assert form.status_code == 200 and 'type="password"' in form.text, form.text
        signed_in = await browser.post(f"{origin}/login", headers={"Origin": origin},
                                       data={"name": "alice", "password": PASSWORD, "next": path})
        assert signed_in.status_code == 303, (signed_in.status_code, signed_in.text)
        assert signed_in.headers["location"] == path, signed_in.headers
        page = await browser.get(url)
        assert page.status_code == 200, (page.status_code, page.text)
        assert "Signed in as <strong>alice</strong>" in page.text, page.text
        csrf = CSRF.search(page.text)
        assert csrf, page.text
        saved = await browser.post(url, headers={"Origin": origin},
                                   data={"_csrf": csrf.group(1), "key": key})
        assert saved.status_code == 200 and "Saved" in saved.text, (saved.status_code, saved.text)


async def connect_with_a_bearer_token(mode):
    """The tool call with alice's token; her browser signs in on the login page and saves the
    key; the call answers "Connected"."""
    key = new_key()
    asked: list[str] = []
    async with server() as origin:

        async def on_the_page(context, params):
            assert isinstance(params, types.ElicitRequestURLParams), params
            asked.append(params.url)
            assert params.url.startswith(f"{origin}/elicit/"), params.url
            await browse(origin, params.url, key)
            return accept()

        mcp_http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120),
                                      headers={"Authorization": f"Bearer {TOKEN}"})
        async with mcp_http:
            transport = streamable_http_client(f"{origin}/mcp", http_client=mcp_http)
            async with Client(transport, mode=mode, elicitation_callback=on_the_page) as client:
                result = await client.call_tool("connect_api_key", {})
            assert not mcp_http.cookies, f"the MCP client holds no cookie: {mcp_http.cookies}"
    expect(result_text(result), f"Connected the key ending {key[-4:]}.")
    assert len(asked) == 1, asked


@only_on("legacy")  # plain HTTP, before any revision is spoken
async def a_token_of_no_account_is_refused(mode):
    """A token of no account, or a password in its place, is 401 with a Bearer challenge; no
    token and no session, 403: neither reaches the tool."""
    async def initialize(origin, token=None):
        # A connection each: a refusal that leaves the body unread closes its connection.
        headers = {"Accept": "application/json, text/event-stream"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "e2e", "version": "0"}}}
        async with httpx2.AsyncClient(timeout=10) as http:
            return await http.post(f"{origin}/mcp", json=message, headers=headers)

    async with server() as origin:
        for token in (TOKEN[:-1], PASSWORD, BOB_TOKEN + "x"):
            refused = await initialize(origin, token)
            assert refused.status_code == 401, (refused.status_code, refused.text)
            assert refused.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        nobody = await initialize(origin)
        assert nobody.status_code == 403, (nobody.status_code, nobody.text)
        bob = await initialize(origin, BOB_TOKEN)
        assert bob.status_code == 200, (bob.status_code, bob.text)


CASES = [connect_with_a_bearer_token, a_token_of_no_account_is_refused]


def test_every_case_on_both_revisions():
    """For `python -m pytest`: every case, each on both revisions, none filtered."""
    assert SERVER, "AXUM_LOGIN_SERVER names the built example"
    assert anyio.run(functools.partial(run_cases, CASES, only=[])) == 0


if __name__ == "__main__":
    assert SERVER, "AXUM_LOGIN_SERVER names the built example"
    sys.exit(anyio.run(run_cases, CASES))
