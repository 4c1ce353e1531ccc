/**
 * What a failed start says about itself: a sentence for `lastError`, and a signature that is equal for two
 * failures only when the failure repeats identically (the crash-loop rule).
 *
 * @internal
 */
import type { McpClient } from "@mcp-fleet/transport"
import { StderrLine } from "@mcp-fleet/transport"
import * as Option from "effect/Option"

/** The stderr line that explains a failure best (`StderrLine.informative`), as a sentence. */
const stderrSentence = (tail: ReadonlyArray<string>): string => {
  const line = StderrLine.informative(tail)
  if (line === undefined) return ""
  return line === tail[tail.length - 1]
    ? ` Last stderr line: ${JSON.stringify(line)}.`
    : ` Its stderr said: ${JSON.stringify(line)}.`
}

/** A dead client's exit, as a sentence with its most informative stderr line. */
export const describeExit = (client: McpClient.McpClient): string => {
  const exit = Option.getOrUndefined(client.exitInfo())
  const tail = client.stderrTail()
  const last = stderrSentence(tail)
  if (exit === undefined) {
    // A remote server has no exit code and no stderr: its client's own account is all there is.
    const why = client.transport === "stdio" ? undefined : client.lastError()
    return why === undefined ? `The server's connection closed.${last}` : `The server's connection closed: ${why}`
  }
  return exit.signal !== null
    ? `The process was killed by ${exit.signal}.${last}`
    : `The process exited with code ${exit.code}.${last}`
}

/** How long a process may live and still count as "crashing on start". */
export const earlyExitMs = 1_000

/**
 * A failed start that may repeat identically: `key` is compared with the previous failure's, `reason` is what
 * the server's `GaveUp` state says when it does.
 */
export interface Signature {
  readonly key: string
  readonly reason: string
  /** The failure is known to repeat (npm has no such package): give up at once, without a second start. */
  readonly final?: boolean | undefined
}

/** The command could not be started (not found, not executable, bad working directory). */
export const spawnFailed = (message: string): Signature => ({
  key: `spawn:${message}`,
  reason: `fails on every start: ${message}`
})

/** `initialize` failed (including an unsupported protocol version) and the process then exited. */
export const initializeFailed = (message: string): Signature => ({
  key: `initialize:${message}`,
  reason: `fails on every start: ${message}`
})

/**
 * The process exited by itself with a code within `earlyExitMs` of its start, and said why on stderr (its most
 * informative line is quoted). A silent exit, a signal or a late crash carries no signature: those may be transient,
 * so the schedule runs its course. npm saying the package does not exist (a 404 from the registry) is `final`, however
 * long the process lived before it exited (npx asks the registry first).
 */
export const earlyExit = (client: McpClient.McpClient, livedMs: number): Signature | undefined => {
  const exit = Option.getOrUndefined(client.exitInfo())
  const tail = client.stderrTail()
  if (exit === undefined || exit.code === null || tail.length === 0) return undefined
  const line = StderrLine.informative(tail)!
  // However long npx took to ask the registry: the package is not there, and will not be on the next start.
  if (StderrLine.isPackageNotFound(tail)) {
    return {
      key: `exit:${exit.code}:${tail.join("\n")}`,
      reason: `the package does not exist in the registry: exit code ${exit.code}, '${line}'`,
      final: true
    }
  }
  if (livedMs >= earlyExitMs) return undefined
  return {
    key: `exit:${exit.code}:${tail.join("\n")}`,
    reason: `crashes on every start: exit code ${exit.code}, '${line}'`
  }
}
