"""End-to-end: the `ops_server` example driven by the official Python MCP client (`mcp==2.3.0`).

Every case runs twice: in `legacy` mode (initialize handshake, 2025-11-25, the server sends
`elicitation/create`) and in `2026-07-28` mode (per-request `_meta`, the server answers with an
input-required result and the client retries). Each asserts the tool's result text and isError.

Run through `.ci/python_e2e.sh`, or: OPS_SERVER=target/debug/examples/ops_server python tests/e2e/test_ops_server.py
"""

from __future__ import annotations

import os
import sys
import traceback

import anyio
from mcp import Client, StdioServerParameters, types

SERVER = StdioServerParameters(command=os.environ["OPS_SERVER"], args=[])
MODES = ("legacy", "2026-07-28")


class Answers:
    """An elicitation callback that gives the queued answers in order and records what it saw."""

    def __init__(self, *answers: types.ElicitResult) -> None:
        self.answers = list(answers)
        self.seen: list[types.ElicitRequestFormParams | types.ElicitRequestURLParams] = []

    async def __call__(self, context, params):
        self.seen.append(params)
        answer = self.answers[min(len(self.seen), len(self.answers)) - 1]
        return answer


def accept(content=None) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


DECLINE = types.ElicitResult(action="decline")
CANCEL = types.ElicitResult(action="cancel")


async def call(mode, tool, arguments, callback):
    kwargs = {"mode": mode}
    if callback is not None:
        kwargs["elicitation_callback"] = callback
    async with Client(SERVER, **kwargs) as client:
        expected = "2025-11-25" if mode == "legacy" else mode
        assert client.session.protocol_version == expected, client.session.protocol_version
        result = await client.call_tool(tool, arguments)
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return text, bool(result.is_error)


def expect(got, text, is_error=False):
    got_text, got_error = got
    assert text in got_text, f"expected {text!r} in {got_text!r}"
    assert got_error == is_error, f"isError={got_error}, expected {is_error}: {got_text!r}"


# --------------------------------------------------------------------------------------- deploy

async def deploy_accept(mode):
    answers = Answers(accept({"env": "staging", "replicas": 3}))
    expect(await call(mode, "deploy", {"service": "billing-api"}, answers),
           "Deployed `billing-api` to Staging with 3 replicas.")
    assert len(answers.seen) == 1
    form = answers.seen[0]
    assert isinstance(form, types.ElicitRequestFormParams), form
    assert "billing-api" in form.message
    env = form.requested_schema["properties"]["env"]
    assert env["default"] == "staging", env  # production is dangerous: never the default
    assert [o["const"] for o in env["oneOf"]] == ["staging", "production"], env


async def deploy_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "deploy", {"service": "billing-api"}, answers),
           "You declined: nothing was deployed.")
    assert len(answers.seen) == 1, "a decline is final: never asked again"


async def deploy_cancel(mode):
    answers = Answers(CANCEL)
    expect(await call(mode, "deploy", {"service": "billing-api"}, answers),
           "You dismissed the question: nothing was deployed.")
    assert len(answers.seen) == 1, "a cancel is final: never asked again"


async def deploy_rejected_then_fixed(mode):
    answers = Answers(accept({"env": "prod", "replicas": 3}), accept({"env": "production", "replicas": 4}))
    expect(await call(mode, "deploy", {"service": "billing-api"}, answers),
           "Deployed `billing-api` to Production with 4 replicas.")
    assert len(answers.seen) == 2, "an answer that breaks the form is asked again"


async def deploy_rejected(mode):
    answers = Answers(accept({"env": "prod", "replicas": 99}))
    expect(await call(mode, "deploy", {"service": "billing-api"}, answers),
           "The answer could not be used after 2 tries: ", is_error=True)
    assert len(answers.seen) == 2, "an invalid answer is asked again once, then the call ends"


async def deploy_headless(mode):
    path = ("capabilities.elicitation.form" if mode == "legacy"
            else '_meta["io.modelcontextprotocol/clientCapabilities"].elicitation.form')
    got = await call(mode, "deploy", {"service": "billing-api"}, None)
    expect(got, path, is_error=True)
    expect(got, "Nothing was deployed.", is_error=True)


# ------------------------------------------------------------------------------------ drop_table

async def drop_consent(mode):
    answers = Answers(accept({"confirm": True}))
    expect(await call(mode, "drop_table", {"table": "users"}, answers), "Dropped table `users`.")
    confirm = answers.seen[0].requested_schema["properties"]["confirm"]
    assert confirm["type"] == "boolean" and confirm.get("default") is not True, confirm


async def drop_unticked(mode):
    answers = Answers(accept({"confirm": False}))
    expect(await call(mode, "drop_table", {"table": "users"}, answers),
           "You declined: `users` was not dropped.")
    assert len(answers.seen) == 1


async def drop_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "drop_table", {"table": "users"}, answers),
           "You declined: `users` was not dropped.")


async def drop_headless(mode):
    got = await call(mode, "drop_table", {"table": "users"}, None)
    expect(got, "elicitation.form", is_error=True)
    expect(got, "`users` was not dropped.", is_error=True)


# -------------------------------------------------------------------------------- connect_github

async def connect_url_consent(mode):
    answers = Answers(accept())
    expect(await call(mode, "connect_github", {}, answers),
           "Finish connecting GitHub on the page that opened")
    page = answers.seen[0]
    assert isinstance(page, types.ElicitRequestURLParams), page
    assert page.url.startswith("https://ops.example.com/connect/github?flow="), page.url


async def connect_url_decline(mode):
    answers = Answers(DECLINE)
    expect(await call(mode, "connect_github", {}, answers), "You declined: GitHub was not connected.")
    assert len(answers.seen) == 1


async def connect_headless(mode):
    expect(await call(mode, "connect_github", {}, None), "elicitation.url", is_error=True)


CASES = [deploy_accept, deploy_decline, deploy_cancel, deploy_rejected_then_fixed, deploy_rejected,
         deploy_headless, drop_consent, drop_unticked, drop_decline, drop_headless,
         connect_url_consent, connect_url_decline, connect_headless]


async def main() -> int:
    only = sys.argv[1:]
    passed = failed = 0
    for mode in MODES:
        for case in CASES:
            name = f"{case.__name__}[{mode}]"
            if only and not any(o in name for o in only):
                continue
            try:
                with anyio.fail_after(60):
                    await case(mode)
            except BaseException as error:  # noqa: BLE001 - report every failure, keep going
                failed += 1
                print(f"FAIL {name}: {error!r}")
                traceback.print_exc()
            else:
                passed += 1
                print(f"PASS {name}")
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
