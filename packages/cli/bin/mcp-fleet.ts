#!/usr/bin/env node
/**
 * The `mcp-fleet` executable: the only place that reads `process` and runs an effect. Everything else is in
 * `src/` (see `Main.run`). Node ≥ 22.18 runs this TypeScript file directly (type stripping).
 */
// Deep imports: the package root would load every Node module of the platform (HTTP, sockets, workers…).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeProcessTree from "@mcp-fleet/transport/NodeProcessTree"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { homedir } from "node:os"
import * as CliEnvironment from "../src/CliEnvironment.ts"
import * as Main from "../src/Main.ts"

// runMain interrupts the program on SIGINT and SIGTERM, so the manager's layer closes and every server is shut
// down before the process exits. SIGHUP (the terminal closed) does the same instead of killing the process at
// once, which would orphan every server that ignores the end of its stdin. The exit code is 128 + the signal's
// number, as a shell reports it: SIGHUP 129, SIGINT 130, SIGTERM 143.
const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const
let stoppedBy: keyof typeof SIGNAL_EXIT_CODES | undefined
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stoppedBy ??= signal
  })
}
process.on("SIGHUP", () => {
  stoppedBy ??= "SIGHUP"
  process.kill(process.pid, "SIGTERM")
})

// A closed stdout or stderr (`mcp-fleet tools | head -1`) is not a crash: stop as on Ctrl-C.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
    process.kill(process.pid, "SIGINT")
  })
}

const teardown: Runtime.Teardown = (exit, onExit) =>
  Runtime.defaultTeardown(
    exit,
    (code) => onExit(code === 130 && stoppedBy !== undefined ? SIGNAL_EXIT_CODES[stoppedBy] : code)
  )

Main.run(process.argv.slice(2)).pipe(
  Effect.provide([
    CliEnvironment.layer({
      env: process.env,
      execPath: process.execPath,
      cwd: process.cwd(),
      userHome: homedir(),
      terminalStderr: process.stderr.isTTY === true ? (text) => process.stderr.write(text) : undefined
    }),
    // The process table, so that closing a server also ends its descendants that left its process group (setsid).
    Layer.provideMerge(NodeProcessTree.layer, NodeServices.layer)
  ]),
  NodeRuntime.runMain({ disableErrorReporting: true, teardown })
)
