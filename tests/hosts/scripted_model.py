"""A scripted model on loopback, standing in for the vendor's API that a coding host calls: the
Anthropic Messages API (`POST /v1/messages`, streamed as server-sent events) for Claude Code, the
OpenAI Responses API (`POST /v1/responses`, streamed) for Codex. No language model: the person
types `call <tool> <json arguments>` at the host's prompt, and the model answers that turn with a
call of the host's tool whose name ends in `<tool>`; once the host sends the tool's result back,
the model answers with the result's text, and the test reads the result from there.

Every request body is kept (`requests`), and one that holds a page's URL (`/elicit/<32 hex>`) or
a flow id the test registered (`forbid`) is a violation: the URL of a page goes to the person,
never to the model, and `violations()` fails the run. Requests that are not the main turn (Claude
Code's side requests, Codex's title request) get a short text answer of their own.

Standard library only (it runs on the fast-agent venv's Python 3.13, inside the host's network
namespace).
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALL = re.compile(r"\bcall (?P<tool>[A-Za-z0-9_]+)(?: (?P<args>\{[^\n]*?\}))?(?=\s*(?:<|$))", re.M)
PAGE = re.compile(r"/elicit/[0-9a-f]{32}")


class ScriptedModel:
    """The model's HTTP server on 127.0.0.1 (a port the kernel picks), in a thread."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.results: list[str] = []
        self.forbidden: set[str] = set()
        self.broken: list[str] = []
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_HEAD(self) -> None:  # noqa: N802 - the stdlib's name
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                # Codex asks for the provider's model list; an empty one is an honest answer.
                body = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace")
                model.keep(self.path, raw)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                if self.path.split("?")[0].endswith("/messages/count_tokens"):
                    return self.json({"input_tokens": 100})
                if self.path.split("?")[0].endswith("/messages"):
                    events = model.anthropic(body)
                elif self.path.split("?")[0].endswith("/responses"):
                    events = model.openai(body)
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if not body.get("stream", False) and self.path.split("?")[0].endswith("/messages"):
                    return self.json(model.anthropic_whole(events))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

            def json(self, value) -> None:
                body = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    # ------------------------------------------------------------------------ what it was sent

    def keep(self, path: str, raw: str) -> None:
        with self.lock:
            self.requests.append({"path": path, "body": raw})
            found = PAGE.findall(raw) + [f for f in self.forbidden if f in raw]
            if found:
                self.broken.append(f"POST {path} held {sorted(set(found))}")

    def forbid(self, text: str) -> None:
        """A page's URL or flow id the test saw: no later request may hold it (and every earlier
        one is checked again)."""
        with self.lock:
            self.forbidden.add(text)
            for request in self.requests:
                if text in request["body"]:
                    self.broken.append(f"POST {request['path']} held {text!r}")

    def violations(self) -> list[str]:
        with self.lock:
            return list(self.broken)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self.ids):04d}{secrets.token_hex(6)}"

    # ------------------------------------------------------------------------ Anthropic Messages

    def anthropic(self, body: dict) -> list[tuple[str, dict]]:
        messages = body.get("messages") or []
        tools = [t.get("name", "") for t in body.get("tools") or []]
        last = next((m for m in reversed(messages) if m.get("role") == "user"), None)
        content = last.get("content") if last else None
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            text = tool_result_text(results[-1].get("content"))
            with self.lock:
                self.results.append(text)
            return anthropic_text(f"The tool said: {text}", self.new_id("msg_"))
        call = find_call(" ".join(b.get("text", "") for b in blocks if b.get("type") == "text"))
        tool = call and next((t for t in tools if t.endswith("__" + call[0])), None)
        if tool:
            return anthropic_tool_use(tool, call[1], self.new_id("msg_"), self.new_id("toolu_"))
        return anthropic_text("OK.", self.new_id("msg_"))

    @staticmethod
    def anthropic_whole(events: list[tuple[str, dict]]) -> dict:
        """A non-streamed answer, from the same events (side requests that ask without SSE)."""
        message = dict(events[0][1]["message"])
        text = "".join(d["delta"].get("text", "") for n, d in events if n == "content_block_delta")
        message["content"] = [{"type": "text", "text": text}]
        message["stop_reason"] = "end_turn"
        return message

    # ------------------------------------------------------------------------ OpenAI Responses

    def openai(self, body: dict) -> list[tuple[str, dict]]:
        response_id = self.new_id("resp_")
        text_format = ((body.get("text") or {}).get("format") or {})
        if text_format.get("type") == "json_schema":
            # Codex's side request for the task's title: a JSON answer to its schema.
            properties = (text_format.get("schema") or {}).get("properties") or {}
            answer = {name: "Scripted task" for name in properties} or {"title": "Scripted task"}
            return openai_text(json.dumps(answer), response_id, self.new_id("msg_"))
        items = body.get("input") or []
        outputs = [i for i in items if i.get("type") in ("function_call_output", "custom_tool_call_output")]
        calls = [i for i in items if i.get("type") == "function_call"]
        user_turns = [i for i in items if i.get("type") == "message" and i.get("role") == "user"]
        last_user = max((items.index(i) for i in user_turns), default=-1)
        last_output = max((items.index(i) for i in outputs), default=-1)
        if outputs and last_output > last_user:
            # Codex puts its own "Wall time: … Output:" before the tool's content.
            text = re.sub(r"^Wall time: [^\n]*\nOutput:\n?", "", tool_result_text(outputs[-1].get("output")))
            with self.lock:
                self.results.append(text)
            return openai_text(f"The tool said: {text}", response_id, self.new_id("msg_"))
        if calls and max(items.index(i) for i in calls) > last_user:
            return openai_text("OK.", response_id, self.new_id("msg_"))
        said = " ".join(c.get("text", "") for i in user_turns[-1:] for c in i.get("content") or []
                        if isinstance(c, dict))
        call = find_call(said)
        if call:
            for tool in body.get("tools") or []:
                if tool.get("type") == "namespace":
                    for inner in tool.get("tools") or []:
                        if inner.get("name", "").endswith(call[0]):
                            return openai_call(tool["name"], inner["name"], call[1], response_id,
                                               self.new_id("fc_"), self.new_id("call_"))
                elif tool.get("type") == "function" and tool.get("name", "").endswith("__" + call[0]):
                    return openai_call(None, tool["name"], call[1], response_id,
                                       self.new_id("fc_"), self.new_id("call_"))
        return openai_text("OK.", response_id, self.new_id("msg_"))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def find_call(text: str) -> tuple[str, dict] | None:
    found = list(CALL.finditer(text))
    if not found:
        return None
    last = found[-1]
    return last.group("tool"), json.loads(last.group("args") or "{}")


def tool_result_text(content) -> str:
    if isinstance(content, str):
        try:
            parsed = json.loads(content)
        except ValueError:
            return content
        return tool_result_text(parsed) if not isinstance(parsed, str) else parsed
    if isinstance(content, list):
        return "\n".join(tool_result_text(c) for c in content)
    if isinstance(content, dict):
        if "text" in content:
            return str(content["text"])
        if "content" in content:
            return tool_result_text(content["content"])
        if "output" in content:
            return tool_result_text(content["output"])
        return json.dumps(content)
    return str(content)


USAGE = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
         "cache_read_input_tokens": 0}


def anthropic_start(message_id: str) -> tuple[str, dict]:
    return ("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": "claude-scripted",
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": USAGE}})


def anthropic_text(text: str, message_id: str) -> list[tuple[str, dict]]:
    return [
        anthropic_start(message_id),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                               "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def anthropic_tool_use(tool: str, arguments: dict, message_id: str, use_id: str) -> list[tuple[str, dict]]:
    return [
        anthropic_start(message_id),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "tool_use", "id": use_id, "name": tool,
                                                   "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "input_json_delta",
                                           "partial_json": json.dumps(arguments)}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                               "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def openai_frame(response_id: str, items: list[dict]) -> list[tuple[str, dict]]:
    events = [("response.created", {"type": "response.created",
                                    "response": {"id": response_id, "status": "in_progress"}})]
    for index, item in enumerate(items):
        events.append(("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": index, "item": item}))
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(("response.output_text.delta", {"type": "response.output_text.delta",
                                                          "item_id": item["id"], "output_index": index,
                                                          "content_index": 0, "delta": text}))
        events.append(("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": index, "item": item}))
    events.append(("response.completed", {"type": "response.completed", "response": {
        "id": response_id, "status": "completed", "output": items,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 15}}}))
    return events


def openai_text(text: str, response_id: str, item_id: str) -> list[tuple[str, dict]]:
    return openai_frame(response_id, [{
        "type": "message", "id": item_id, "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}]}])


def openai_call(namespace: str | None, name: str, arguments: dict, response_id: str, item_id: str,
                call_id: str) -> list[tuple[str, dict]]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}
    if namespace is not None:
        item["namespace"] = namespace
    return openai_frame(response_id, [item])
