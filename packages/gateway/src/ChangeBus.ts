/**
 * The change bus: config changes and upstream `list_changed`, carried to every replica of the gateway, so that a
 * host's `subscriptions/listen` (or its 2025-era stream) on any replica hears a change that any replica saw.
 *
 * **Contract**:
 * - `publish(change)` delivers the change to this replica's subscribers at once, and to every other replica's
 *   (Redis pub/sub, when the bus is in Redis).
 * - A change has a `key` ({@link keyOf}): replicas that see the same real change (each has its own connection to
 *   the upstream, each watches the same config) publish the same key, and each subscriber gets it **once**: a key
 *   seen within `window` (default 10 s, by `Clock`) is dropped. Keys are remembered for at most 4,096 changes.
 * - `Resync` is local: the Redis bus emits it after it (re)connects, when changes may have been missed; a consumer
 *   reads everything again.
 * - A subscriber sees what is published after it subscribed (`subscribe` is scoped; `changes` subscribes when run).
 *
 * Feed `changes` into `ListChanges.watch` as a trigger: it re-reads the catalog the host sees and notifies only the
 * kinds whose fingerprint changed, so each host gets one `list_changed` per real change whichever replica it is on.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const Kind = Schema.Literals(["prompts", "resources", "tools"])

/**
 * A change the bus carries.
 *
 * - `ConfigChanged`: the configuration was reloaded; `revision` identifies its content (a hash of the file).
 * - `ListChanged`: an upstream's lists changed; `fingerprint` identifies the new lists (`ListChanges.fingerprint`
 *   of what was read after the notification), so that replicas that read the same lists publish the same change.
 * - `Resync`: local only; changes may have been missed (the bus reconnected).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Change = Schema.Union([
  Schema.TaggedStruct("ConfigChanged", { revision: Schema.String }),
  Schema.TaggedStruct("ListChanged", { server: Schema.String, kinds: Schema.Array(Kind), fingerprint: Schema.String }),
  Schema.TaggedStruct("Resync", {})
])

/**
 * @since 0.1.0
 * @category models
 */
export type Change = typeof Change.Type

/**
 * The key that identifies a real change across replicas.
 *
 * @since 0.1.0
 * @category models
 */
export const keyOf = (change: Change): string => {
  switch (change._tag) {
    case "ConfigChanged":
      return `config:${change.revision}`
    case "ListChanged":
      return `list:${change.server}:${[...change.kinds].sort().join(",")}:${change.fingerprint}`
    case "Resync":
      return "resync"
  }
}

/**
 * The bus. Its operations are `ChangeBus["Service"]`.
 *
 * @since 0.1.0
 * @category services
 */
export class ChangeBus extends Context.Service<ChangeBus, {
  /** Delivers a change here and to every other replica. */
  readonly publish: (change: Change) => Effect.Effect<void>
  /** Subscribes now (take with `PubSub.take`): every change from now on, once each. */
  readonly subscribe: Effect.Effect<PubSub.Subscription<Change>, never, Scope.Scope>
  /** Every change from when the stream starts, once each. */
  readonly changes: Stream.Stream<Change>
}>()("@mcp-fleet/gateway/ChangeBus") {}

/**
 * The options of the buses.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** How long a change's key is remembered. Default 10 seconds. */
  readonly window?: Duration.Input | undefined
}

const MAX_KEYS = 4_096

/**
 * The local half of every bus: the subscribers of this replica, and the keys seen lately. `deliver` hands a change
 * to the subscribers unless its key was seen within the window.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeLocal = Effect.fnUntraced(function*(options: Options = {}) {
  const window = options.window === undefined ? 10_000 : Duration.toMillis(Duration.fromInputUnsafe(options.window))
  const hub = yield* PubSub.unbounded<Change>()
  /** Key → when it was seen, oldest first. */
  const seen = new Map<string, number>()
  const deliver = (change: Change) =>
    Effect.gen(function*() {
      if (change._tag !== "Resync") {
        const now = yield* Clock.currentTimeMillis
        const key = keyOf(change)
        const at = seen.get(key)
        if (at !== undefined && now - at < window) return
        seen.delete(key)
        seen.set(key, now)
        for (const [old, when] of seen) {
          if (seen.size <= MAX_KEYS && now - when < window) break
          seen.delete(old)
        }
      }
      yield* PubSub.publish(hub, change)
    })
  return {
    deliver,
    subscribe: PubSub.subscribe(hub),
    changes: Stream.fromPubSub(hub)
  }
})

/**
 * The bus of one process: `publish` delivers to this process's subscribers only.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess = (options: Options = {}): Layer.Layer<ChangeBus> =>
  Layer.effect(
    ChangeBus,
    Effect.map(makeLocal(options), (local) =>
      ChangeBus.of({
        publish: Effect.fn("ChangeBus.publish")(function*(change: Change) {
          yield* local.deliver(change)
        }),
        subscribe: local.subscribe,
        changes: local.changes
      }))
  )
