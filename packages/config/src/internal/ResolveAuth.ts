/**
 * A remote entry's `auth` object: its wire schema, the check of its keys (a typo in an auth setting is an error, not a
 * warning: the server would otherwise authorize some other way without a word), and its resolution into a
 * `RemoteAuth` (`${VAR}` expansion, secrets `Redacted`, file paths relative to the config file's folder, and one clear
 * error for each setting that does not fit the grant).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ConfigError from "../ConfigError.ts"
import * as DidYouMean from "../DidYouMean.ts"
import type * as RemoteAuth from "../RemoteAuth.ts"
import * as JsonPath from "./JsonPath.ts"

const NonEmptyString = Schema.String.check(Schema.isNonEmpty({ message: "expected a non-empty string" }))

const GRANTS = ["authorization_code", "client_credentials", "jwt_bearer", "enterprise"] as const
const METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"] as const

const clientFields = {
  clientId: Schema.optionalKey(NonEmptyString),
  clientSecret: Schema.optionalKey(NonEmptyString),
  privateKeyFile: Schema.optionalKey(NonEmptyString),
  signingAlgorithm: Schema.optionalKey(NonEmptyString),
  keyId: Schema.optionalKey(NonEmptyString),
  tokenEndpointAuthMethod: Schema.optionalKey(Schema.Literals(METHODS))
}

const RawIdp = Schema.Struct({
  ...clientFields,
  tokenEndpoint: NonEmptyString,
  issuer: Schema.optionalKey(NonEmptyString),
  idTokenFile: NonEmptyString
})

/**
 * The `auth` object as written.
 *
 * @since 0.2.0
 * @category schemas
 */
export const RawRemoteAuth = Schema.Struct({
  ...clientFields,
  grant: Schema.optionalKey(Schema.Literals(GRANTS)),
  issuer: Schema.optionalKey(NonEmptyString),
  scope: Schema.optionalKey(NonEmptyString),
  dpop: Schema.optionalKey(Schema.Literals(["auto", "always", "never"])),
  assertionFile: Schema.optionalKey(NonEmptyString),
  idp: Schema.optionalKey(RawIdp)
})

/**
 * @since 0.2.0
 * @category models
 */
export type RawRemoteAuth = typeof RawRemoteAuth.Type

type RawClient = Pick<RawRemoteAuth, keyof typeof clientFields>

const AUTH_KEYS: ReadonlyArray<string> = Object.keys(RawRemoteAuth.fields)
const IDP_KEYS: ReadonlyArray<string> = Object.keys(RawIdp.fields)

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Refuses a key of `auth` (or of its `idp`) that is not read, with the known key it is nearest to.
 *
 * @since 0.2.0
 * @category decoding
 */
export const checkKeys = (
  raw: unknown,
  at: ReadonlyArray<string>,
  path: string
): Effect.Effect<void, ConfigError.ConfigSchemaInvalid> =>
  Effect.gen(function*() {
    const check = (value: unknown, where: ReadonlyArray<string>, known: ReadonlyArray<string>) => {
      if (!isRecord(value)) return undefined
      const extra = Object.keys(value).find((k) => !known.includes(k))
      if (extra === undefined) return undefined
      const suggestion = DidYouMean.suggest(extra, known)
      return new ConfigError.ConfigSchemaInvalid({
        path,
        jsonPath: JsonPath.format(where),
        issue: `unknown key "${extra}"${suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`}`
      })
    }
    const top = check(raw, at, AUTH_KEYS)
    if (top !== undefined) return yield* top
    const idp = check(isRecord(raw) ? raw["idp"] : undefined, [...at, "idp"], IDP_KEYS)
    if (idp !== undefined) return yield* idp
  })

/**
 * What resolution needs from the entry's context.
 *
 * @since 0.2.0
 * @category models
 */
export interface AuthContext<E> {
  readonly path: string
  /** Where `auth` is: `["mcpServers", "<name>", "auth"]`. */
  readonly at: ReadonlyArray<string>
  /** `${VAR}` expansion of one field (named by its path inside the entry). */
  readonly expand: (template: string, field: string) => Effect.Effect<string, E>
  readonly relative: (file: string) => string
}

/**
 * The `auth` object as a `RemoteAuth`, or the first setting that does not fit.
 *
 * @since 0.2.0
 * @category resolving
 */
export const resolveAuth = <E>(
  raw: RawRemoteAuth,
  context: AuthContext<E>
): Effect.Effect<RemoteAuth.RemoteAuth, E | ConfigError.ConfigSchemaInvalid> =>
  Effect.gen(function*() {
    /** A field as `${VAR}` errors name it: its path inside the server's entry (`auth.clientSecret`). */
    const fieldOf = (where: ReadonlyArray<string>) => JsonPath.format(where.slice(2))
    const invalid = (where: ReadonlyArray<string>, issue: string) =>
      new ConfigError.ConfigSchemaInvalid({ path: context.path, jsonPath: JsonPath.format(where), issue })
    const grant = raw.grant ?? "authorization_code"
    const dpop = raw.dpop === undefined ? {} : { dpop: raw.dpop }
    const scope = raw.scope === undefined ? {} : { scope: raw.scope }

    /** Refuses the first of `keys` that is set: it is not read with this grant. */
    const notWith = (value: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>, where = context.at) => {
      const set = keys.find((k) => value[k] !== undefined)
      return set === undefined
        ? Effect.void
        : Effect.fail(invalid([...where, set], `is not read with grant "${grant}"`))
    }

    const credentialOf = (client: RawClient, where: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const field = (name: string) => fieldOf([...where, name])
        if (client.clientSecret !== undefined && client.privateKeyFile !== undefined) {
          return yield* invalid(where, "give clientSecret or privateKeyFile, not both")
        }
        if (client.privateKeyFile === undefined) {
          const stray = client.signingAlgorithm !== undefined ? "signingAlgorithm" : client.keyId !== undefined
            ? "keyId"
            : undefined
          if (stray !== undefined) return yield* invalid([...where, stray], "is read only with privateKeyFile")
        }
        const method = client.tokenEndpointAuthMethod ??
          (client.privateKeyFile !== undefined ? "private_key_jwt" : client.clientSecret !== undefined
            ? "client_secret"
            : "none")
        const needs = (what: "clientSecret" | "privateKeyFile") =>
          invalid([...where, "tokenEndpointAuthMethod"], `"${method}" needs ${what}`)
        switch (method) {
          case "none": {
            if (client.clientSecret !== undefined || client.privateKeyFile !== undefined) {
              return yield* invalid(
                [...where, "tokenEndpointAuthMethod"],
                "\"none\" sends no secret, but clientSecret or privateKeyFile is given"
              )
            }
            return { method } satisfies RemoteAuth.ClientCredential
          }
          case "private_key_jwt": {
            if (client.privateKeyFile === undefined) return yield* needs("privateKeyFile")
            const file = yield* context.expand(client.privateKeyFile, field("privateKeyFile"))
            return {
              method,
              privateKeyFile: context.relative(file),
              ...(client.signingAlgorithm === undefined ? {} : { signingAlgorithm: client.signingAlgorithm }),
              ...(client.keyId === undefined ? {} : { keyId: client.keyId })
            } satisfies RemoteAuth.ClientCredential
          }
          default: {
            if (client.clientSecret === undefined) return yield* needs("clientSecret")
            const secret = yield* context.expand(client.clientSecret, field("clientSecret"))
            return {
              method,
              secret: Redacted.make(secret, { label: "clientSecret" })
            } satisfies RemoteAuth.ClientCredential
          }
        }
      })

    const clientId = (where: ReadonlyArray<string>) =>
      raw.clientId === undefined
        ? Effect.fail(invalid(where, `grant "${grant}" needs clientId`))
        : context.expand(raw.clientId, fieldOf([...context.at, "clientId"]))
    /** A secret or a key authenticates a client: it needs the client's id. */
    const needsId = (credential: RemoteAuth.ClientCredential, id: string | undefined, where: ReadonlyArray<string>) =>
      credential.method !== "none" && id === undefined
        ? Effect.fail(invalid(where, "a clientSecret or privateKeyFile needs the clientId it belongs to"))
        : Effect.void
    const file = (value: string, name: string) =>
      Effect.map(context.expand(value, fieldOf([...context.at, name])), context.relative)

    switch (grant) {
      case "authorization_code": {
        yield* notWith(raw, ["scope", "assertionFile", "idp", "privateKeyFile", "signingAlgorithm", "keyId"])
        if (raw.clientId === undefined) {
          yield* notWith(raw, ["clientSecret", "issuer", "tokenEndpointAuthMethod"])
          return { grant, ...dpop }
        }
        const credential = yield* credentialOf(raw, context.at)
        return {
          grant,
          clientId: yield* clientId(context.at),
          ...(credential.method === "none" || credential.method === "private_key_jwt"
            ? {}
            : { clientSecret: credential.secret }),
          ...(raw.issuer === undefined ? {} : { issuer: raw.issuer }),
          ...dpop
        }
      }
      case "client_credentials": {
        yield* notWith(raw, ["assertionFile", "idp", "issuer"])
        const credential = yield* credentialOf(raw, context.at)
        if (credential.method === "none") {
          return yield* invalid(context.at, "grant \"client_credentials\" needs clientSecret or privateKeyFile")
        }
        return { grant, clientId: yield* clientId(context.at), credential, ...scope, ...dpop }
      }
      case "jwt_bearer": {
        yield* notWith(raw, ["idp", "issuer"])
        if (raw.assertionFile === undefined) {
          return yield* invalid(context.at, "grant \"jwt_bearer\" needs assertionFile (the workload's token)")
        }
        const credential = yield* credentialOf(raw, context.at)
        yield* needsId(credential, raw.clientId, context.at)
        return {
          grant,
          assertionFile: yield* file(raw.assertionFile, "assertionFile"),
          ...(raw.clientId === undefined ? {} : { clientId: yield* clientId(context.at) }),
          credential,
          ...scope,
          ...dpop
        }
      }
      case "enterprise": {
        yield* notWith(raw, ["assertionFile", "issuer"])
        if (raw.idp === undefined) {
          return yield* invalid(context.at, "grant \"enterprise\" needs idp (tokenEndpoint and idTokenFile)")
        }
        const idp = raw.idp
        const at = [...context.at, "idp"]
        const credential = yield* credentialOf(raw, context.at)
        const idpCredential = yield* credentialOf(idp, at)
        yield* needsId(idpCredential, idp.clientId, at)
        const idTokenFile = yield* Effect.map(
          context.expand(idp.idTokenFile, fieldOf([...at, "idTokenFile"])),
          context.relative
        )
        return {
          grant,
          clientId: yield* clientId(context.at),
          credential,
          ...scope,
          ...dpop,
          idp: {
            tokenEndpoint: yield* context.expand(idp.tokenEndpoint, fieldOf([...at, "tokenEndpoint"])),
            ...(idp.issuer === undefined ? {} : { issuer: idp.issuer }),
            ...(idp.clientId === undefined ? {} : { clientId: idp.clientId }),
            credential: idpCredential,
            idTokenFile
          }
        }
      }
    }
  })
