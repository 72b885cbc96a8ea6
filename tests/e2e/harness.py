"""What the end-to-end files that drive one of this project's servers with the official Python
MCP client (`mcp==2.3.0`) share: the two revisions every case runs on, the elicitation answers
and the callback that gives them in order, the result check, and the runner that runs each case
on each revision and prints `PASS`/`FAIL` lines and `N passed, N failed`.

Imported by `test_ops_server.py`, `test_api_key_server.py` and `test_axum_login_server.py`,
which run as scripts from this folder (`python tests/e2e/<file>.py [case-filter ...]`).
"""

from __future__ import annotations

import sys
import traceback

import anyio
from mcp import types

MODES = ("legacy", "2026-07-28")
"""`legacy`: the initialize handshake, 2025-11-25, the server sends `elicitation/create`.
`2026-07-28`: per-request `_meta`, the server answers with an input-required result and the
SDK's client retries (`Client.call_tool` drives the rounds)."""


class Answers:
    """An elicitation callback that gives the queued answers in order (the last one from then on)
    and records every request it was shown."""

    def __init__(self, *answers: types.ElicitResult, after: float = 0.0) -> None:
        self.answers = list(answers)
        self.after = after
        self.seen: list[types.ElicitRequestFormParams | types.ElicitRequestURLParams] = []

    async def __call__(self, context, params):
        self.seen.append(params)
        # A person's time to read and answer (`after` seconds): before 2026-07-28 the server
        # does not take a consent given faster than a person can read its form.
        await anyio.sleep(self.after)
        return self.answers[min(len(self.seen), len(self.answers)) - 1]


# How long a person takes to read a one-box consent form and tick it: longer than the server's
# threshold for a person (1.25 s for one field).
A_PERSON = 1.5


def only_on(*modes):
    """Runs the case on `modes` only: for what one revision does and the other cannot."""
    def mark(case):
        case.modes = modes
        return case
    return mark


def accept(content=None) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


DECLINE = types.ElicitResult(action="decline")
CANCEL = types.ElicitResult(action="cancel")


def expect(got, text, is_error=False):
    """`got` is a result's (text, isError)."""
    got_text, got_error = got
    assert got_text == text, f"expected {text!r}, got {got_text!r}"
    assert got_error == is_error, f"isError={got_error}, expected {is_error}: {got_text!r}"


def result_text(result: types.CallToolResult):
    """A tool result's text blocks, joined, and its isError."""
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return text, bool(result.is_error)


def innermost(error: BaseException) -> BaseException:
    """The one error inside task groups nested around it (what failed, not where)."""
    while len(getattr(error, "exceptions", ())) == 1:
        error = error.exceptions[0]
    return error


async def run_cases(cases, *, per_case_seconds=60, only=None) -> int:
    """Run each of `cases` (`async def case(mode)`) on each of `MODES`, those whose
    `name[mode]` contains one of the filters if any are given (`only`, else the command line's);
    report each, keep going after a failure. Returns the process's exit status: 1 if any failed,
    or if none ran with no filter given."""
    only = sys.argv[1:] if only is None else only
    passed = failed = 0
    for mode in MODES:
        for case in cases:
            name = f"{case.__name__}[{mode}]"
            if only and not any(o in name for o in only):
                continue
            if mode not in getattr(case, "modes", MODES):
                continue  # a case about one revision's behaviour (`only_on`)
            try:
                with anyio.fail_after(per_case_seconds):
                    await case(mode)
            except BaseException as error:  # noqa: BLE001 - report every failure, keep going
                failed += 1
                print(f"FAIL {name}: {innermost(error)!r}")
                traceback.print_exc()
            else:
                passed += 1
                print(f"PASS {name}")
    print(f"\n{passed} passed, {failed} failed")
    if only and not passed and not failed:
        # `.ci/python_e2e.sh` passes its filters to every file: a filter may name only another's.
        print(f"(no case here matches {' '.join(only)})")
        return 0
    return 1 if failed or not passed else 0
