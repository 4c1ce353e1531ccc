/**
 * Who hears what the gateway did not ask for: list changes, resource updates and upstream log entries.
 *
 * - **2025-era hosts** (`attach`ed once initialized) get them on their own channel (stdout, the session's GET stream).
 * - **2026-07-28 hosts** get list changes and resource updates only on their open `subscriptions/listen` streams,
 *   filtered as each asked and tagged with the stream's subscription id; log entries only inside the request they
 *   belong to, and only when that request set a log level.
 * - **Log entries** of an upstream go to the calls in flight on that server (on each call's response stream, when the
 *   call's host wants that level), and to every other 2025-era host that wants it on its own channel.
 *
 * @internal
 */
import type * as Calls from "./Calls.ts"
import type { Host } from "./Host.ts"
import * as HostModule from "./Host.ts"
import * as Rpc from "./Rpc.ts"

/** The lists a `list_changed` can name. */
export type ListKind = "tools" | "prompts" | "resources"

const LIST_CHANGED: Readonly<Record<ListKind, string>> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed"
}

/** The `_meta` key that tags each notification of a listen stream. */
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

/** One open `subscriptions/listen` stream. */
export interface Listener {
  readonly id: string | number
  readonly lists: ReadonlySet<ListKind>
  readonly uris: ReadonlySet<string>
  readonly send: (message: Record<string, unknown>) => boolean
}

/** The fan-out. */
export interface Fanout {
  readonly attach: (host: Host) => void
  readonly detach: (host: Host) => void
  readonly listen: (listener: Listener) => () => void
  /** Tells every host that these lists changed. */
  readonly listsChanged: (kinds: ReadonlyArray<ListKind>) => void
  /** Tells the hosts subscribed to `uri` that it changed. */
  readonly resourceUpdated: (uri: string, params: Readonly<Record<string, unknown>>) => void
  /** An upstream's log entry (`notifications/message` params), to whoever wants it. */
  readonly log: (server: string, params: unknown) => void
  readonly hosts: () => ReadonlyArray<Host>
  readonly listeners: () => number
}

/** A fan-out over the calls in flight. */
export const make = (inFlight: Calls.InFlight): Fanout => {
  const hosts = new Set<Host>()
  const listeners = new Set<Listener>()
  const tagged = (listener: Listener, method: string, params: Readonly<Record<string, unknown>>) => {
    const meta = Rpc.isRecord(params["_meta"]) ? params["_meta"] : {}
    return Rpc.notificationMessage(method, { ...params, _meta: { ...meta, [SUBSCRIPTION_ID]: listener.id } })
  }
  return {
    attach: (host) => {
      hosts.add(host)
    },
    detach: (host) => {
      hosts.delete(host)
    },
    listen: (listener) => {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    listsChanged: (kinds) => {
      for (const kind of kinds) {
        const message = Rpc.notificationMessage(LIST_CHANGED[kind], undefined)
        for (const host of hosts) host.push(message)
        for (const listener of listeners) {
          if (listener.lists.has(kind)) listener.send(tagged(listener, LIST_CHANGED[kind], {}))
        }
      }
    },
    resourceUpdated: (uri, params) => {
      const updated = { ...params, uri }
      for (const host of hosts) {
        if (host.subscriptions.has(uri)) host.push(Rpc.notificationMessage("notifications/resources/updated", updated))
      }
      for (const listener of listeners) {
        if (listener.uris.has(uri)) listener.send(tagged(listener, "notifications/resources/updated", updated))
      }
    },
    log: (server, params) => {
      const level = Rpc.isRecord(params) ? params["level"] : undefined
      const message = Rpc.notificationMessage("notifications/message", params)
      const told = new Set<Host>()
      for (const call of inFlight.on(server)) {
        if (told.has(call.exchange.host) || !HostModule.wantsLog(call.exchange, level)) continue
        if (call.exchange.related(message)) told.add(call.exchange.host)
      }
      for (const host of hosts) {
        if (!told.has(host) && Rpc.passes(level, host.logLevel)) host.push(message)
      }
    },
    hosts: () => [...hosts],
    listeners: () => listeners.size
  }
}
