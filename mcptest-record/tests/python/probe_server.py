"""An MCP server (official Python SDK) whose tools ask the client for things: its roots,
a sampled message, an elicited answer. Each tool returns what the client answered, or the
error it gave, so a recording shows both sides."""

from mcp import types
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("probe")


@server.tool()
async def where(ctx: Context) -> str:
    """The client's roots."""
    roots = await ctx.session.list_roots()
    return "roots: " + ", ".join(f"{r.name} {r.uri}" for r in roots.roots)


@server.tool()
async def think(ctx: Context) -> str:
    """Asks the client's model to sample a message."""
    try:
        await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))],
            max_tokens=10,
        )
        return "sampled"
    except Exception as e:  # the client's refusal
        return f"sampling refused: {e}"


@server.tool()
async def ask(ctx: Context) -> str:
    """Asks the client's user a question."""
    try:
        await ctx.session.elicit(
            "Which region?",
            {"type": "object", "properties": {"region": {"type": "string"}}},
        )
        return "answered"
    except Exception as e:
        return f"elicitation refused: {e}"


if __name__ == "__main__":
    server.run()
