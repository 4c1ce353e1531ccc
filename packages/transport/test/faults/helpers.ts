/**
 * Shared helpers of the transport's fault suite: typed-failure extraction, frame filters, a fake-server client.
 */
import { assert } from "@effect/vitest"
import { FakeServer } from "@mcp-fleet/testing"
import type { McpClientOptions } from "@mcp-fleet/transport"
import { McpClient } from "@mcp-fleet/transport"
import { Cause, Effect, Exit, Option, Scope } from "effect"
import type { Message } from "../peers.ts"

/** The typed error of a failed exit; throws (failing the test) on a success, a defect or an interruption. */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got a success: ${JSON.stringify(exit.value)}`)
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

/** Whether a received frame is a JSON object. */
export const isMessage = (u: unknown): u is Message => typeof u === "object" && u !== null && !Array.isArray(u)

/** The frames the peer received with this method. */
export const framesWith = (frames: ReadonlyArray<unknown>, method: string): Array<Message> =>
  frames.filter((f): f is Message => isMessage(f) && f.method === method)

/** The frames the peer received that are responses (an id, no method): the client's answers to server requests. */
export const responses = (frames: ReadonlyArray<unknown>): Array<Message> =>
  frames.filter((f): f is Message => isMessage(f) && f.method === undefined && f.id !== undefined)

/** A client of the real fake MCP server (`packages/fake-server`) with the given modes and options. */
export const fake = (options: FakeServer.Options, extra: Partial<McpClientOptions.McpClientOptions> = {}) => {
  const { args, command, env } = FakeServer.command(options)
  return McpClient.make({ command, args, env, name: "fake", ...extra })
}

/** The pid of the fake server's grandchild, read from the stderr line it logs (`grandchild pid=<pid>`). */
export const grandchildPid = (tail: ReadonlyArray<string>): number | undefined => {
  for (const line of tail) {
    const match = /grandchild pid=(\d+)/.exec(line)
    if (match) return Number(match[1])
  }
  return undefined
}

/** Base64 of UTF-8 text or raw bytes, for the fake server's `emit` tool. */
export const base64 = (data: string | Uint8Array): string =>
  Buffer.from(typeof data === "string" ? Buffer.from(data, "utf8") : data).toString("base64")

/**
 * A scope the test closes itself (to time or observe a shutdown), also closed with the test's own scope so a
 * failing assertion never leaves a process behind. Closing a scope twice is harmless.
 */
export const closableScope: Effect.Effect<Scope.Closeable, never, Scope.Scope> = Effect.acquireRelease(
  Scope.make(),
  (scope) => Scope.close(scope, Exit.void)
)

/** The `cursor` of a `tools/list` request's params, if it has one. */
export const cursorOf = (params: unknown): string | undefined =>
  typeof params === "object" && params !== null && "cursor" in params && typeof params.cursor === "string"
    ? params.cursor
    : undefined

/** Asserts that every fiber of the client has finished (`stats().fibersDone`), naming the ones that have not. */
export const assertAllFibersDone = (client: McpClient.McpClient) => {
  const running = Object.entries(client.stats().fibersDone).filter(([, done]) => !done).map(([name]) => name)
  assert.deepStrictEqual(running, [], "fibers still running when the close returned")
}
