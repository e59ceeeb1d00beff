"""An MCP client (official Python SDK) that talks to a server through `mcptest proxy`.

Usage: proxy_client.py MCPTEST_EXE CASSETTE TOOLS_FILE

Starts `MCPTEST_EXE proxy --output CASSETTE -- MCPTEST_EXE mock --tools-from TOOLS_FILE`, lists
the tools, calls `get_weather` for Sacramento and then Oslo, and prints each result's text as
a JSON line, so the Rust test can compare what the client saw with what the cassette kept.
"""

import json
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    exe, cassette, tools = sys.argv[1:4]
    params = StdioServerParameters(
        command=exe,
        args=["proxy", "--output", cassette, "--", exe, "mock", "--tools-from", tools],
    )
    async with Client(stdio_client(params)) as client:
        listed = await client.list_tools()
        print(json.dumps({"tools": [t.name for t in listed.tools]}), flush=True)
        for city in ["Sacramento", "Oslo"]:
            result = await client.call_tool("get_weather", {"city": city})
            text = " ".join(c.text for c in result.content if getattr(c, "text", None))
            print(json.dumps({"city": city, "text": text}), flush=True)


anyio.run(main)
