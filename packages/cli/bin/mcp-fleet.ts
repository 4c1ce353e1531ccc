#!/usr/bin/env node
/**
 * The `mcp-fleet` executable: the only place that reads `process` and runs an effect. Everything else is in
 * `src/` (see `Main.run`). Node ≥ 22.18 runs this TypeScript file directly (type stripping).
 */
// Deep imports: the package root would load every Node module of the platform (HTTP, sockets, workers…).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect } from "effect"
import * as CliEnvironment from "../src/CliEnvironment.ts"
import * as Main from "../src/Main.ts"

// A closed stdout or stderr (`mcp-fleet tools | head -1`) is not a crash: stop as on SIGTERM, which makes
// runMain interrupt the program, so the manager's layer closes and every server is shut down.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    process.kill(process.pid, "SIGTERM")
  })
}

Main.run(process.argv.slice(2)).pipe(
  Effect.provide([CliEnvironment.layer({ env: process.env, execPath: process.execPath }), NodeServices.layer]),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
