import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import * as Main from "../src/Main.ts"

const read = (relative: string) => readFileSync(new URL(relative, import.meta.url), "utf8")
const rootReadme = read("../../../README.md")
const cliReadme = read("../README.md")

describe("READMEs", () => {
  it("the root README's first two commands run the demo and the tests through the wrapper, as CI does", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(rootReadme)?.[1] ?? ""
    expect(firstBlock.trim().split("\n")).toEqual(["./fleet demo", "./fleet test"])
    expect(JSON.parse(read("../../../package.json")).scripts.demo).toBe("node packages/cli/bin/mcp-fleet.mjs demo")
    // CI runs the README's commands verbatim, each on a line of its own.
    const ci = read("../../../.ci/run").split("\n").map((line) => line.trim())
    expect(ci).toContain("./fleet demo")
    expect(ci).toContain("./fleet test")
  })

  it("the root README's library example is examples/fleet.ts, which the type check covers", () => {
    const example = read("../examples/fleet.ts")
    expect(rootReadme).toContain(example.slice(example.indexOf("import { NodeRuntime")))
  })

  it("every mcp-fleet command the READMEs show exists", () => {
    const commands = new Set(Main.root.subcommands.flatMap((group) => group.commands.map((c) => c.name)))
    // In code: `node packages/cli/bin/mcp-fleet.ts X …`, `./fleet mcp-fleet X …` and `mcp-fleet X …` in backticks.
    const text = `${rootReadme}\n${cliReadme}`
    const shown = [
      ...[...text.matchAll(/mcp-fleet\.m?ts ([a-z]+)/g)].map((m) => m[1]),
      ...[...text.matchAll(/fleet mcp-fleet ([a-z]+)/g)].map((m) => m[1]),
      ...[...text.matchAll(/`mcp-fleet ([a-z]+)/g)].map((m) => m[1])
    ]
    expect(shown.length).toBeGreaterThan(5)
    for (const name of shown) expect([...commands]).toContain(name)
  })
})
