import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const example = fileURLToPath(new URL("../examples/agent.ts", import.meta.url))

it.live("the agent example: a scripted model calls a read-only tool and a failing one, and gets both results", () =>
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
    assert.deepStrictEqual(stdout.trim().split("\n"), [
      "model was offered 12 tools, among them notes__echo, notes__tool_1, notes__tool_2",
      `model received: call_1 notes__hint_read_only ok: {"text":"hint_read_only called","files":[]}`,
      `model received: call_2 notes__change_tools failed: "burst must be an integer >= 0"`,
      "answer: I got 2 tool results."
    ])
  })))
