// An MCP client on the official TypeScript SDK that talks to the reference "everything"
// server through `mcptest proxy`.
//
// Usage: node proxy_client.cjs NPM_DIR MCPTEST_EXE CASSETTE
//
// NPM_DIR holds the pinned packages (setup-npm.sh). The client starts
// `MCPTEST_EXE proxy --output CASSETTE --name everything -- node <everything> stdio`, lists the
// tools, calls `echo` and `get-sum`, and prints one JSON line per step, so the Rust test can
// compare what the client saw with what the cassette kept.
"use strict";

const path = require("node:path");

async function main() {
  const [npmDir, exe, cassette] = process.argv.slice(2);
  const from = (id) => require(require.resolve(id, { paths: [npmDir] }));
  const { Client } = from("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = from("@modelcontextprotocol/sdk/client/stdio.js");
  const everything = path.join(
    npmDir,
    "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
  );
  const transport = new StdioClientTransport({
    command: exe,
    args: ["proxy", "--output", cassette, "--name", "everything", "--", process.execPath, everything, "stdio"],
    stderr: "inherit",
  });
  const client = new Client({ name: "ts-sdk-proxy-test", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  console.log(JSON.stringify({ tools: listed.tools.map((t) => t.name) }));
  const echo = await client.callTool({ name: "echo", arguments: { message: "hello from the TypeScript SDK" } });
  console.log(JSON.stringify({ tool: "echo", text: echo.content.map((c) => c.text || "").join(" ") }));
  const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
  console.log(JSON.stringify({ tool: "get-sum", text: sum.content.map((c) => c.text || "").join(" ") }));
  await client.close();
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
