/**
 * A {@link TokenStore} in one JSON file (`tokens.json`) in a directory the host names (the CLI: its config
 * directory). The file is written atomically (a new file created with mode `0600`, then renamed over the old
 * one) in a directory created with mode `0700`, and checked on every lookup, so that a login made by another
 * process (`mcp-fleet auth login`) is seen at once.
 *
 * - **Checked, not re-read**: a lookup `stat`s the file and reads it only when its identity changed (inode, links,
 *   size, modification time: every write renames a new file over the old one; a file changed in the last two
 *   seconds is read again each time); lookups made while one check is under way share its answer. Every request to an HTTP server asks for its headers, and reading the file afresh each time
 *   was the largest single item of a gateway's CPU in front of an HTTP upstream (BENCHMARKS.md, issue 29).
 *
 * - **Per entry**: each server's tokens and each issuer's client are decoded on their own. An entry that cannot be
 *   decoded is dropped with a warning naming its server (or issuer); every other entry is kept.
 * - **Never overwritten**: a file that cannot be read as a token store at all, or that had entries dropped, is kept
 *   aside before the next write, as `tokens.json.corrupt`, else `tokens.json.corrupt.1` … `.99` (a hard link made
 *   only where no file of that name exists, so an earlier copy is never replaced).
 * - **The directory**: an existing one that others can read or write is tightened to `0700` (it must be the
 *   user's: `chmod` fails otherwise); a symbolic link, or something that is not a directory, is refused with
 *   {@link TokenDirectoryRefused}, at construction and before every write.
 *
 * Uses effect's `FileSystem` and `Path` services: no Node imports.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Kind from "./internal/Kind.ts"
import { type ClientCredentials, type Tokens, TokenStore } from "./TokenStore.ts"

const StoredTokens = Schema.Struct({
  issuer: Schema.String,
  accessToken: Schema.String,
  refreshToken: Schema.optionalKey(Schema.String),
  expiresAt: Schema.optionalKey(Schema.Finite),
  obtainedAt: Schema.Finite,
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

/** The file's outline; its entries are decoded one by one. */
const StoreOutline = Schema.Struct({
  version: Schema.Literal(1),
  tokens: Schema.Record(Schema.String, Schema.Unknown),
  clients: Schema.Record(Schema.String, Schema.Unknown)
})

interface StoreFile {
  readonly version: 1
  readonly tokens: Readonly<Record<string, typeof StoredTokens.Type>>
  readonly clients: Readonly<Record<string, typeof StoredClient.Type>>
}

const decodeOutline = Schema.decodeUnknownOption(Schema.fromJsonString(StoreOutline))
const decodeTokens = Schema.decodeUnknownOption(StoredTokens)
const decodeClient = Schema.decodeUnknownOption(StoredClient)
const empty: StoreFile = { version: 1, tokens: {}, clients: {} }

/**
 * A file modified less than this long ago is read again at the next lookup rather than remembered: a second change
 * within the file system's timestamp resolution (a second or two on some) would leave its stamp unchanged.
 */
const RACY_MS = 2_000

/** How many `.corrupt` copies are kept at most; past that the store refuses to write rather than lose one. */
const MAX_CORRUPT_COPIES = 100

/**
 * The token directory cannot be used: it is a symbolic link, not a directory, or open to other users and could
 * not be tightened.
 *
 * @since 0.2.0
 * @category errors
 */
export class TokenDirectoryRefused extends Schema.TaggedError<TokenDirectoryRefused>(
  "@mcp-fleet/auth/FileTokenStore/TokenDirectoryRefused"
)("TokenDirectoryRefused", {
  directory: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /** A configuration fault: the directory must be fixed (its mode, a symlink) or another one chosen. */
  get kind(): Kind.ConfigFault {
    return Kind.configFault
  }
  override get message(): string {
    return `The token directory ${this.directory} cannot be used: ${this.reason}.`
  }
}

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
  // A non-finite expiry would be written as null and make the entry undecodable: it is kept as "no expiry".
  ...(t.expiresAt === undefined || !Number.isFinite(t.expiresAt) ? {} : { expiresAt: t.expiresAt }),
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
  | { readonly _tag: "Read"; readonly file: StoreFile; readonly dropped: ReadonlyArray<string> }

/** Decodes the entries of `record` one by one; the keys of the undecodable ones are returned as `dropped`. */
const entries = <A>(
  record: Readonly<Record<string, unknown>>,
  decode: (input: unknown) => Option.Option<A>,
  label: string,
  dropped: Array<string>
): Record<string, A> => {
  const kept: Record<string, A> = {}
  for (const [key, value] of Object.entries(record)) {
    const decoded = decode(value)
    if (Option.isSome(decoded)) kept[key] = decoded.value
    else dropped.push(`${label} ${key}`)
  }
  return kept
}

/** A file's text as a store: none when it is not one at all; entries that cannot be decoded are dropped. */
const parse = (text: string): Read => {
  const outline = decodeOutline(text)
  if (Option.isNone(outline)) return { _tag: "Corrupt" }
  const dropped: Array<string> = []
  const tokens = entries(outline.value.tokens, decodeTokens, "the tokens of", dropped)
  const clients = entries(outline.value.clients, decodeClient, "the client registration at", dropped)
  return { _tag: "Read", file: { version: 1, tokens, clients }, dropped }
}

/**
 * Builds the store over `<directory>/tokens.json`. Fails when the directory exists and cannot be used (see
 * {@link TokenDirectoryRefused}); an existing directory open to others is tightened to `0700` first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  directory: string
) => Effect.Effect<TokenStore["Service"], TokenDirectoryRefused, FileSystem.FileSystem | Path.Path> = Effect.fnUntraced(
  function*(
    directory: string
  ) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    // Resolved, so that a trailing slash cannot make `lstat` follow a link.
    const dir = path.resolve(directory)
    const file = path.join(dir, FILE_NAME)
    const lock = yield* Semaphore.make(1)
    const warned = new Set<string>()

    const refused = (reason: string, cause?: unknown) =>
      new TokenDirectoryRefused({ directory: dir, reason, ...(cause === undefined ? {} : { cause }) })

    /** Refuses a link or a non-directory; tightens a directory others may use. A missing one is fine. */
    const secureDirectory = Effect.gen(function*() {
      const info = yield* fs.lstat(dir).pipe(
        Effect.map(Option.some),
        Effect.catch((error) =>
          error._tag === "PlatformError" && error.reason._tag === "NotFound"
            ? Effect.succeedNone
            : Effect.fail(refused(`it cannot be examined (${error.message})`, error))
        )
      )
      if (Option.isNone(info)) return
      if (info.value.type === "SymbolicLink") {
        return yield* refused("it is a symbolic link; tokens are kept only in a real directory")
      }
      if (info.value.type !== "Directory") return yield* refused("it is not a directory")
      const mode = info.value.mode & 0o777
      if ((mode & 0o077) === 0) return
      yield* fs.chmod(dir, 0o700).pipe(
        Effect.mapError((error) =>
          refused(`others may use it (mode ${mode.toString(8)}) and it could not be tightened to 700`, error)
        )
      )
      yield* Effect.logWarning("The token directory was open to other users; it was tightened to 700").pipe(
        Effect.annotateLogs({ directory: dir, was: mode.toString(8) })
      )
    })
    yield* secureDirectory

    /** Warns once per store about each dropped entry (the file is read again after each change). */
    const warnDropped = (dropped: ReadonlyArray<string>) =>
      Effect.forEach(dropped.filter((d) => !warned.has(d)), (what) => {
        warned.add(what)
        return Effect.logWarning(`The token store could not decode ${what}; that entry was dropped`).pipe(
          Effect.annotateLogs({ file })
        )
      }, { discard: true })

    /** The file read afresh; `parsed` says whether its text was read (a failed read is never remembered). */
    type Fresh = { readonly read: Read; readonly parsed: boolean }
    const readFile: Effect.Effect<Fresh> = fs.readFileString(file).pipe(
      Effect.map((text): Fresh => ({ read: parse(text), parsed: true })),
      Effect.tap(({ read }) => (read._tag === "Read" ? warnDropped(read.dropped) : Effect.void)),
      Effect.catch((error) =>
        error._tag === "PlatformError" && error.reason._tag === "NotFound"
          ? Effect.succeed<Fresh>({ read: { _tag: "Missing" }, parsed: true })
          : Effect.logWarning("The token store could not be read").pipe(
            Effect.annotateLogs({ file, reason: error.message }),
            Effect.as<Fresh>({ read: { _tag: "Corrupt" }, parsed: false })
          )
      )
    )
    const read: Effect.Effect<Read> = Effect.map(readFile, (r) => r.read)

    /** The file as last read, under the identity it had then (`undefined`: missing). */
    let known: { readonly stamp: string | undefined; readonly read: Read } | undefined
    /** The check under way, which lookups made meanwhile share. */
    let checking: Deferred.Deferred<Read> | undefined

    /** The file's identity: a new file is renamed over it at every write, so any change shows here. */
    const stampOf = (info: FileSystem.File.Info, mtime: number | undefined) =>
      [Option.getOrUndefined(info.ino), Option.getOrUndefined(info.nlink), info.size, mtime].join(":")

    /** The file as it is now: read again only when its identity changed since it was last read. */
    const check: Effect.Effect<Read> = Effect.gen(function*() {
      const info = yield* Effect.exit(fs.stat(file))
      if (Exit.isFailure(info)) {
        const missing = Option.exists(Cause.findErrorOption(info.cause), (error) => error.reason._tag === "NotFound")
        // A file that cannot be examined is read: the read says why (and is not remembered).
        if (!missing) return (yield* readFile).read
        known = { stamp: undefined, read: { _tag: "Missing" } }
        return known.read
      }
      const mtime = Option.getOrUndefined(Option.map(info.value.mtime, (date) => date.getTime()))
      const stamp = stampOf(info.value, mtime)
      if (known !== undefined && known.stamp === stamp) return known.read
      const fresh = yield* readFile
      // Racy: a file changed within the timestamps' resolution of now could change again under the same stamp.
      const settled = mtime !== undefined && (yield* Clock.currentTimeMillis) - mtime >= RACY_MS
      known = fresh.parsed && settled ? { stamp, read: fresh.read } : undefined
      return fresh.read
    })

    /** `check`, once for every lookup made while it runs (uninterruptible: others wait on its answer). */
    const checked: Effect.Effect<Read> = Effect.suspend(() => {
      if (checking !== undefined) return Deferred.await(checking)
      const deferred = Deferred.makeUnsafe<Read>()
      checking = deferred
      return check.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (checking === deferred) checking = undefined
            Deferred.doneUnsafe(deferred, exit)
          })
        ),
        Effect.uninterruptible
      )
    })
    const current = Effect.map(checked, (r) => (r._tag === "Read" ? r.file : empty))

    /** Keeps the current file under the first free `.corrupt` name (a hard link: an existing name is never replaced). */
    const keepAside = Effect.gen(function*() {
      for (let n = 0; n < MAX_CORRUPT_COPIES; n++) {
        const name = n === 0 ? `${file}.corrupt` : `${file}.corrupt.${n}`
        const linked = yield* fs.link(file, name).pipe(
          Effect.as(true),
          Effect.catch((error) =>
            error._tag === "PlatformError" && error.reason._tag === "AlreadyExists"
              ? Effect.succeed(false)
              : Effect.fail(error)
          )
        )
        if (!linked) continue
        yield* Effect.logWarning(`The token store had unreadable parts; it was kept as ${path.basename(name)}`).pipe(
          Effect.annotateLogs({ file })
        )
        return
      }
      return yield* refused(`${MAX_CORRUPT_COPIES} copies of an unreadable ${FILE_NAME} are kept there already`)
    })

    /** Writes `next` atomically: a fresh 0600 file beside the old one, renamed over it. */
    const write = Effect.fnUntraced(function*(next: StoreFile, previous: Read) {
      yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 })
      yield* secureDirectory
      if (previous._tag === "Corrupt" || (previous._tag === "Read" && previous.dropped.length > 0)) {
        yield* keepAside
      }
      const temp = `${file}.${(yield* Effect.sync(() => crypto.randomUUID())).slice(0, 8)}.tmp`
      yield* fs.writeFileString(temp, `${JSON.stringify(next, null, 2)}\n`, { flag: "wx", mode: 0o600 })
      yield* fs.rename(temp, file).pipe(Effect.onError(() => Effect.ignore(fs.remove(temp))))
    }, (effect) =>
      effect.pipe(
        Effect.catch((error) =>
          Effect.logWarning("The token store could not be written; the change was not saved").pipe(
            Effect.annotateLogs({ file, reason: error.message })
          )
        )
      ))

    const update = Effect.fnUntraced(function*(change: (file: StoreFile) => StoreFile) {
      const previous = yield* read
      yield* write(change(previous._tag === "Read" ? previous.file : empty), previous)
      // A check under way began before this write ended: lookups from now on make their own.
      known = undefined
      checking = undefined
    }, lock.withPermit)

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
  }
)

/**
 * The file store as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  directory: string
): Layer.Layer<TokenStore, TokenDirectoryRefused, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(TokenStore, make(directory))
