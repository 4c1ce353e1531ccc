/**
 * The client's roots: the `file://` directories and files a server may work in, answered to `roots/list`.
 *
 * Provide a `Roots` service (or pass one as `McpClient.make({ handlers: { roots } })`) and the client declares
 * `roots: { listChanged: true }` in `initialize`. `make` builds a changeable set: each `set` sends
 * `notifications/roots/list_changed` to every ready server using it, which then asks `roots/list` again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, Roots } from "@mcp-fleet/transport"
 *
 * const program = Effect.gen(function*() {
 *   const roots = yield* Roots.make(["file:///home/me/project"])
 *   const client = yield* McpClient.make({ command: "node", args: ["server.js"], handlers: { roots } })
 *   yield* client.awaitReady
 *   yield* roots.set(["file:///home/me/project", "file:///home/me/notes"]) // the server hears list_changed
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ErrorKind from "./ErrorKind.ts"

/**
 * One root: a `file://` URI and an optional display name.
 *
 * @since 0.2.0
 * @category models
 */
export interface Root {
  readonly uri: string
  readonly name?: string | undefined
}

/**
 * A root whose URI is not an absolute `file://` URI (the only scheme MCP allows for roots).
 *
 * @since 0.2.0
 * @category errors
 */
export class InvalidRoot extends Schema.TaggedError<InvalidRoot>()("InvalidRoot", {
  uri: Schema.String,
  reason: Schema.String
}) {
  /** The caller's: the root offered is not an absolute `file://` URI. */
  get kind(): ErrorKind.CallerFault {
    return ErrorKind.callerFault
  }
  override get message(): string {
    return `The root ${JSON.stringify(this.uri)} cannot be offered: ${this.reason}.`
  }
}

/**
 * What answers `roots/list`: the current roots, and a signal each time they change.
 *
 * @since 0.2.0
 * @category models
 */
export interface Service {
  /** The roots now. */
  readonly list: Effect.Effect<ReadonlyArray<Root>>
  /** One element per change after subscription (the session sends `notifications/roots/list_changed` for each). */
  readonly changes: Stream.Stream<void>
  /** Bound of one `roots/list` answer. Default 10 seconds. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The roots service. Optional: a client made where it is provided (and given no `handlers.roots`) serves it.
 *
 * @since 0.2.0
 * @category services
 */
export class Roots extends Context.Service<Roots, Service>()("@mcp-fleet/transport/Roots") {}

/**
 * A changeable set of roots.
 *
 * @since 0.2.0
 * @category models
 */
export interface RootsRef extends Service {
  /** Replaces the roots (all checked first: one bad URI changes nothing) and signals the change. */
  readonly set: (roots: ReadonlyArray<Root | string>) => Effect.Effect<void, InvalidRoot>
}

/**
 * Checks that each root is an absolute `file://` URI; a bare string is a root without a name.
 *
 * @since 0.2.0
 * @category constructors
 */
export const validate = (roots: ReadonlyArray<Root | string>): Effect.Effect<ReadonlyArray<Root>, InvalidRoot> =>
  Effect.forEach(roots, (root) => {
    const entry: Root = typeof root === "string" ? { uri: root } : root
    if (!URL.canParse(entry.uri)) {
      return Effect.fail(new InvalidRoot({ uri: entry.uri, reason: "it is not an absolute URI" }))
    }
    const scheme = new URL(entry.uri).protocol
    return scheme === "file:"
      ? Effect.succeed(entry.name === undefined ? { uri: entry.uri } : { uri: entry.uri, name: entry.name })
      : Effect.fail(new InvalidRoot({ uri: entry.uri, reason: `its scheme is ${scheme}, not file:` }))
  })

/**
 * A changeable set of roots, starting with `initial`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (
  initial: ReadonlyArray<Root | string>,
  options?: { readonly timeout?: Duration.Input | undefined }
) => Effect.Effect<RootsRef, InvalidRoot> = Effect.fnUntraced(function*(
  initial: ReadonlyArray<Root | string>,
  options?: { readonly timeout?: Duration.Input | undefined }
) {
  let current = yield* validate(initial)
  const changed = yield* PubSub.sliding<void>(1)
  return {
    list: Effect.sync(() => current),
    changes: Stream.fromPubSub(changed),
    timeout: options?.timeout,
    set: (roots) =>
      Effect.flatMap(validate(roots), (valid) =>
        Effect.sync(() => {
          current = valid
          PubSub.publishUnsafe(changed, undefined)
        }))
  } satisfies RootsRef
})

/**
 * A layer of the `Roots` service, starting with `initial`.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (initial: ReadonlyArray<Root | string>): Layer.Layer<Roots, InvalidRoot> =>
  Layer.effect(Roots, make(initial))
