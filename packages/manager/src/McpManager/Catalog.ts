/**
 * The resources, resource templates and prompts of each server's current connection, listed once the server is
 * ready (only what it declares: `resources`, `prompts`) and listed again on its `resources/list_changed` or
 * `prompts/list_changed`, coalesced as tools are: a burst of notifications while a listing runs causes one more
 * listing, not one per notification. A listing that fails keeps nothing of that kind and says why.
 *
 * @internal
 */
import type { ProtocolFeatures } from "@mcp-fleet/transport"
import { Capabilities } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { ServerHealth } from "../ServerHealth.ts"
import * as ServerState from "../ServerState.ts"
import type { Conn } from "./Record.ts"

type Kind = "resources" | "prompts"

/** What one connection offers; a kind it does not declare stays `undefined`. */
interface Entry {
  readonly conn: Conn
  resources: ReadonlyArray<ProtocolFeatures.Resource> | undefined
  templates: ReadonlyArray<ProtocolFeatures.ResourceTemplate> | undefined
  prompts: ReadonlyArray<ProtocolFeatures.Prompt> | undefined
  /** Why the last listing of a kind failed. */
  readonly errors: Partial<Record<Kind, string>>
}

/** @internal */
export interface Catalog {
  /** Lists what `conn` offers once it is ready, and again on each list change; runs in `conn.scope`. */
  readonly watch: (
    name: string,
    conn: Conn,
    timeoutMs: number,
    logLevel: ProtocolFeatures.LoggingLevel | undefined
  ) => Effect.Effect<void>
  /** Every item of `pick`'s kind, from the connections `current` accepts, with its server. */
  readonly collect: <A>(
    current: (name: string, conn: Conn) => boolean,
    pick: (entry: Entry) => ReadonlyArray<A> | undefined
  ) => ReadonlyArray<readonly [string, A]>
  /** One element after each listing of a server's resources, templates or prompts (a slow reader sees the latest). */
  readonly changes: Stream.Stream<string>
  /** Healths with `prompts` and `resources` counted for the servers that offer them (ready ones only). */
  readonly annotate: (
    healths: ReadonlyArray<ServerHealth>,
    current: (name: string, conn: Conn) => boolean
  ) => ReadonlyArray<ServerHealth>
}

/** @internal */
export const make: Effect.Effect<Catalog> = Effect.map(PubSub.sliding<string>(64), (listed): Catalog => {
  const entries = new Map<string, Entry>()

  const listKind = (entry: Entry, kind: Kind, timeoutMs: number) => {
    const client = entry.conn.client
    const bounded = <A, E>(effect: Effect.Effect<A, E>) => effect.pipe(Effect.timeoutOption(timeoutMs), Effect.result)
    return Effect.gen(function*() {
      if (kind === "prompts") {
        const listed = yield* bounded(client.listPrompts())
        if (listed._tag === "Success" && Option.isSome(listed.success)) {
          entry.prompts = listed.success.value.prompts
          delete entry.errors.prompts
        } else {
          entry.prompts = undefined
          entry.errors.prompts = listed._tag === "Failure"
            ? listed.failure.message
            : `prompts/list did not finish within ${timeoutMs} ms`
        }
        return
      }
      const [resources, templates] = yield* Effect.all([
        bounded(client.listResources()),
        bounded(client.listResourceTemplates())
      ], { concurrency: 2 })
      if (resources._tag === "Success" && Option.isSome(resources.success)) {
        entry.resources = resources.success.value.resources
        delete entry.errors.resources
      } else {
        entry.resources = undefined
        entry.errors.resources = resources._tag === "Failure"
          ? resources.failure.message
          : `resources/list did not finish within ${timeoutMs} ms`
      }
      // A server may offer resources and no templates (answering -32601): that is no templates, not an error.
      entry.templates = templates._tag === "Success" && Option.isSome(templates.success)
        ? templates.success.value.resourceTemplates
        : []
    })
  }

  const watch = (
    name: string,
    conn: Conn,
    timeoutMs: number,
    logLevel: ProtocolFeatures.LoggingLevel | undefined
  ): Effect.Effect<void> =>
    Effect.gen(function*() {
      const ready = yield* Effect.result(conn.client.awaitReady)
      if (ready._tag === "Failure") return
      const session = ready.success
      if (logLevel !== undefined && Capabilities.declares(session, "logging")) {
        const set = yield* Effect.result(conn.client.setLogLevel(logLevel).pipe(Effect.timeout(timeoutMs)))
        if (set._tag === "Failure") {
          yield* Effect.logDebug(`logging/setLevel ${logLevel} failed: ${set.failure.message}`)
        }
      }
      const declared: Array<Kind> = []
      if (Capabilities.declares(session, "resources")) declared.push("resources")
      if (Capabilities.declares(session, "prompts")) declared.push("prompts")
      if (declared.length === 0) return
      const entry: Entry = { conn, resources: undefined, templates: undefined, prompts: undefined, errors: {} }
      entries.set(name, entry)
      const pending = new Set<Kind>(declared)
      const wake = yield* Queue.sliding<void>(1)
      yield* conn.client.listChanges.pipe(
        Stream.runForEach((kind) =>
          Effect.suspend(() => {
            if (kind === "tools" || !declared.includes(kind)) return Effect.void
            pending.add(kind)
            return Queue.offer(wake, undefined)
          })
        ),
        Effect.forkIn(conn.scope)
      )
      yield* Queue.offer(wake, undefined)
      while (true) {
        yield* Queue.take(wake)
        if (!conn.client.isAlive() || entries.get(name) !== entry) return
        const kinds = [...pending]
        pending.clear()
        yield* Effect.forEach(kinds, (kind) => listKind(entry, kind, timeoutMs), { discard: true })
        PubSub.publishUnsafe(listed, name)
      }
    }).pipe(Effect.forkIn(conn.scope), Effect.asVoid)

  const liveEntries = (current: (name: string, conn: Conn) => boolean) =>
    [...entries].filter(([name, entry]) => current(name, entry.conn))

  return {
    watch,
    changes: Stream.fromPubSub(listed),
    collect: (current, pick) =>
      liveEntries(current).flatMap(([name, entry]) => (pick(entry) ?? []).map((item) => [name, item] as const)),
    annotate: (healths, current) => {
      const live = new Map(liveEntries(current))
      return healths.map((h) => {
        const entry = live.get(h.name)
        if (entry === undefined || !ServerState.countsTools(h.state)) return h
        return {
          ...h,
          ...(entry.prompts !== undefined ? { prompts: entry.prompts.length } : {}),
          ...(entry.resources !== undefined ? { resources: entry.resources.length } : {})
        }
      })
    }
  }
})
