"""Drives the mock MCP server with the official MCP Python SDK and prints what it sees.

Usage: driver.py SCENARIO SERVER_EXE TOOLS_FILE FAULT MODE

Each observation is one JSON line on stdout: {"step": ..., ...}. The Rust tests in
mcptest-mock/tests/python_interop.rs spawn this script and assert on those lines; the script
itself asserts nothing, so a failure shows what the client actually saw.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from contextlib import asynccontextmanager

import anyio
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client


def emit(step: str, **fields) -> None:
    print(json.dumps({"step": step, **fields}), flush=True)


def dump(model) -> object:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@asynccontextmanager
async def recording(params: StdioServerParameters, seen: list):
    """stdio_client, with every message from the server recorded as (time, message dict)."""
    async with stdio_client(params) as (read, write):
        send, receive = anyio.create_memory_object_stream(100)

        async def pump() -> None:
            async with send:
                async for item in read:
                    if not isinstance(item, Exception):
                        seen.append((time.monotonic(), dump(item.message)))
                    await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            try:
                yield receive, write
            finally:
                tg.cancel_scope.cancel()


async def timed_call(client: Client, name: str, args: dict, timeout: float | None):
    """Calls a tool; returns (elapsed seconds, outcome dict)."""
    start = time.monotonic()
    try:
        result = await client.call_tool(name, args, read_timeout_seconds=timeout)
        outcome = {"ok": True, "result": dump(result)}
    except MCPError as e:
        outcome = {"ok": False, "error": type(e).__name__, "code": e.error.code, "message": e.error.message}
    except Exception as e:  # a timeout, as the SDK reports it
        outcome = {"ok": False, "error": type(e).__name__, "message": str(e)}
    return time.monotonic() - start, outcome


async def basic(client: Client, seen: list) -> None:
    emit("connected", protocol=client.protocol_version, server=dump(client.server_info) if client.server_info else None,
         capabilities=dump(client.server_capabilities), instructions=client.instructions)
    tools = await client.list_tools()
    emit("tools", tools=[dump(t) for t in tools.tools])
    calls = {
        "structured": ("get_weather", {"city": "Sacramento"}),
        "structured_f": ("get_weather", {"city": "Sacramento", "units": "F"}),
        "error": ("get_weather", {"city": "Atlantis"}),
        "default": ("get_weather", {"city": "Lima"}),
        "text": ("get_forecast", {"city": "Sacramento", "days": 3}),
        "links": ("search_docs", {"query": "install"}),
        "embedded": ("open_doc", {"uri": "docs://guides/install"}),
        "static": ("create_ticket", {"title": "Printer on fire"}),
        "invalid_type": ("get_weather", {"city": 42}),
        "invalid_missing": ("get_forecast", {"city": "Oslo"}),
        "invalid_extra": ("get_weather", {"city": "Oslo", "when": "now"}),
        "unknown_tool": ("get_wether", {"city": "Oslo"}),
    }
    for label, (name, args) in calls.items():
        elapsed, outcome = await timed_call(client, name, args, 5.0)
        emit("call", label=label, elapsed=elapsed, **outcome)
    resources = await client.list_resources()
    emit("resources", resources=[dump(r) for r in resources.resources])
    page = await client.read_resource("docs://reference/limits")
    emit("read", contents=[dump(c) for c in page.contents])
    try:
        await client.read_resource("docs://nowhere")
        emit("read_missing", ok=True)
    except MCPError as e:
        emit("read_missing", ok=False, code=e.error.code, message=e.error.message)
    try:
        await client.send_ping()
        emit("ping", ok=True)
    except MCPError as e:  # ping is gone from the 2026-07-28 protocol
        emit("ping", ok=False, code=e.error.code, message=e.error.message)


async def hang(client: Client, seen: list) -> None:
    elapsed, outcome = await timed_call(client, "get_weather", {"city": "Oslo"}, 0.3)
    emit("call", label="hung", elapsed=elapsed, **outcome)
    start = time.monotonic()
    tools = await client.list_tools()
    emit("tools_after", count=len(tools.tools), elapsed=time.monotonic() - start)
    start = time.monotonic()
    resources = await client.list_resources()
    emit("resources_after", count=len(resources.resources), elapsed=time.monotonic() - start)
    elapsed, outcome = await timed_call(client, "search_docs", {"query": "install"}, 0.3)
    emit("call", label="hung_again", elapsed=elapsed, **outcome)


async def slow(client: Client, seen: list) -> None:
    for label in ("first", "second"):
        elapsed, outcome = await timed_call(client, "get_weather", {"city": "Oslo"}, 5.0)
        emit("call", label=label, elapsed=elapsed, **outcome)
    elapsed, outcome = await timed_call(client, "get_weather", {"city": "Oslo"}, 0.05)
    emit("call", label="past_deadline", elapsed=elapsed, **outcome)
    start = time.monotonic()
    await client.list_tools()
    emit("tools_after", elapsed=time.monotonic() - start)


async def recover(client: Client, seen: list) -> None:
    # The first two calls are expected to hang (a short deadline); the next two to answer.
    for label, deadline in (("first", 0.3), ("second", 0.3), ("third", 5.0), ("fourth", 5.0)):
        elapsed, outcome = await timed_call(client, "get_weather", {"city": "Oslo"}, deadline)
        emit("call", label=label, elapsed=elapsed, **outcome)
    elapsed, outcome = await timed_call(client, "search_docs", {"query": "install"}, 0.3)
    emit("call", label="other_tool_first", elapsed=elapsed, **outcome)


async def reply_after_cancel(client: Client, seen: list) -> None:
    start = time.monotonic()
    elapsed, outcome = await timed_call(client, "get_weather", {"city": "Oslo"}, 0.1)
    emit("call", label="cancelled", elapsed=elapsed, **outcome)
    with anyio.move_on_after(5.0):  # until the late reply shows up on the wire
        while not any("result" in m and m.get("id") is not None and "content" in (m.get("result") or {}) for _, m in seen):
            await anyio.sleep(0.02)
    late = [
        {"after": t - start, "id": m.get("id"), "result": m.get("result")}
        for (t, m) in seen
        if "result" in m and isinstance(m.get("result"), dict) and "content" in m["result"]
    ]
    emit("late_replies", replies=late)
    elapsed, outcome = await timed_call(client, "get_weather", {"city": "Sacramento"}, 5.0)
    emit("call", label="after", elapsed=elapsed, **outcome)
    tools = await client.list_tools()
    emit("tools_after", count=len(tools.tools))


SCENARIOS = {
    "basic": basic,
    "hang": hang,
    "slow": slow,
    "recover": recover,
    "reply_after_cancel": reply_after_cancel,
}


async def main() -> None:
    scenario, exe, tools_file, fault, mode = sys.argv[1:6]
    params = StdioServerParameters(command=exe, args=["--tools-from", tools_file, "--fault", fault])
    seen: list = []
    emit("sdk", version=__import__("importlib.metadata").metadata.version("mcp"))
    start = time.monotonic()
    async with Client(recording(params, seen), mode=mode) as client:
        emit("initialized", elapsed=time.monotonic() - start)
        await SCENARIOS[scenario](client, seen)
        closing = time.monotonic()
    emit("closed", elapsed=time.monotonic() - closing)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    anyio.run(main)
