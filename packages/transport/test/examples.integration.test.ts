import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const quickstart = fileURLToPath(new URL("../examples/quickstart.ts", import.meta.url))

it.live("the README's quickstart example runs", () =>
  Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [quickstart],
      { timeout: 20_000 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (child.exitCode ?? 1), stdout, stderr }))
    )
  }).pipe(Effect.map(({ code, stderr, stdout }) => {
    assert.strictEqual(code, 0, stderr)
    assert.include(stdout, "connected to fake-mcp-server (protocol 2025-11-25)")
    assert.include(stdout, "hint_read_only: readOnlyHint=true, may write: false")
    assert.include(stdout, "hint_absent: readOnlyHint=absent, may write: true")
    assert.include(stdout, `echo → {"hello":"world"}`)
  })))

const remote = fileURLToPath(new URL("../examples/remote.ts", import.meta.url))

it.live("the README's remote example runs against the fake server's HTTP mode", () =>
  Effect.callback<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      [remote],
      { timeout: 20_000 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (child.exitCode ?? 1), stdout, stderr }))
    )
  }).pipe(Effect.map(({ code, stderr, stdout }) => {
    assert.strictEqual(code, 0, stderr)
    assert.include(stdout, "connected over http to fake-mcp-http-server at http://127.0.0.1:")
    assert.include(stdout, "tools: echo, tool_1, tool_2, change_tools, notify, server_request, sleep")
    assert.include(stdout, `echo → [{"type":"text","text":"{\\"text\\":\\"hello\\"}"}]`)
    assert.include(stdout, "session ended: true")
    assert.notInclude(stdout + stderr, "example-token")
  })))
