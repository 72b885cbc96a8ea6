"""A fleet on one machine: three replicas of `examples/rmcp/fleet_server.rs` behind haproxy
(`haproxy.cfg` beside this file), sharing their keys and a real `redis-server`, all on loopback,
driven by the official Python MCP client (`mcp==2.3.0`) over streamable HTTP.

Each case says what a fleet must survive:
- `spread_across_replicas` (2026-07-28): the rounds of one call land on different replicas and
  complete; `a_session_stays_on_its_replica` (2025-11-25): every request of a session, the
  answer to the server's `elicitation/create` included, reaches the replica that holds it.
- `a_replica_dies_between_rounds`: the replica that asked is SIGKILLed while the user answers;
  the retry completes on another, the table is dropped once, and the same retry sent again
  changes nothing.
- `redis_is_down`: the retry that would spend a consent fails closed with a legible error, and
  no replica falls over; once Redis is back the same call works.
- `concurrent_retries`: two copies of one retry race on two replicas: exactly one drops.
- `typescript_client` (2025-11-25: the TypeScript SDK speaks no later revision): the
  TypeScript SDK's client books through haproxy on its session's replica, and a slow person
  (6 s, against a 2 s request timeout) is waited for with `resetTimeoutOnProgress`, the
  keep-alive passing the load balancer; without it the client gives up (-32001).
  `tests/e2e/ts/fleet.test.mjs`, run with Node from PATH.
- `typescript_v2_client` (2026-07-28): the TypeScript SDK v2's client, whose own driver answers
  the input-required rounds: a form, and URL mode with the page finished on one replica and the
  retry on another, the page saved before the client's `accept` and while its retry waits.
  `tests/e2e/ts/fleet_v2.test.mjs`.
- `a_page_finished_on_another_replica`: URL mode, the API key typed on the server's page, which
  a replica other than the asking one serves. 2025-11-25: the finish wakes the asking replica
  over Redis, and `notifications/elicitation/complete` reaches the asking client only (not a
  session on the same replica, nor one on the page's). 2026-07-28: the retry reads the finished
  flow.

Run through `.ci/fleet.sh`, or with the examples built:
FLEET_SERVER=target/debug/examples/fleet_server python tests/fleet/test_fleet.py [case ...]
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))
from harness import A_PERSON, accept, expect, only_on, result_text, run_cases  # noqa: E402
from page_browser import Browser  # noqa: E402
from processes import free_port, stop, wait_for_port  # noqa: E402

SERVER = os.environ["FLEET_SERVER"]
REPLICAS = ("r1", "r2", "r3")
BOOKING = {"party_size": 4, "date": "2026-12-24"}
CONSENT = accept({"confirm": True})


class Fleet:
    """Redis, three replicas and haproxy, each a child process on a free loopback port."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="elicit-fleet-"))
        self.keys = "1:" + secrets.token_hex(32)
        self.redis_port = free_port()
        self.redis: subprocess.Popen | None = None
        self.ports = {name: free_port() for name in REPLICAS}
        self.replicas: dict[str, subprocess.Popen] = {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.start_redis()
        for name in REPLICAS:
            self.start(name)
        env = dict(os.environ, FLEET_PORT=str(self.port))
        env.update({f"{name.upper()}_PORT": str(port) for name, port in self.ports.items()})
        self.haproxy = subprocess.Popen(
            ["haproxy", "-db", "-f", str(HERE / "haproxy.cfg")], env=env,
            stdout=open(self.dir / "haproxy.log", "wb"), stderr=subprocess.STDOUT)
        wait_for_port(self.port, "haproxy", self.haproxy)
        self.wait_healthy()

    def start_redis(self) -> None:
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.dir)],
            stdout=open(self.dir / "redis.log", "ab"), stderr=subprocess.STDOUT)
        wait_for_port(self.redis_port, "redis-server", self.redis)

    def stop_redis(self) -> None:
        assert self.redis is not None
        self.redis.terminate()
        self.redis.wait(10)
        self.redis = None

    def redis_cli(self, *args: str) -> str:
        return subprocess.run(["redis-cli", "-p", str(self.redis_port), *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout.strip()

    def start(self, name: str) -> None:
        env = dict(os.environ, PORT=str(self.ports[name]), REPLICA=name,
                   FLEET_PUBLIC_URL=f"http://localhost:{self.port}", FLEET_KEEP_ALIVE_MS="500",
                   REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/?protocol=resp3", ELICIT_STATE_KEYS=self.keys)
        self.replicas[name] = subprocess.Popen(
            [SERVER], env=env, stdin=subprocess.DEVNULL,
            stdout=open(self.dir / f"{name}.log", "ab"), stderr=subprocess.STDOUT)
        wait_for_port(self.ports[name], name, self.replicas[name])

    def kill(self, name: str) -> None:
        """SIGKILL: no shutdown, no flush; whatever the replica held in memory is gone."""
        self.replicas[name].send_signal(signal.SIGKILL)
        self.replicas[name].wait(10)

    def alive(self) -> list[str]:
        return [name for name, process in self.replicas.items() if process.poll() is None]

    def wait_healthy(self, seconds=10) -> None:
        """Until haproxy's health checks see every replica up (`check inter 250ms rise 1`)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            seen = set()
            for _ in range(6):
                try:
                    response = httpx2.get(self.url, timeout=2)
                except httpx2.HTTPError:
                    continue
                if response.headers.get("x-replica"):
                    seen.add(response.headers["x-replica"])
            if seen == set(REPLICAS):
                return
            time.sleep(0.1)
        raise RuntimeError("haproxy does not reach every replica")

    def restore(self) -> None:
        """The whole fleet back after a case took part of it down."""
        if self.redis is None:
            self.start_redis()
        for name in REPLICAS:
            if self.replicas[name].poll() is not None:
                self.start(name)
        self.wait_healthy()

    def close(self) -> None:
        for process in [self.haproxy, *self.replicas.values(), self.redis]:
            if process is not None:
                stop(process)
        shutil.rmtree(self.dir, ignore_errors=True)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                         for p in sorted(self.dir.glob("*.log")))


FLEET: Fleet


class Wire:
    """Every HTTP exchange the client made through haproxy: the JSON-RPC method it posted, the
    request's body, and the replica that answered (haproxy's `X-Replica`)."""

    def __init__(self) -> None:
        self.exchanges: list[tuple[str, bytes, str]] = []

    async def on_response(self, response: httpx2.Response) -> None:
        request = response.request
        method = ""
        if request.method == "POST":
            try:
                method = json.loads(request.content).get("method", "")
            except (ValueError, AttributeError):
                method = "?"
        self.exchanges.append((method, request.content, response.headers.get("x-replica", "")))

    def replicas(self, method: str) -> list[str]:
        return [replica for m, _, replica in self.exchanges if m == method]

    def bodies(self, method: str) -> list[bytes]:
        return [body for m, body, _ in self.exchanges if m == method]


class Notes:
    """The server notifications one client's session surfaced (the SDK's `message_handler`)."""

    def __init__(self) -> None:
        self.seen: list = []

    async def __call__(self, message) -> None:
        self.seen.append(message)

    def completions(self) -> list[str]:
        return [n.params.elicitation_id for n in self.seen
                if isinstance(n, types.ElicitCompleteNotification)]


@asynccontextmanager
async def connect(mode, answer=None, *, pin: str | None = None, notes: Notes | None = None):
    """A client of the fleet through haproxy; `pin` sends its every request to that replica."""
    wire = Wire()
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=300),
                              headers={"x-fleet-replica": pin} if pin else None,
                              event_hooks={"response": [wire.on_response]})
    async with http:
        transport = streamable_http_client(FLEET.url, http_client=http)
        async with Client(transport, mode=mode, elicitation_callback=answer,
                          message_handler=notes) as client:
            yield client, wire


def fresh_table() -> str:
    return "t_" + secrets.token_hex(4)


def drops(table: str) -> int:
    return int(FLEET.redis_cli("GET", f"fleet:dropped:{table}") or 0)


# ----------------------------------------------------------------------------------------- cases

async def spread_across_replicas(mode):
    """2026-07-28: three calls, each asked on one replica and finished on another."""
    if mode == "legacy":
        return await a_session_stays_on_its_replica(mode)

    async def answer(context, params):
        return accept(BOOKING)

    async with connect(mode, answer) as (client, wire):
        for _ in range(3):
            got = result_text(await client.call_tool("book_table", {}))
            assert got[0].startswith("A table for 4 on 2026-12-24 (booked on r"), got
    calls = wire.replicas("tools/call")
    assert len(calls) == 6, wire.exchanges  # each call: the first round and its retry
    for first, retry in zip(calls[0::2], calls[1::2]):
        assert first != retry, calls
    assert set(calls) == set(REPLICAS), calls


async def a_session_stays_on_its_replica(mode):
    """2025-11-25: the session's every request, the elicitation's answer included, on one replica,
    which also finished the booking."""
    async def answer(context, params):
        return accept(BOOKING)

    async with connect(mode, answer) as (client, wire):
        assert client.session.protocol_version == "2025-11-25"
        for _ in range(3):
            got = result_text(await client.call_tool("book_table", {}))
            assert got[0].startswith("A table for 4 on 2026-12-24 (booked on "), got
    replicas = {replica for _, _, replica in wire.exchanges if replica}
    assert len(replicas) == 1, wire.exchanges
    assert got[0].endswith(f"(booked on {replicas.pop()}).")


async def a_replica_dies_between_rounds(mode):
    """The replica that asked is SIGKILLed while the user reads the question. 2026-07-28: the
    retry completes on another, the consent is spent once. 2025-11-25: the pending question died
    with its replica, and the call ends as an error the client sees; nothing was dropped."""
    table = fresh_table()
    wire_of: list = []

    async def answer(context, params):
        (wire,) = wire_of
        asked_on = [replica for method, _, replica in wire.exchanges if method == "tools/call"][-1] \
            if mode != "legacy" else [r for _, _, r in wire.exchanges if r][-1]
        FLEET.kill(asked_on)
        # A person's time: a consent sooner than that is not taken, on 2026-07-28 too.
        await anyio.sleep(A_PERSON)
        return CONSENT

    try:
        async with connect(mode, answer) as (client, wire):
            wire_of.append(wire)
            if mode == "legacy":
                try:
                    with anyio.fail_after(20):
                        result = await client.call_tool("drop_table", {"table": table})
                except Exception as error:  # noqa: BLE001 - the SDK reports the lost session
                    print(f"  (legacy: the call ended with {type(error).__name__}: {error})")
                else:
                    assert result.is_error, result
                assert drops(table) == 0
                return
            got = result_text(await client.call_tool("drop_table", {"table": table}))
            first, retry = wire.replicas("tools/call")
            assert first != retry and retry in FLEET.alive(), (first, retry)
            expect(got, f"Dropped `{table}` on {retry} (drop 1).")
            assert drops(table) == 1
            # The same retry again (a client, a proxy or an attacker that replays it): refused,
            # on whichever replica it reaches.
            replayed = wire.bodies("tools/call")[-1]
        async with httpx2.AsyncClient(timeout=10) as http:
            for _ in range(2):
                message, _ = await post(http, FLEET.url, json.loads(replayed))
                assert message.get("error", {}).get("code") == -32602, message
        assert drops(table) == 1
    finally:
        FLEET.restore()


def sse_message(response: httpx2.Response) -> dict:
    """The JSON-RPC message of a response: its JSON body, or its event stream's last `data:`."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    data = [line[len("data: "):] for line in response.text.splitlines() if line.startswith("data: {")]
    assert data, response.text
    return json.loads(data[-1])


HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"}


def tools_call(name: str, arguments: dict, **retry) -> dict:
    """A 2026-07-28 `tools/call` as the SDK's client writes one (its `_meta` says who is calling),
    with a retry's `requestState` and `inputResponses` when given."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "fleet-test", "version": "1"}}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta, **retry}}


async def post(http: httpx2.AsyncClient, url: str, message: dict) -> tuple[dict, str]:
    """The answer to `message` at `url`, and the replica haproxy says gave it."""
    headers = dict(HEADERS, **{"mcp-name": message["params"]["name"]})
    response = await http.post(url, json=message, headers=headers)
    return sse_message(response), response.headers.get("x-replica", "")


async def consent_retry(http: httpx2.AsyncClient, url: str, table: str) -> dict:
    """Asks to drop `table` at `url`, and the retry that consents (not sent)."""
    asked, _ = await post(http, url, tools_call("drop_table", {"table": table}))
    result = asked["result"]
    assert result["resultType"] == "input_required", asked
    consent = {"action": "accept", "content": {"confirm": True}}
    # A person's time: a consent sooner than that is not taken (the asking time is sealed).
    await anyio.sleep(A_PERSON)
    return tools_call("drop_table", {"table": table}, requestState=result["requestState"],
                      inputResponses={key: consent for key in result["inputRequests"]})


@only_on("2026-07-28")
async def redis_is_down(mode):
    """The consent's retry needs Redis (its state is spent there): with Redis stopped it fails
    closed, legibly; no replica falls over; with Redis back, every replica drops a table once."""
    table = fresh_table()

    async def answer(context, params):
        return CONSENT

    try:
        FLEET.stop_redis()
        async with connect(mode, answer) as (client, _):
            try:
                result = await client.call_tool("drop_table", {"table": table})
            except Exception as error:  # noqa: BLE001 - a JSON-RPC error is what a client sees
                text = str(error)
            else:
                text = result_text(result)[0]
                assert result.is_error, text
            assert text == "the replay guard is unavailable", text
        assert sorted(FLEET.alive()) == list(REPLICAS), FLEET.alive()
        FLEET.start_redis()
        assert drops(table) == 0
        # Each replica, straight (not through haproxy), asked and retried once.
        async with httpx2.AsyncClient(timeout=10) as http:
            for name in REPLICAS:
                url = f"http://127.0.0.1:{FLEET.ports[name]}/mcp"
                done, _ = await post(http, url, await consent_retry(http, url, f"{table}_{name}"))
                text = done.get("result", {}).get("content", [{}])[0].get("text")
                assert text == f"Dropped `{table}_{name}` on {name} (drop 1).", done
    finally:
        FLEET.restore()


@only_on("2026-07-28")
async def concurrent_retries(mode):
    """One retry sent twice at once, through haproxy to two replicas: exactly one drops."""
    table = fresh_table()
    async with httpx2.AsyncClient(timeout=10) as http:
        retry = await consent_retry(http, FLEET.url, table)
        answers: list[tuple[dict, str]] = []

        async def send():
            answers.append(await post(http, FLEET.url, retry))

        async with anyio.create_task_group() as group:
            group.start_soon(send)
            group.start_soon(send)
    dropped = [m for m, _ in answers if "Dropped" in json.dumps(m.get("result", {}))]
    refused = [m for m, _ in answers if m.get("error", {}).get("code") == -32602]
    assert len(dropped) == 1 and len(refused) == 1, answers
    assert answers[0][1] != answers[1][1], answers  # two replicas raced
    assert drops(table) == 1


def new_key() -> str:
    """A key like a real one, fresh for each case (no hex digits, as in test_api_key_server)."""
    return "exco_" + "".join(secrets.choice("ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ") for _ in range(27))


async def a_page_finished_on_another_replica(mode):
    """The asking replica is rA; the user's browser reaches the page on another (pinned through
    haproxy). legacy: two more sessions listen, one on rA and one on the page's replica; only
    the asking client is told the page is done. 2026-07-28: the retry completes."""
    key = new_key()
    asking, same_replica, page_replica = Notes(), Notes(), Notes()
    urls: list[str] = []
    pages: list[str] = []
    browsed = anyio.Event()

    def do_the_page(url: str, replica: str) -> None:
        browser = Browser(headers={"x-fleet-replica": replica})
        browser.finish(url, key)
        pages.append(replica)

    async with anyio.create_task_group() as user:
        wire_of: list[Wire] = []

        def asked_on() -> str:
            (wire,) = wire_of
            return [r for m, _, r in wire.exchanges if m in ("tools/call", "initialize") and r][-1]

        async def answer(context, params):
            assert isinstance(params, types.ElicitRequestURLParams), params
            urls.append(params.url)
            replica = next(r for r in REPLICAS if r != asked_on())
            if mode == "legacy":
                async def later():
                    try:
                        await anyio.sleep(0.3)  # the accept first: the tool is waiting
                        await anyio.to_thread.run_sync(do_the_page, params.url, replica)
                    finally:
                        browsed.set()
                user.start_soon(later)
            else:
                await anyio.to_thread.run_sync(do_the_page, params.url, replica)
                browsed.set()
            return accept()

        async with connect(mode, answer, notes=asking) as (client, wire):
            wire_of.append(wire)
            if mode == "legacy":
                await client.list_tools()  # the session exists, on its replica
                ra = asked_on()
                rb = next(r for r in REPLICAS if r != ra)
            else:
                ra = rb = None
            async with connect(mode, pin=ra, notes=same_replica) as (other, _), \
                    connect(mode, pin=rb, notes=page_replica) as (third, _):
                got = result_text(await client.call_tool("connect_api_key", {}))
                await browsed.wait()
                await anyio.sleep(0.5)  # time for a stray notification to arrive anywhere
    assert got[0].startswith(f"Connected the key ending {key[-4:]} (asked on r"), got
    assert FLEET.redis_cli("GET", "fleet:vault:api-key") == key
    (url,) = set(urls)
    flow = url.rsplit("/", 1)[-1]
    assert url == f"http://localhost:{FLEET.port}/elicit/{flow}", url
    (page_on,) = pages
    first_round = wire.replicas("tools/call")[0]
    assert page_on != first_round, (page_on, first_round)
    if mode == "legacy":
        assert asking.completions() == [flow], asking.seen
        assert same_replica.completions() == [], same_replica.seen
        assert page_replica.completions() == [], page_replica.seen
        assert page_on == rb and got[0].endswith(f"(asked on {ra}).")


@only_on("legacy")
async def typescript_client(mode):
    """The TypeScript SDK's client through the fleet: `tests/e2e/ts/fleet.test.mjs`."""
    ts = HERE.parent / "e2e" / "ts"
    done = await anyio.to_thread.run_sync(lambda: subprocess.run(
        ["node", "--test", "fleet.test.mjs"], cwd=ts, env=dict(os.environ, FLEET_URL=FLEET.url),
        capture_output=True, text=True, timeout=120))
    print("\n".join("  " + line for line in done.stdout.splitlines()
                    if line.startswith(("# pass", "# fail", "not ok", "ok "))))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@only_on("2026-07-28")
async def typescript_v2_client(mode):
    """The TypeScript SDK v2's client (2026-07-28, its own input-required driver) through the
    fleet, a form and URL mode: `tests/e2e/ts/fleet_v2.test.mjs`."""
    ts = HERE.parent / "e2e" / "ts"
    done = await anyio.to_thread.run_sync(lambda: subprocess.run(
        ["node", "--test", "fleet_v2.test.mjs"], cwd=ts, env=dict(os.environ, FLEET_URL=FLEET.url),
        capture_output=True, text=True, timeout=120))
    print("\n".join("  " + line for line in done.stdout.splitlines()
                    if line.startswith(("# pass", "# fail", "not ok", "ok "))))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


CASES = [spread_across_replicas, a_replica_dies_between_rounds, redis_is_down, concurrent_retries,
         a_page_finished_on_another_replica, typescript_client, typescript_v2_client]


async def main() -> int:
    global FLEET
    FLEET = Fleet()
    try:
        status = await run_cases(CASES, per_case_seconds=90)
        if status:
            print(FLEET.logs())
        return status
    finally:
        FLEET.close()


if __name__ == "__main__":
    sys.exit(anyio.run(main))
