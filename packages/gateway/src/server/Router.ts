/**
 * What answers the upstream servers' requests (`elicitation/create`, `sampling/createMessage`, `roots/list`): the
 * host whose call caused them. These are the `ClientHandlers` the fleet's clients are built with.
 *
 * - A 2025-era host is asked directly: the request goes out on its call's response stream (HTTP) or on stdout, and
 *   its answer comes back as the upstream's result.
 * - A 2026-07-28 host cannot be asked (the era has no server requests): its call's rounds turn the request into an
 *   input round (`Rounds.ts`).
 * - **Policy when the host did not declare the capability** (or no call is waiting on that server): elicitation is
 *   declined (`action: "decline"`), sampling is refused (the upstream gets the spec's "user rejected" error), roots
 *   are an empty list. Nothing is guessed on a host's behalf and nothing waits forever.
 *
 * @internal
 */
import type { ClientHandlers, Elicitation, Roots } from "@mcp-fleet/transport"
import { Sampling } from "@mcp-fleet/transport"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Calls from "./Calls.ts"
import * as Host from "./Host.ts"
import * as Rpc from "./Rpc.ts"

/** The router: the handlers, the calls they attribute to, and the roots signal. */
export interface Router {
  readonly handlers: ClientHandlers.ClientHandlers
  readonly inFlight: Calls.InFlight
  /** A host said its roots changed (`notifications/roots/list_changed`): the upstreams are told. */
  readonly rootsChanged: Effect.Effect<void>
}

/** Why an upstream's request got no host answer. */
class Unanswered extends Schema.TaggedError<Unanswered>()("Unanswered", { reason: Schema.String }) {}

const decodeSampling = Schema.decodeUnknownEffect(Sampling.CreateMessageResult)

const isRecord = Rpc.isRecord

const isValue = (value: unknown): value is Elicitation.Value =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
  (Array.isArray(value) && value.every((item) => typeof item === "string"))

/** A host's form answer, its fields that are form values (the transport checks them against the schema). */
const formContent = (content: Readonly<Record<string, unknown>>): Elicitation.Content => {
  const fields: Record<string, Elicitation.Value> = {}
  for (const [name, value] of Object.entries(content)) if (isValue(value)) fields[name] = value
  return fields
}

/** Builds a router. */
export const make: Effect.Effect<Router> = Effect.gen(function*() {
  const inFlight = Calls.make()
  const roots = yield* PubSub.sliding<void>(1)

  /** Asks the host of the call `server`'s request belongs to; `undefined` when that host cannot be asked. */
  const ask = (capability: string, method: string, params: unknown, server: string | undefined) =>
    Effect.gen(function*() {
      const call = yield* inFlight.attribute(server)
      if (call === undefined) return undefined
      const host = call.exchange.host
      if (!Host.declares(host, capability)) return undefined
      if (host.era === "legacy") return yield* Host.ask(host, call.exchange, method, params)
      if (call.rounds !== undefined) return yield* call.rounds.ask(method, params)
      return undefined
    }).pipe(Effect.mapError((error) => new Unanswered({ reason: error.message })))

  const elicit = (params: Record<string, unknown>, server: string) =>
    Effect.map(ask("elicitation", "elicitation/create", params, server), (answer): Elicitation.Answer => {
      if (!isRecord(answer)) return { action: "decline" }
      const action = answer["action"]
      if (action === "accept") {
        const content = answer["content"]
        return isRecord(content) ? { action: "accept", content: formContent(content) } : { action: "accept" }
      }
      return action === "cancel" ? { action: "cancel" } : { action: "decline" }
    })

  const handlers: ClientHandlers.ClientHandlers = {
    elicitation: {
      form: (request) =>
        elicit({ mode: "form", message: request.message, requestedSchema: request.requestedSchema }, request.server),
      url: (request) =>
        elicit({
          mode: "url",
          message: request.message,
          elicitationId: request.elicitationId,
          url: request.url
        }, request.server)
    },
    sampling: {
      createMessage: (request) =>
        Effect.flatMap(
          ask("sampling", "sampling/createMessage", request.params, request.server),
          (answer): Effect.Effect<Sampling.CreateMessageResult, unknown> =>
            answer === undefined
              ? Effect.fail(
                new Sampling.SamplingRefused({
                  server: request.server,
                  reason: "no host that declared sampling is waiting on this server"
                })
              )
              : decodeSampling(answer)
        )
    },
    roots: {
      list: Effect.map(
        Effect.orElseSucceed(ask("roots", "roots/list", {}, undefined), () => undefined),
        (answer): ReadonlyArray<Roots.Root> => {
          const list = isRecord(answer) ? answer["roots"] : undefined
          if (!Array.isArray(list)) return []
          return list.flatMap((root: unknown) =>
            isRecord(root) && typeof root["uri"] === "string"
              ? [typeof root["name"] === "string" ? { uri: root["uri"], name: root["name"] } : { uri: root["uri"] }]
              : []
          )
        }
      ),
      changes: Stream.fromPubSub(roots)
    }
  }
  return { handlers, inFlight, rootsChanged: Effect.asVoid(PubSub.publish(roots, undefined)) }
})
