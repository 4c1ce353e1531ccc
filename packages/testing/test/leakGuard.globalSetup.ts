/**
 * Vitest `globalSetup`: gives the run an id (exported to the workers through
 * `MCP_FLEET_TEST_RUN_ID`, which `FakeServer.command` turns into a `run-id=<id>` token) and, when the
 * run ends, fails it if any fake MCP server process — a server or its `--grandchild` — is still
 * running. Leftovers are killed first; the error names each one (pid and command line).
 */
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as FakeServer from "../src/FakeServer.ts"
import * as LeakGuard from "../src/LeakGuard.ts"

/** Sets the run id; returns the teardown that runs the leak guard. */
export default function setup(): () => Promise<void> {
  const runId = `${process.pid}-${randomUUID().slice(0, 8)}`
  process.env[FakeServer.runIdEnvVar] = runId
  return () =>
    Effect.runPromise(
      LeakGuard.check({ runId }).pipe(
        // Rethrow as a plain Error whose stack is just the message, so vitest prints the list of
        // processes and no Effect internals.
        Effect.catch((error) => Effect.die(Object.assign(new Error(error.message), { stack: error.message }))),
        Effect.provide(NodeServices.layer)
      )
    )
}
