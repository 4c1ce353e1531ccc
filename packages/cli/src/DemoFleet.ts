/**
 * The demo's embedded fleet: five servers, all of them `@mcp-fleet/fake-server`'s MCP server in a different
 * mode. The server file is found by resolving the `@mcp-fleet/fake-server/server` export — a plain
 * JavaScript file run as a child process; no module of the testing package is imported.
 *
 * @since 0.1.0
 */
import type { ManagerOptions } from "@mcp-fleet/manager"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { DemoFailed } from "./CliError.ts"
import * as FakeServerFile from "./internal/FakeServerFile.ts"

/**
 * The remote server's name in the demo's fleet.
 *
 * @since 0.2.0
 * @category constants
 */
export const remoteName = "remote"

/**
 * One server of the demo: its name, what it shows, and the fake server's mode tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface DemoServer {
  readonly name: string
  readonly role: string
  readonly tokens: ReadonlyArray<string>
  readonly disabled: boolean
  readonly env: Readonly<Record<string, Redacted.Redacted<string>>>
}

/**
 * How long `slow` takes to answer `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SLOW_INIT_MS = 2_500

/**
 * How long after starting `changing` changes its tool list.
 *
 * @since 0.1.0
 * @category constants
 */
export const CHANGE_AFTER_MS = 1_500

/**
 * The servers, in the order they are introduced.
 *
 * @since 0.1.0
 * @category constants
 */
export const servers: ReadonlyArray<DemoServer> = [
  {
    name: "healthy",
    role: "a healthy server; its tools carry read-only hints (true, false, absent)",
    tokens: ["annotations"],
    disabled: false,
    // A made-up secret, to show that env values are Redacted wherever they are printed.
    env: { DEMO_API_TOKEN: Redacted.make("demo-secret-4b1d") }
  },
  {
    name: "slow",
    role: `answers initialize only after ${SLOW_INIT_MS / 1_000} s (a cold index)`,
    tokens: [`init-delay=${SLOW_INIT_MS}`],
    disabled: false,
    env: {}
  },
  {
    name: "crashy",
    role: "exits (code 3) on any tools/call; the manager reconnects it",
    tokens: ["die-on-call"],
    disabled: false,
    env: {}
  },
  {
    name: "changing",
    role: `changes its tool list ${CHANGE_AFTER_MS / 1_000} s after starting and sends tools/list_changed`,
    tokens: ["list-changed", `change-after=${CHANGE_AFTER_MS}`],
    disabled: false,
    env: {}
  },
  {
    name: "archived",
    role: "\"disabled\": true in the config: never started",
    tokens: [],
    disabled: true,
    env: {}
  }
]

/**
 * The environment variable that, when set, tags the demo's servers with `run-id=<value>` — the marker the
 * test suite's leak guard uses to tell one test run's fake servers from another's.
 *
 * @since 0.1.0
 * @category constants
 */
export const RUN_ID_ENV_VAR = "MCP_FLEET_TEST_RUN_ID"

/**
 * The absolute path of the fake server, resolved through the `@mcp-fleet/fake-server/server` export (or the published package's own copy: `internal/FakeServerFile`).
 *
 * @since 0.1.0
 * @category resolving
 */
export const fakeServerPath: Effect.Effect<string, DemoFailed> = Effect.try({
  try: () => FakeServerFile.resolve("server"),
  catch: (error) =>
    new DemoFailed({
      reason: `the fake MCP server (@mcp-fleet/fake-server/server) could not be found; run pnpm install (${
        error instanceof Error ? error.message : String(error)
      })`
    })
})

/**
 * What the demo's manager needs besides the servers.
 *
 * @since 0.1.0
 * @category models
 */
export interface FleetInput {
  /** The `node` that runs the fake servers. */
  readonly execPath: string
  /** The fake server's file. */
  readonly serverPath: string
  /** Appended to every server's tokens as `run-id=<runId>` when given. */
  readonly runId: string | undefined
  /** The remote server's MCP URL (the fake server's HTTP mode, started by the demo). */
  readonly remoteUrl: string
  readonly onStateChange: ManagerOptions.ManagerOptions["onStateChange"]
  readonly onToolsChanged: ManagerOptions.ManagerOptions["onToolsChanged"]
}

/**
 * The manager's options for the demo: the servers above, the remote server at `remoteUrl` (Streamable HTTP), and
 * a quick reconnection policy (first retry after 300 ms, three attempts) so the crash and its repair fit in a
 * second.
 *
 * @since 0.1.0
 * @category options
 */
export const managerOptions = (input: FleetInput): ManagerOptions.ManagerOptions => ({
  servers: {
    ...Object.fromEntries(servers.map((server) => [server.name, {
      command: input.execPath,
      args: [input.serverPath, ...server.tokens, ...(input.runId !== undefined ? [`run-id=${input.runId}`] : [])],
      env: server.env,
      disabled: server.disabled
    }])),
    [remoteName]: { url: input.remoteUrl, transport: "http" }
  },
  reconnect: { initialDelay: "300 millis", maxAttempts: 3 },
  onStateChange: input.onStateChange,
  onToolsChanged: input.onToolsChanged
})
