// Drives `stockade serve` over stdio with the official MCP TypeScript SDK
// client through every path of every tool. The client validates each result
// against the output schema the tool declares (it throws -32602 otherwise).
// Prints one JSON line per call: {"path", "ok", "result"} or {"path", "ok":
// false, "error"}; exits 1 if any call threw. Usage: node drive.mjs STOCKADE WORKDIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [stockade, workdir] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: stockade,
  args: ["serve", "--workdir", workdir, "--max-tasks", "2"],
  stderr: "ignore",
});
const client = new Client({ name: "stockade-tsclient", version: "1" });
await client.connect(transport);
await client.listTools(); // the client validates results once it knows the schemas

let failed = false;
async function call(path, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    console.log(JSON.stringify({ path, ok: true, result }));
    return result;
  } catch (e) {
    failed = true;
    console.log(JSON.stringify({ path, ok: false, error: { code: e.code, message: e.message } }));
    return null;
  }
}

await call("foreground", "bash", { command: "echo hello" });
await call("exit-code", "bash", { command: "echo oops >&2; exit 3" });
await call("truncated", "bash", { command: "head -c 100000 /dev/zero | tr '\\0' x" });
await call("timed-out", "bash", { command: "sleep 30", timeout: 200 });
await call("denied", "bash", { command: "rm -rf /" });
await call("approval-required", "bash", { command: "git push --force origin main" });
await call("empty", "bash", { command: "  " });
await call("too-large", "bash", { command: "#".repeat(200 * 1024) });
const bg = await call("background", "bash", { command: "echo started; sleep 30", run_in_background: true });
const id = bg?.structuredContent?.task_id ?? "task-unknown";
await call("task-running", "task_output", { task_id: id });
await call("background-second", "bash", { command: "sleep 30", run_in_background: true });
await call("task-limit", "bash", { command: "sleep 30", run_in_background: true });
await call("task-killed", "task_kill", { task_id: id });
const done = await call("background-short", "bash", { command: "echo done", run_in_background: true });
await call("task-completed", "task_output", { task_id: done?.structuredContent?.task_id ?? "task-unknown", wait: 10000 });
await call("task-not-found", "task_output", { task_id: "task-999" });
await call("task-kill-not-found", "task_kill", { task_id: "task-999" });

await client.close();
process.exit(failed ? 1 : 0);
