/**
 * The resources, resource templates and prompts of each server's current connection, listed once the server is
 * ready (only what it declares: `resources`, `prompts`) and listed again on its `resources/list_changed` or
 * `prompts/list_changed`, coalesced as tools are: a burst of notifications while a listing runs causes one more
 * listing, not one per notification. A listing that fails keeps nothing of that kind and says why.
 *
 * Until a declared kind's first listing has finished, the kind is *pending*: the ledger shows it as being listed
 * ("prompts: listing…"), never as absent and never with a count it has not finished discovering. Every finished
 * listing is reported through `onChange`, so that the ledger's `snapshots` and waiters see it.
 *
 * @internal
 */
import type { ProtocolFeatures } from "@mcp-fleet/transport"
import { Capabilities } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { ServerHealth } from "../ServerHealth.ts"
import * as ServerState from "../ServerState.ts"
import type { Conn } from "./Record.ts"

/** A kind of list besides tools. */
export type Kind = "resources" | "prompts"

/** What one connection offers; a kind it does not declare stays `undefined`. */
interface Entry {
  readonly conn: Conn
  /** The kinds the server declares. */
  readonly declared: ReadonlyArray<Kind>
  resources: ReadonlyArray<ProtocolFeatures.Resource> | undefined
  templates: ReadonlyArray<ProtocolFeatures.ResourceTemplate> | undefined
  prompts: ReadonlyArray<ProtocolFeatures.Prompt> | undefined
  /** Why the last listing of a kind failed. */
  readonly errors: Partial<Record<Kind, string>>
  /** Declared kinds whose first listing has not finished yet. */
  readonly pending: Set<Kind>
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
  /**
   * Healths with `prompts` and `resources` counted for the servers that offer them (ready ones only), the kinds
   * still being listed in `listing`, and the failed ones in `listErrors`. `readyConn` is the connection of a
   * ready server (`undefined` otherwise).
   */
  readonly annotate: (
    healths: ReadonlyArray<ServerHealth>,
    readyConn: (name: string) => Conn | undefined
  ) => ReadonlyArray<ServerHealth>
}

/** The kinds a session declares, in display order. */
const declaredBy = (conn: Conn): ReadonlyArray<Kind> => {
  const session = Option.getOrUndefined(conn.client.session())
  if (session === undefined) return []
  return (["prompts", "resources"] as const).filter((kind) => Capabilities.declares(session, kind))
}

/**
 * Makes the catalog. `onChange(name)` is called whenever what a server's line shows may have changed (a listing
 * finished, or a connection's declared kinds became known).
 *
 * @internal
 */
export const make = (onChange: (name: string) => void): Catalog => {
  const entries = new Map<string, Entry>()

  const listKind = (name: string, entry: Entry, kind: Kind, timeoutMs: number) => {
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
    }).pipe(Effect.ensuring(Effect.sync(() => {
      entry.pending.delete(kind)
      if (entries.get(name) === entry) onChange(name)
    })))
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
      const declared = declaredBy(conn)
      // Registered before anything else is asked, so that the ledger shows each declared kind as pending from the
      // moment the session is known, never as absent.
      const entry: Entry | undefined = declared.length === 0 ? undefined : {
        conn,
        declared,
        resources: undefined,
        templates: undefined,
        prompts: undefined,
        errors: {},
        pending: new Set(declared)
      }
      if (entry !== undefined) {
        entries.set(name, entry)
        onChange(name)
      }
      if (logLevel !== undefined && Capabilities.declares(session, "logging")) {
        const set = yield* Effect.result(conn.client.setLogLevel(logLevel).pipe(Effect.timeout(timeoutMs)))
        if (set._tag === "Failure") {
          yield* Effect.logDebug(`logging/setLevel ${logLevel} failed: ${set.failure.message}`)
        }
      }
      if (entry === undefined) return
      const stale = new Set<Kind>(declared)
      const wake = yield* Queue.sliding<void>(1)
      yield* conn.client.listChanges.pipe(
        Stream.runForEach((kind) =>
          Effect.suspend(() => {
            if (kind === "tools" || !declared.includes(kind)) return Effect.void
            stale.add(kind)
            return Queue.offer(wake, undefined)
          })
        ),
        Effect.forkIn(conn.scope)
      )
      yield* Queue.offer(wake, undefined)
      while (true) {
        yield* Queue.take(wake)
        if (!conn.client.isAlive() || entries.get(name) !== entry) return
        const kinds = [...stale]
        stale.clear()
        // The kinds are listed side by side: a slow prompts/list does not hold the resources back.
        yield* Effect.forEach(kinds, (kind) => listKind(name, entry, kind, timeoutMs), {
          concurrency: "unbounded",
          discard: true
        })
      }
    }).pipe(Effect.forkIn(conn.scope), Effect.asVoid)

  return {
    watch,
    collect: (current, pick) =>
      [...entries].filter(([name, entry]) => current(name, entry.conn)).flatMap(([name, entry]) =>
        (pick(entry) ?? []).map((item) => [name, item] as const)
      ),
    annotate: (healths, readyConn) =>
      healths.map((h) => {
        if (!ServerState.countsTools(h.state)) return h
        const conn = readyConn(h.name)
        if (conn === undefined) return h
        const own = entries.get(h.name)
        const entry = own !== undefined && own.conn === conn ? own : undefined
        // Ready before the catalog saw the session: every declared kind is still to be listed.
        const listing = entry === undefined ? declaredBy(conn) : entry.declared.filter((k) => entry.pending.has(k))
        const errors = entry === undefined
          ? {}
          : Object.fromEntries(entry.declared.flatMap((k) => {
            const error = entry.errors[k]
            return error !== undefined && !entry.pending.has(k) ? [[k, error] as const] : []
          }))
        return {
          ...h,
          ...(entry?.prompts !== undefined ? { prompts: entry.prompts.length } : {}),
          ...(entry?.resources !== undefined ? { resources: entry.resources.length } : {}),
          ...(listing.length > 0 ? { listing } : {}),
          ...(Object.keys(errors).length > 0 ? { listErrors: errors } : {})
        }
      })
  }
}
