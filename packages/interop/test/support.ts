/**
 * Helpers for the interop tests: start a reference server in its own scope and temp dir, check that closing
 * that scope leaves nothing behind, and read what servers send.
 */
import { Processes } from "@mcp-fleet/testing"
import type { McpClientOptions, McpError, Protocol } from "@mcp-fleet/transport"
import { McpClient } from "@mcp-fleet/transport"
import type { PlatformError } from "effect"
import { Effect, FileSystem, Option, Schedule, Scope, Stream } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import * as ReferenceServers from "../src/ReferenceServers.ts"

/** Whether a process (or, with a negative pid, a process group) exists. */
export const exists = Processes.exists

/** A started reference server: its client and the temp dir that holds its state. */
export interface Started {
  readonly client: McpClient.StdioClient
  readonly dir: string
}

/** What `use` returned, and what is left once the server's scope has closed. */
export interface Closed<A> {
  readonly result: A
  readonly pid: number
  readonly exit: McpClient.ExitInfo | undefined
  readonly processLeft: boolean
  readonly groupLeft: boolean
  readonly dirLeft: boolean
}

/**
 * Starts reference server `name` with its state in a fresh temp dir, runs `use`, then closes the scope that
 * owns both (the client shuts down first, then the dir is removed) and reports what is left. `prepare` runs
 * in the temp dir before the server starts.
 */
export const withServer = <A, E, R>(
  name: ReferenceServers.Name,
  use: (started: Started) => Effect.Effect<A, E, R>,
  options: {
    readonly client?: Partial<McpClientOptions.McpClientOptions>
    readonly prepare?: (dir: string) => Effect.Effect<void, PlatformError.PlatformError, FileSystem.FileSystem>
  } = {}
): Effect.Effect<
  Closed<A>,
  E | McpError.SpawnError | PlatformError.PlatformError,
  R | FileSystem.FileSystem | ChildProcessSpawner.ChildProcessSpawner
> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const scope = yield* Scope.make()
    const { client, dir, result } = yield* Effect.gen(function*() {
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: `mcp-fleet-interop-${name}-` })
      if (options.prepare !== undefined) yield* options.prepare(dir)
      const client = yield* McpClient.make({ ...ReferenceServers.command(name, dir), name, ...options.client })
      return { client, dir, result: yield* use({ client, dir }) }
    }).pipe(Scope.provide(scope), Effect.onExit((exit) => Scope.close(scope, exit)))
    return {
      result,
      pid: client.pid,
      exit: Option.getOrUndefined(client.exitInfo()),
      processLeft: exists(client.pid),
      groupLeft: exists(-client.pid),
      dirLeft: yield* fs.exists(dir)
    }
  })

/**
 * The first `count` notifications with `method` (any method when `undefined`) on the client's stream, which
 * replays what arrived before it was run. Bounded: a missing notification fails the test after `limit` instead
 * of hanging it.
 */
export const notifications = (
  client: McpClient.McpClient,
  method: string | undefined,
  count: number,
  limit: `${number} seconds` = "5 seconds"
): Effect.Effect<Array<Protocol.ServerNotification>> =>
  client.notifications.pipe(
    Stream.filter((n) => method === undefined || n.method === method),
    Stream.take(count),
    Stream.runCollect,
    Effect.timeoutOrElse({
      duration: limit,
      orElse: () => Effect.die(new Error(`${client.name}: fewer than ${count} ${method} within ${limit}`))
    })
  )

/** One field of a JSON object received from a server, or `undefined` when it is not an object or lacks it. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined

/** The text of every `text` content block of a tool result. */
export const texts = (result: Protocol.CallToolResult): Array<string> =>
  result.content.flatMap((block) => block.type === "text" && typeof block["text"] === "string" ? [block["text"]] : [])

/** Polls `check` every 10 ms until it holds; dies after `limitMs` (a bound, not a wait). */
export const waitUntil = (check: () => boolean, what: string, limitMs = 5_000): Effect.Effect<void> =>
  Effect.sync(check).pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("10 millis") }),
    Effect.asVoid,
    Effect.timeoutOrElse({ duration: limitMs, orElse: () => Effect.die(new Error(`timed out waiting for: ${what}`)) })
  )

/** The tools server-everything 2026.8.31 lists, in its order (over stdio and over HTTP alike). */
export const EVERYTHING_TOOLS = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
  // Registered once `notifications/initialized` arrives (the cause of the list_changed burst).
  "simulate-research-query"
]
