/**
 * The fleet the soak runs: N fake MCP servers with a mix of behaviours, and the manager options around them
 * (a reconnection policy fast enough that killed servers come back within the run).
 *
 * @since 0.0.0
 */
import type { ManagerOptions } from "@mcp-fleet/manager"
import { FakeServer } from "@mcp-fleet/testing"

/**
 * How a soak server behaves. `hang` answers `initialize` and nothing else: its tool list times out (it settles
 * `degraded`) and the soak sends it only calls with a short timeout. Every other role answers calls.
 *
 * @since 0.0.0
 * @category models
 */
export type Role = "plain" | "hang" | "reverse" | "junk-first" | "list-changed" | "slow"

/**
 * One server of the soak fleet.
 *
 * @since 0.0.0
 * @category models
 */
export interface SoakServer {
  readonly name: string
  readonly role: Role
}

/** Roles by server index, repeated: half plain, one in ten of each other behaviour. Index 1 always hangs. */
const cycle: ReadonlyArray<Role> = [
  "plain",
  "hang",
  "reverse",
  "plain",
  "junk-first",
  "plain",
  "list-changed",
  "plain",
  "slow",
  "plain"
]

/**
 * The servers of a fleet of `count` (at least 2, so there is one that hangs and one that answers).
 *
 * @since 0.0.0
 * @category constructors
 */
export const servers = (count: number): ReadonlyArray<SoakServer> =>
  Array.from({ length: count }, (_, i) => {
    const role = cycle[i % cycle.length]!
    return { name: `s${String(i + 1).padStart(2, "0")}-${role}`, role }
  })

const fakeOptions = (role: Role): FakeServer.Options => {
  switch (role) {
    case "plain":
      return {}
    case "hang":
      return { modes: ["hang"] }
    case "reverse":
      return { modes: ["reverse"], batch: 4 }
    case "junk-first":
      return { modes: ["junk-first"] }
    case "list-changed":
      return { modes: ["list-changed"], changeAfter: 100, burst: 3 }
    case "slow":
      return { modes: ["slow"], delay: 20 }
  }
}

/**
 * How quickly the manager brings a killed server back: 100 ms, doubling, capped at 2 s, 1000 attempts.
 *
 * @since 0.0.0
 * @category constants
 */
export const reconnectPolicy: ManagerOptions.ReconnectPolicy = {
  initialDelay: "100 millis",
  maxDelay: "2 seconds",
  factor: 2,
  maxAttempts: 1000
}

/**
 * The manager's options for the fleet. Every server carries `run-id=<runId>` so the soak's process scan
 * counts only its own processes (other runs on the same machine are left alone).
 *
 * @since 0.0.0
 * @category constructors
 */
export const managerOptions = (fleet: ReadonlyArray<SoakServer>, runId: string): ManagerOptions.ManagerOptions => ({
  servers: Object.fromEntries(fleet.map((server) => {
    const { args, command, env } = FakeServer.command(fakeOptions(server.role))
    const config: ManagerOptions.ServerConfig = {
      command,
      args: [...args.filter((a) => !a.startsWith("run-id=")), `run-id=${runId}`],
      env
    }
    return [server.name, config] as const
  })),
  // A hanging server's tools/list gives up after 2 s, so it settles `degraded` quickly after each restart.
  startupTimeout: "2 seconds",
  reconnect: reconnectPolicy
})
