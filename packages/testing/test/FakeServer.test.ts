import { assert, describe, it } from "@effect/vitest"
import * as Vocabulary from "@mcp-fleet/fake-server"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { dirname, isAbsolute, join } from "node:path"
import * as FakeServer from "../src/FakeServer.ts"

const withoutRunId = (args: ReadonlyArray<string>) => args.filter((a) => !a.startsWith("run-id="))

describe("FakeServer", () => {
  it.effect("serverPath is the absolute path of an existing server.mjs", () =>
    Effect.sync(() => {
      assert.isTrue(isAbsolute(FakeServer.serverPath))
      assert.isTrue(FakeServer.serverPath.endsWith("/packages/fake-server/src/server.mjs"))
      assert.isTrue(existsSync(FakeServer.serverPath))
    }))

  it.effect("the README's tables list exactly the vocabulary's modes (in its order) and options", () =>
    Effect.sync(() => {
      const readme = readFileSync(join(dirname(FakeServer.serverPath), "..", "README.md"), "utf8")
      const rows = (heading: string) => {
        const section = readme.slice(readme.indexOf(heading), readme.indexOf("\n#", readme.indexOf(heading) + 1))
        return [...section.matchAll(/^\| `([a-z-]+)(?:=[^`]*)?` \|/gm)].map((match) => match[1])
      }
      assert.deepStrictEqual(rows("### Modes"), [...FakeServer.modes])
      const optionTokens = [...Object.values(Vocabulary.numberOptions), ...Object.values(Vocabulary.stringOptions)]
        .map((option) => option.token)
      assert.deepStrictEqual([...rows("### Options")].sort(), optionTokens.sort())
    }))

  it.effect("tokens puts modes first, then options in a stable order", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(FakeServer.tokens(), [])
      assert.deepStrictEqual(
        FakeServer.tokens({
          modes: ["tools-list-paged", "slow"],
          protocol: "2024-11-05",
          exitCode: 9,
          tools: 50,
          pageSize: 10,
          delay: 0,
          crashAfter: 3
        }),
        [
          "tools-list-paged",
          "slow",
          "tools=50",
          "page-size=10",
          "delay=0",
          "crash-after=3",
          "exit-code=9",
          "protocol=2024-11-05"
        ]
      )
      assert.deepStrictEqual(
        FakeServer.tokens({
          batch: 1,
          changeAfter: 2,
          burst: 3,
          listDelay: 4,
          floodBytes: 5,
          hugeBytes: 6,
          initDelay: 7
        }),
        ["batch=1", "change-after=2", "burst=3", "list-delay=4", "flood-bytes=5", "huge-bytes=6", "init-delay=7"]
      )
    }))

  it.effect("command runs the current node on the server with the tokens as arguments", () =>
    Effect.sync(() => {
      const spec = FakeServer.command({ modes: ["tools-list-paged"], tools: 50, pageSize: 10, env: { A: "1" } })
      assert.strictEqual(spec.command, process.execPath)
      assert.deepStrictEqual(withoutRunId(spec.args), [
        FakeServer.serverPath,
        "tools-list-paged",
        "tools=50",
        "page-size=10"
      ])
      assert.deepStrictEqual(spec.env, { A: "1" })
    }))

  it.effect("command can pass the tokens in FAKE_MCP_MODE instead", () =>
    Effect.sync(() => {
      const spec = FakeServer.command({ modes: ["slow"], delay: 5, tokensVia: "env" })
      assert.deepStrictEqual(withoutRunId(spec.args), [FakeServer.serverPath])
      assert.deepStrictEqual(spec.env, { FAKE_MCP_MODE: "slow delay=5" })
    }))

  it.effect("command tags the server with this run's id when the leak guard set one", () =>
    Effect.sync(() => {
      const runId = process.env[FakeServer.runIdEnvVar]
      assert.isDefined(runId, "the leak guard's globalSetup exports the run id to the workers")
      assert.deepStrictEqual(FakeServer.command().args, [FakeServer.serverPath, `run-id=${runId}`])
    }))
})
