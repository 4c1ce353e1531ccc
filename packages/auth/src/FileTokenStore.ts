/**
 * A {@link TokenStore} in one JSON file (`tokens.json`) in a directory the host names (the CLI: its config
 * directory). The file is written atomically (a new file created with mode `0600`, then renamed over the old
 * one) in a directory created with mode `0700`, and read afresh on every lookup, so that a login made by another
 * process (`mcp-fleet auth login`) is seen at once. A file that cannot be read as a token store is moved aside
 * (`tokens.json.corrupt`) before the next write, never silently overwritten.
 *
 * Uses effect's `FileSystem` and `Path` services: no Node imports.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { type ClientCredentials, type Tokens, TokenStore } from "./TokenStore.ts"

const StoredTokens = Schema.Struct({
  issuer: Schema.String,
  accessToken: Schema.String,
  refreshToken: Schema.optionalKey(Schema.String),
  expiresAt: Schema.optionalKey(Schema.Number),
  obtainedAt: Schema.Number,
  scope: Schema.optionalKey(Schema.String),
  tokenType: Schema.optionalKey(Schema.Literal("DPoP")),
  /** The DPoP proof key's private JWK: a DPoP-bound token is of no use without it. */
  dpopKey: Schema.optionalKey(Schema.String)
})

const StoredClient = Schema.Struct({
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecret: Schema.optionalKey(Schema.String),
  authMethod: Schema.Literals(["client_secret_basic", "client_secret_post", "none"]),
  source: Schema.Literals(["pre-registered", "metadata-document", "dynamic"])
})

const StoreFile = Schema.Struct({
  version: Schema.Literal(1),
  tokens: Schema.Record(Schema.String, StoredTokens),
  clients: Schema.Record(Schema.String, StoredClient)
})
type StoreFile = typeof StoreFile.Type

const decodeFile = Schema.decodeUnknownOption(Schema.fromJsonString(StoreFile))
const empty: StoreFile = { version: 1, tokens: {}, clients: {} }

/**
 * The file's name inside the directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const FILE_NAME = "tokens.json"

const toTokens = (t: typeof StoredTokens.Type): Tokens => ({
  issuer: t.issuer,
  accessToken: Redacted.make(t.accessToken),
  refreshToken: t.refreshToken === undefined ? undefined : Redacted.make(t.refreshToken),
  expiresAt: t.expiresAt,
  obtainedAt: t.obtainedAt,
  scope: t.scope,
  ...(t.tokenType === undefined ? {} : { tokenType: t.tokenType }),
  ...(t.dpopKey === undefined ? {} : { dpopKey: Redacted.make(t.dpopKey) })
})

const fromTokens = (t: Tokens): typeof StoredTokens.Type => ({
  issuer: t.issuer,
  accessToken: Redacted.value(t.accessToken),
  ...(t.refreshToken === undefined ? {} : { refreshToken: Redacted.value(t.refreshToken) }),
  ...(t.expiresAt === undefined ? {} : { expiresAt: t.expiresAt }),
  obtainedAt: t.obtainedAt,
  ...(t.scope === undefined ? {} : { scope: t.scope }),
  ...(t.tokenType === undefined ? {} : { tokenType: t.tokenType }),
  ...(t.dpopKey === undefined ? {} : { dpopKey: Redacted.value(t.dpopKey) })
})

const toClient = (c: typeof StoredClient.Type): ClientCredentials => ({
  issuer: c.issuer,
  clientId: c.clientId,
  clientSecret: c.clientSecret === undefined ? undefined : Redacted.make(c.clientSecret),
  authMethod: c.authMethod,
  source: c.source
})

const fromClient = (c: ClientCredentials): typeof StoredClient.Type => ({
  issuer: c.issuer,
  clientId: c.clientId,
  ...(c.clientSecret === undefined ? {} : { clientSecret: Redacted.value(c.clientSecret) }),
  authMethod: c.authMethod,
  source: c.source
})

type Read =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Corrupt" }
  | { readonly _tag: "Read"; readonly file: StoreFile }

/**
 * Builds the store over `<directory>/tokens.json`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  directory: string
): Effect.Effect<TokenStore["Service"], never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(directory, FILE_NAME)
    const lock = yield* Semaphore.make(1)

    const read: Effect.Effect<Read> = fs.readFileString(file).pipe(
      Effect.map((text): Read => {
        const decoded = decodeFile(text)
        return Option.isSome(decoded) ? { _tag: "Read", file: decoded.value } : { _tag: "Corrupt" }
      }),
      Effect.catch((error) =>
        error._tag === "PlatformError" && error.reason._tag === "NotFound"
          ? Effect.succeed<Read>({ _tag: "Missing" })
          : Effect.logWarning("The token store could not be read").pipe(
            Effect.annotateLogs({ file, reason: error.message }),
            Effect.as<Read>({ _tag: "Corrupt" })
          )
      )
    )
    const current = Effect.map(read, (r) => (r._tag === "Read" ? r.file : empty))

    /** Writes `next` atomically: a fresh 0600 file beside the old one, renamed over it. */
    const write = (next: StoreFile, previous: Read) =>
      Effect.gen(function*() {
        yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
        if (previous._tag === "Corrupt") {
          yield* fs.rename(file, `${file}.corrupt`)
          yield* Effect.logWarning("The token store was unreadable; it was kept as tokens.json.corrupt").pipe(
            Effect.annotateLogs({ file })
          )
        }
        const temp = `${file}.${(yield* Effect.sync(() => crypto.randomUUID())).slice(0, 8)}.tmp`
        yield* fs.writeFileString(temp, `${JSON.stringify(next, null, 2)}\n`, { flag: "wx", mode: 0o600 })
        yield* fs.rename(temp, file).pipe(Effect.onError(() => Effect.ignore(fs.remove(temp))))
      }).pipe(
        Effect.catch((error) =>
          Effect.logWarning("The token store could not be written; the change was not saved").pipe(
            Effect.annotateLogs({ file, reason: error.message })
          )
        )
      )

    const update = (change: (file: StoreFile) => StoreFile) =>
      lock.withPermit(Effect.gen(function*() {
        const previous = yield* read
        yield* write(change(previous._tag === "Read" ? previous.file : empty), previous)
      }))

    return TokenStore.of({
      getTokens: (resource) =>
        Effect.map(current, (f) => Option.map(Option.fromNullishOr(f.tokens[resource]), toTokens)),
      setTokens: (resource, tokens) =>
        update((f) => ({ ...f, tokens: { ...f.tokens, [resource]: fromTokens(tokens) } })),
      removeTokens: (resource) =>
        update((f) => {
          const { [resource]: _, ...rest } = f.tokens
          return { ...f, tokens: rest }
        }),
      getClient: (issuer) => Effect.map(current, (f) => Option.map(Option.fromNullishOr(f.clients[issuer]), toClient)),
      setClient: (issuer, client) => update((f) => ({ ...f, clients: { ...f.clients, [issuer]: fromClient(client) } }))
    })
  })

/**
 * The file store as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (directory: string): Layer.Layer<TokenStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(TokenStore, make(directory))
