/**
 * The options every machine strategy shares, and `McpAuth` built around a machine grant: no prompt (one that refuses
 * at once stands in; a grant never calls it), no registration, no redirect.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as AuthorizationPrompt from "../AuthorizationPrompt.ts"
import type * as MachineGrant from "../MachineGrant.ts"
import * as McpAuth from "../McpAuth.ts"
import type { TokenStore } from "../TokenStore.ts"

/** What every machine strategy takes besides its credentials. */
export interface CommonOptions {
  /** The scope to ask for, always (a service account gets what it is configured for); default: what the server's
   * challenge or metadata names, and on a step-up what it asks for besides. */
  readonly scope?: string | undefined
  /** DPoP (RFC 9449): `auto` (default), `always`, `never`; see `McpAuth.Options.dpop`. */
  readonly dpop?: "auto" | "always" | "never" | undefined
  readonly tokenTimeout?: Duration.Input | undefined
  readonly refreshBefore?: Duration.Input | undefined
  readonly maxStepUps?: number | undefined
}

/** Never used: a machine grant redirects no one. */
const NO_REDIRECT = "http://127.0.0.1/unused"

const refusingPrompt = AuthorizationPrompt.layerUnavailable("a machine grant never sends anyone to a browser")

/** The scope a grant asks for: the configured one, else the one `McpAuth` chose. */
export const scopeOf = (options: CommonOptions, requested: string | undefined): string | undefined =>
  options.scope ?? requested

/** `McpAuth` with `grant` in place of the interactive authorization. */
export const make = (
  grant: MachineGrant.MachineGrant,
  options: CommonOptions
): Effect.Effect<McpAuth.Service, never, HttpClient.HttpClient | TokenStore> =>
  McpAuth.make({
    clientName: grant.name,
    redirectUri: NO_REDIRECT,
    grant,
    dpop: options.dpop,
    tokenTimeout: options.tokenTimeout,
    refreshBefore: options.refreshBefore,
    maxStepUps: options.maxStepUps
  }).pipe(Effect.provide(refusingPrompt))

/** `make` as the `McpAuth` layer. */
export const layer = (
  grant: MachineGrant.MachineGrant,
  options: CommonOptions
): Layer.Layer<McpAuth.McpAuth, never, HttpClient.HttpClient | TokenStore> =>
  Layer.effect(McpAuth.McpAuth, make(grant, options))
