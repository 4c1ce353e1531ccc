/**
 * The request timeout default has one source: the transport's `DEFAULT_REQUEST_TIMEOUT_MS`. The transport's
 * constant is replaced here by a value nobody would type (45 s), so that help text written by hand ("30 s")
 * or a default of the CLI's own goes red.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Transport from "@mcp-fleet/transport"
import { Option, Predicate, Redacted } from "effect"
import { Param } from "effect/cli"
import { vi } from "vitest"
import * as CliFlags from "../src/CliFlags.ts"
import * as FleetConfig from "../src/FleetConfig.ts"

vi.mock("@mcp-fleet/transport", async (importOriginal) => {
  const actual = await importOriginal<typeof Transport>()
  return { ...actual, McpClientOptions: { ...actual.McpClientOptions, DEFAULT_REQUEST_TIMEOUT_MS: 45_000 } }
})

/** The description of the one flag under the combinators (optional, filterMap…) wrapping it. */
const descriptionOf = (param: unknown): Option.Option<string> => {
  if (Param.isParam(param) && Param.isSingle(param)) return param.description
  return Predicate.hasProperty(param, "param") ? descriptionOf(param.param) : Option.none()
}

const entry = { name: "s", command: "s", args: [], env: {}, disabled: false, curated: [], inheritEnv: false }

describe("the request timeout default has one source", () => {
  it("--timeout's help shows the transport's constant, not a number of its own", () => {
    const text = Option.getOrElse(descriptionOf(CliFlags.timeout), () => "")
    assert.include(text, "(default 45 s)")
    assert.notInclude(text, "30")
  })

  it("a config entry without requestTimeoutMs reaches the manager without a timeout; one with it, unchanged", () => {
    const plain = FleetConfig.toServerConfig(entry)
    assert.strictEqual(plain.requestTimeout, undefined)
    assert.strictEqual(FleetConfig.toServerConfig({ ...entry, requestTimeoutMs: 1_234 }).requestTimeout, 1_234)
    const options = FleetConfig.toManagerOptions({ path: "x.json", servers: [entry], remote: [], warnings: [] })
    assert.strictEqual(options.servers["s"]!.requestTimeout, undefined)
  })

  it("a remote entry without requestTimeoutMs reaches the manager without a timeout; one with it, unchanged", () => {
    const remote = {
      name: "r",
      transport: "http" as const,
      url: Redacted.make("https://mcp.example.com/mcp"),
      headers: {},
      disabled: false,
      curated: []
    }
    assert.strictEqual(FleetConfig.toRemoteServerConfig(remote).requestTimeout, undefined)
    assert.strictEqual(FleetConfig.toRemoteServerConfig({ ...remote, requestTimeoutMs: 1_234 }).requestTimeout, 1_234)
    const sse = FleetConfig.toRemoteServerConfig({ ...remote, transport: "sse" })
    assert.strictEqual(sse.requestTimeout, undefined, "over legacy SSE too")
    const options = FleetConfig.toManagerOptions({ path: "x.json", servers: [], remote: [remote], warnings: [] })
    assert.strictEqual(options.servers["r"]!.requestTimeout, undefined)
  })
})
