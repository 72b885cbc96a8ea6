"""A small MCP server on the official Python SDK (`mcp==2.3.0`), over stdio, whose tools ask the
client: the server that `examples/rmcp/tests/python_server.rs` connects `mcp_elicit`'s
`AnsweringClient` to, a server nobody here wrote the protocol side of.

The SDK serves both revisions on one stdio server: the client's first request decides
(`initialize` opens a legacy 2025-11-25 connection, a request carrying the 2026-07-28 `_meta`
envelope, such as `server/discover`, opens a 2026-07-28 one).

- `book_table` asks a form through a `Resolve(...)` parameter, the SDK's way on both revisions:
  on 2025-11-25 the resolver's `Elicit` becomes `ctx.elicit(...)`, an `elicitation/create`
  request; on 2026-07-28 it becomes an input-required result, and the SDK resumes the call when
  the client retries with the answer.
- `connect_account` asks the user to open a page (URL mode): `ctx.elicit_url(...)` on 2025-11-25;
  on 2026-07-28, where a server sends no requests, the tool returns the input-required result
  itself and reads the answer from `ctx.input_responses` on the retry (`Resolve` asks forms only).
  Unlike `Resolve`, `ctx.elicit_url` checks no client capability; the 2026-07-28 branch does as
  it does, so the tests see what a client does with a mode it did not declare.

Each tool returns, as JSON text, exactly what the server received: the protocol version it
served, the action, and for an accepted form the validated content with each value's Python
type. Run by `.ci/python_e2e.sh`; by hand: `python tests/e2e/elicit_server.py` (speaks on stdio).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp_types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, Field

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)

server = MCPServer("elicit-e2e")

BOOKING_MESSAGE = "Book a table: who is it for, how many, and where?"
CONNECT_MESSAGE = "Connect your calendar on our page."
CONNECT_PAGE = "https://calendar.example.com/connect?flow=e2e"
CONNECT_ID = "connect-calendar-1"
CONNECT_KEY = "connect_calendar"


# The form: a string with bounds, an integer with bounds, a boolean and an enum (a `Literal`: an
# `Enum` class renders as a `$ref`, which the SDK refuses as not a primitive property).
class Booking(BaseModel):
    """A table at the restaurant."""

    name: str = Field(description="Who the table is for", min_length=1, max_length=40)
    guests: int = Field(description="How many people", ge=1, le=12)
    outdoor: bool = Field(default=False, description="A table outside")
    seating: Literal["window", "terrace", "bar"] = Field(default="window", description="Where")


def ask_booking() -> Elicit[Booking]:
    return Elicit(BOOKING_MESSAGE, Booking)


def received(ctx: Context, action: str, content: dict[str, Any] | None = None) -> str:
    """What the server received, as the tool's result text."""
    out: dict[str, Any] = {"protocolVersion": ctx.protocol_version, "action": action}
    if content is not None:
        out["content"] = content
        out["types"] = {name: type(value).__name__ for name, value in content.items()}
    return json.dumps(out)


@server.tool()
async def book_table(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)], ctx: Context) -> str:
    """Book a table; asks who, how many and where."""
    if isinstance(booking, AcceptedElicitation):
        return received(ctx, "accept", dict(booking.data))
    return received(ctx, booking.action)


@server.tool()
async def connect_account(ctx: Context) -> str | InputRequiredResult:
    """Connect a calendar; asks the user to open a page (URL mode)."""
    if ctx.protocol_version is not None and is_version_at_least(ctx.protocol_version, "2026-07-28"):
        answer = (ctx.input_responses or {}).get(CONNECT_KEY)
        if not isinstance(answer, ElicitResult) or ctx.request_state != CONNECT_KEY:
            request = ElicitRequest(params=ElicitRequestURLParams(message=CONNECT_MESSAGE, url=CONNECT_PAGE))
            return InputRequiredResult(input_requests={CONNECT_KEY: request}, request_state=CONNECT_KEY)
        return received(ctx, answer.action, answer.content)
    result = await ctx.elicit_url(CONNECT_MESSAGE, CONNECT_PAGE, CONNECT_ID)
    return received(ctx, result.action)


if __name__ == "__main__":
    server.run()
