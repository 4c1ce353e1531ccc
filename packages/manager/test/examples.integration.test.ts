import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const example = fileURLToPath(new URL("../examples/fleet.ts", import.meta.url))
const otelExample = fileURLToPath(new URL("../examples/otel.ts", import.meta.url))

it.live("the README's fleet example runs", () =>
  Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [example],
      { timeout: 20_000 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (child.exitCode ?? 1), stdout, stderr }))
    )
  }).pipe(Effect.map(({ code, stderr, stdout }) => {
    assert.strictEqual(code, 0, stderr)
    assert.include(stdout, "MCP: 3 servers (2 ready, 1 disabled), 41 tools (1 curated, 40 external)")
    assert.include(stdout, "search: starting → ready")
    assert.include(stdout, `notes/echo → {"note":"hello"}`)
    assert.include(stdout, "41 tools across ready servers")
    assert.include(stdout, "late: starting → ready")
    assert.include(stdout, "late joined with 9 tools")
    assert.include(stdout, "legacy: disabled → removed")
    assert.include(stdout, "servers now: late, notes, search")
    assert.notInclude(stdout, "→ offline", "shutdown is not a crash, also for a server added at run time")
  })))

it.live("the otel example traces a manager call down to its tools/call span (in-memory exporter)", () =>
  Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const env = { ...process.env }
    delete env["OTEL_EXPORTER_OTLP_ENDPOINT"]
    const child = execFile(
      process.execPath,
      [otelExample],
      { timeout: 20_000, env },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (child.exitCode ?? 1), stdout, stderr }))
    )
  }).pipe(Effect.map(({ code, stderr, stdout }) => {
    assert.strictEqual(code, 0, stderr)
    assert.include(stdout, "servers ready: 2")
    assert.include(stdout, "mcp.client.operation.duration tools/call echo: count 2")
    assert.include(stdout, "span tools/call echo [notes] <- McpManager.call")
    assert.include(stdout, "span tools/call echo [search] <- McpManager.call")
    assert.include(stdout, "span McpManager.call [search] <- agent turn")
    assert.include(stdout, "span initialize [notes]")
  })))
