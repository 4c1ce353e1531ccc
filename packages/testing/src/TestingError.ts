/**
 * The typed errors of the test kit.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * One process seen in the process table: its pid and its full command line.
 *
 * @since 0.1.0
 * @category models
 */
export const ProcessEntry = Schema.Struct({
  pid: Schema.Number,
  args: Schema.String
})

/**
 * One process seen in the process table.
 *
 * @since 0.1.0
 * @category models
 */
export type ProcessEntry = typeof ProcessEntry.Type

/**
 * Fake MCP server processes were still running when a test run ended. They have been killed by the
 * time this error is raised; the message names each one (pid and command line).
 *
 * @since 0.1.0
 * @category errors
 */
export class LeakedProcesses extends Schema.TaggedError<LeakedProcesses>()("LeakedProcesses", {
  processes: Schema.Array(ProcessEntry)
}) {
  override get message(): string {
    const list = this.processes.map((p) => `  pid ${p.pid}: ${p.args}`).join("\n")
    return `${this.processes.length} fake MCP server process(es) were still running after the tests and have been ` +
      `killed; a test did not reap what it spawned:\n${list}`
  }
}

/**
 * The process table could not be read (running `ps` failed or printed nothing usable).
 *
 * @since 0.1.0
 * @category errors
 */
export class ProcessScanFailed extends Schema.TaggedError<ProcessScanFailed>()("ProcessScanFailed", {
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `Could not list running processes with ps: ${this.reason}.`
  }
}

/**
 * The HTTP fake server did not come up: it exited, or printed something other than its `{"url":…}`
 * line, before it was listening.
 *
 * @since 0.1.0
 * @category errors
 */
export class FakeHttpServerFailed extends Schema.TaggedError<FakeHttpServerFailed>()("FakeHttpServerFailed", {
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `The HTTP fake server did not start: ${this.reason}.`
  }
}

/**
 * `LoadedModules.loadedBy` could not import the module: the process failed or printed no module list.
 *
 * @since 0.3.0
 * @category errors
 */
export class ImportFailed extends Schema.TaggedError<ImportFailed>()("ImportFailed", {
  specifier: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return `Importing ${this.specifier} in a fresh process failed: ${this.reason}.`
  }
}

/**
 * A real daemon (`redis-server`, `haproxy`) could not be started: not installed, or it exited before it was ready
 * (the reason holds its last output lines).
 *
 * @since 0.3.0
 * @category errors
 */
export class DaemonFailed extends Schema.TaggedError<DaemonFailed>()("DaemonFailed", {
  daemon: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.daemon} could not be started: ${this.reason}.`
  }
}
