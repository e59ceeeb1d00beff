// An MCP client on the official TypeScript SDK over Streamable HTTP.
//
// Usage: node http_client.cjs NPM_DIR URL CALLS_JSON
//
// NPM_DIR holds the pinned packages (setup-npm.sh). The client connects to URL, lists the
// tools, makes each call of CALLS_JSON (`[{"name": ..., "arguments": {...}}, ...]`) in order,
// closes the session, and prints one JSON line per step.
"use strict";

async function main() {
  const [npmDir, url, calls] = process.argv.slice(2);
  const from = (id) => require(require.resolve(id, { paths: [npmDir] }));
  const { Client } = from("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = from("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "ts-sdk-http-test", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  console.log(JSON.stringify({ tools: listed.tools.map((t) => t.name) }));
  for (const call of JSON.parse(calls)) {
    const result = await client.callTool(call);
    const text = result.content.map((c) => c.text || "").join(" ");
    console.log(JSON.stringify({ tool: call.name, text, isError: !!result.isError }));
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
