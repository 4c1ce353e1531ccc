/**
 * Every known client adapter, loaded lazily so that a process only imports the libraries it benchmarks.
 *
 * @since 0.0.0
 */
import type { ClientAdapter } from "../ClientAdapter.ts"

/**
 * A registered client: its id, whether it runs by default, and how to load its adapter module.
 *
 * @since 0.0.0
 */
export interface ClientEntry {
  readonly id: string
  /** `false` for a slot whose adapter is not wired yet: listed in the report, never run by default. */
  readonly wired: boolean
  readonly load: () => Promise<ClientAdapter>
}

/**
 * The registry, in default order. `raw` must stay: every ratio is taken against it.
 *
 * @since 0.0.0
 */
export const clientEntries: ReadonlyArray<ClientEntry> = [
  { id: "raw", wired: true, load: () => import("./raw.ts").then((m) => m.adapter) },
  { id: "raw-batched", wired: true, load: () => import("./rawBatched.ts").then((m) => m.adapter) },
  { id: "sdk", wired: true, load: () => import("./sdk.ts").then((m) => m.adapter) },
  { id: "effect", wired: true, load: () => import("./effect.ts").then((m) => m.adapter) },
  { id: "fleet", wired: true, load: () => import("./fleet.ts").then((m) => m.adapter) },
  // An optional extra: coalescing per event-loop turn instead of per microtask (`--clients=...,raw-immediate`).
  { id: "raw-immediate", wired: true, load: () => import("./rawImmediate.ts").then((m) => m.adapter) },
  // Optional extras: the call cells' loop run as Effect fibers, as an Effect program calls a client (no
  // Effect.runPromise per call); every other cell as the plain adapter.
  { id: "fleet-fibers", wired: true, load: () => import("./fleet.ts").then((m) => m.fibersAdapter) },
  // Issue 16: `protocol: "auto"` (the default; `fleet` pins legacy), run in the startup cells only: its column
  // against `fleet`'s there is the era probe's cost against a legacy server.
  { id: "fleet-auto", wired: true, load: () => import("./fleet.ts").then((m) => m.autoAdapter) },
  { id: "effect-fibers", wired: true, load: () => import("./effect.ts").then((m) => m.fibersAdapter) },
  // An optional extra: fleet with Telemetry.layer() (a span and metrics per request), beside the untraced `fleet`.
  { id: "fleet-traced", wired: true, load: () => import("./fleet.ts").then((m) => m.tracedAdapter) },
  // An optional extra: raw with the server in its own session/process group, as process-group kill requires.
  { id: "raw-detached", wired: true, load: () => import("./rawDetached.ts").then((m) => m.adapter) }
]

/**
 * The ids run when `--clients` is not given.
 *
 * @since 0.0.0
 */
export const defaultClientIds: ReadonlyArray<string> = ["raw", "raw-batched", "sdk", "effect", "fleet", "fleet-auto"]

/**
 * Looks up one entry by id.
 *
 * @since 0.0.0
 */
export const findClient = (id: string): ClientEntry | undefined => clientEntries.find((entry) => entry.id === id)
