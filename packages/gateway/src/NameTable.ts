/**
 * The names the gateway shows for the fleet's tools (and, with a table of their own, its prompts): namespaced,
 * short enough for the host, made of the characters hosts accept, and mapped back to `(server, name)`.
 *
 * **Contract** (what {@link make} guarantees for any input):
 * - Every exposed name matches `^[a-zA-Z0-9_-]{1,maxLength}$` ({@link isValidName}), and no two are equal; none
 *   equals a `reserved` name (the gateway's own tools).
 * - Every `(server, name)` of the input is either exposed or listed in `conflicts` with the reason: nothing is
 *   dropped silently.
 * - `resolve(exposed)` gives back the `(server, name)` it was made from, and `exposedName(server, name)` the
 *   other way round.
 * - **Stable**: the table depends on the set of entries and the options only, not on their order, the run, the
 *   machine or the replica (no randomness, no clock; the hash is FNV-1a 64, written here).
 * - **Adding a server never renames another's tools** under `always` (the default) and `never`, with one
 *   exception: two entries whose shortened names collide (a 40-bit hash suffix plus the same readable head;
 *   about 4·10⁻⁸ for a 300-tool fleet), where the one that sorts later gets a salted suffix. Under
 *   `conditional` a tool is prefixed as soon as another server offers the same name, so a new server can rename
 *   it: choose `always` when names must never move.
 *
 * **How a name is made.** The policy picks the form: `always` → `server__tool`; `never` → `tool`; `conditional`
 * → `tool`, or `server__tool` for every server offering a name that more than one server offers. A form is used
 * as it is when it is short enough, uses only `[a-zA-Z0-9_-]`, and (prefixed) splits back at its first `__`
 * (the server name has no `__` and does not end with `_`). Otherwise it is shortened: the readable head (other
 * characters replaced by `_`, the server part cut to 16) cut to fit, then `_` and 8 base32 characters of the
 * FNV-1a 64 hash of `(form, server, name)`: `github__add_pull_request_review_comment_t_3kq7x2ab`. Under `never`,
 * a name several servers offer goes to the first server in code-unit order; the others are conflicts.
 *
 * @since 0.1.0
 */
import * as Fnv from "./internal/fnv.ts"

/**
 * How names are namespaced: `always` prefixes every name with its server (`server__tool`), `conditional` only
 * the names more than one server offers, `never` none.
 *
 * @since 0.1.0
 * @category models
 */
export type Policy = "always" | "conditional" | "never"

/**
 * The separator between the server and the tool: two underscores, valid in every host's names.
 *
 * @since 0.1.0
 * @category constants
 */
export const SEPARATOR = "__"

/**
 * The longest exposed name: the limit of the Anthropic and OpenAI APIs (`^[a-zA-Z0-9_-]{1,64}$`).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LENGTH = 64

/**
 * The shortest `maxLength` accepted (smaller values are raised to it): room for a readable head, `_` and the
 * 8-character hash.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_LENGTH = 16

const HASH_LENGTH = 8
const SERVER_HEAD = 16
const ALLOWED = /^[a-zA-Z0-9_-]+$/

/**
 * Whether `name` is a valid exposed name under `maxLength`: 1 to `maxLength` characters of `[a-zA-Z0-9_-]`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isValidName = (name: string, maxLength: number = MAX_LENGTH): boolean =>
  name.length >= 1 && name.length <= maxLength && ALLOWED.test(name)

/**
 * One upstream name: a tool (or prompt) and the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly server: string
  readonly name: string
}

/**
 * An entry and the name it is exposed under.
 *
 * @since 0.1.0
 * @category models
 */
export interface Named extends Entry {
  readonly exposed: string
  /** Whether the name was shortened (cut, characters replaced, or a hash added) rather than used as it is. */
  readonly shortened: boolean
}

/**
 * An entry that is not exposed, and why: under `never`, another server keeps a name several offer
 * (`SharedName`); or its server listed the same name twice (`Duplicate`, the first is kept).
 *
 * @since 0.1.0
 * @category models
 */
export type Conflict =
  | { readonly _tag: "SharedName"; readonly server: string; readonly name: string; readonly keptBy: string }
  | { readonly _tag: "Duplicate"; readonly server: string; readonly name: string }

/**
 * The options of {@link make}.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** Default `always`. */
  readonly policy?: Policy | undefined
  /** The longest name, for this host (see `HostLimits`). Default 64; raised to 16, lowered to 64. */
  readonly maxLength?: number | undefined
  /** Names no entry may take: the gateway's own tools (`search_tools`, `call_tool`, `fleet_status`). */
  readonly reserved?: ReadonlyArray<string> | undefined
}

/**
 * The names of one fleet for one host.
 *
 * @since 0.1.0
 * @category models
 */
export interface NameTable {
  readonly policy: Policy
  readonly maxLength: number
  /** Every exposed entry, sorted by exposed name (code-unit order). */
  readonly named: ReadonlyArray<Named>
  /** Every entry that is not exposed, with the reason. */
  readonly conflicts: ReadonlyArray<Conflict>
  /** The entry behind an exposed name. */
  readonly resolve: (exposed: string) => Entry | undefined
  /** The exposed name of an entry (`undefined` when it is not exposed). */
  readonly exposedName: (server: string, name: string) => string | undefined
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
const compareEntries = (a: Entry, b: Entry): number => compare(a.server, b.server) || compare(a.name, b.name)
const clean = (text: string): string => text.replace(/[^a-zA-Z0-9_-]/g, "_")
/** A server name that `server__tool` splits back to at its first `__`. */
const splitsBack = (server: string): boolean =>
  server.length > 0 && ALLOWED.test(server) && !server.includes(SEPARATOR) && !server.endsWith("_")

type Form = "bare" | "prefixed"

interface Rendered {
  readonly name: string
  readonly shortened: boolean
}

const render = (entry: Entry, form: Form, maxLength: number, salt: number): Rendered => {
  const raw = form === "prefixed" ? entry.server + SEPARATOR + entry.name : entry.name
  const plain = salt === 0 && isValidName(raw, maxLength) && (form === "bare" || splitsBack(entry.server)) &&
    entry.name.length > 0
  if (plain) return { name: raw, shortened: false }
  const hash = Fnv.base32(JSON.stringify([form, entry.server, entry.name, salt]), HASH_LENGTH)
  const room = maxLength - 1 - HASH_LENGTH
  let head: string
  if (form === "prefixed") {
    const tool = clean(entry.name)
    // The server part gives way first: at most 16 characters, fewer when the tool would get under 8.
    const serverRoom = Math.max(1, Math.min(SERVER_HEAD, room - SEPARATOR.length - Math.min(tool.length, 8)))
    head = (clean(entry.server).slice(0, serverRoom) + SEPARATOR + tool).slice(0, room)
  } else {
    head = clean(entry.name).slice(0, room)
  }
  return { name: `${head}_${hash}`, shortened: true }
}

/** Plain prefixed names first (they are the namespaced truth), then plain bare ones, then shortened ones. */
const rank = (form: Form, rendered: Rendered): number => rendered.shortened ? 2 : form === "prefixed" ? 0 : 1

/**
 * Names a fleet's tools (or prompts) for one host. Total: any entries and options give a table (see the module's
 * contract).
 *
 * @example
 * ```ts
 * import { NameTable } from "@mcp-fleet/gateway"
 *
 * const table = NameTable.make([
 *   { server: "memory", name: "read_graph" },
 *   { server: "everything", name: "echo" }
 * ], { policy: "always", maxLength: 60 })
 * table.exposedName("memory", "read_graph") // "memory__read_graph"
 * table.resolve("everything__echo") // { server: "everything", name: "echo" }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (entries: ReadonlyArray<Entry>, options: Options = {}): NameTable => {
  const policy = options.policy ?? "always"
  const maxLength = Math.min(MAX_LENGTH, Math.max(MIN_LENGTH, Math.floor(options.maxLength ?? MAX_LENGTH)))
  const conflicts: Array<Conflict> = []

  const sorted = [...entries].sort(compareEntries)
  const unique: Array<Entry> = []
  for (const entry of sorted) {
    const last = unique[unique.length - 1]
    if (last !== undefined && last.server === entry.server && last.name === entry.name) {
      if (!conflicts.some((c) => c._tag === "Duplicate" && c.server === entry.server && c.name === entry.name)) {
        conflicts.push({ _tag: "Duplicate", server: entry.server, name: entry.name })
      }
      continue
    }
    unique.push({ server: entry.server, name: entry.name })
  }

  const offeredBy = new Map<string, Array<string>>()
  for (const entry of unique) {
    const servers = offeredBy.get(entry.name)
    if (servers === undefined) offeredBy.set(entry.name, [entry.server])
    else servers.push(entry.server)
  }

  const candidates: Array<{ readonly entry: Entry; readonly form: Form; readonly first: Rendered }> = []
  for (const entry of unique) {
    const servers = offeredBy.get(entry.name) ?? []
    const shared = servers.length > 1
    let form: Form
    if (policy === "always") form = "prefixed"
    else if (policy === "conditional") form = shared ? "prefixed" : "bare"
    else {
      const keptBy = servers[0]!
      if (keptBy !== entry.server) {
        conflicts.push({ _tag: "SharedName", server: entry.server, name: entry.name, keptBy })
        continue
      }
      form = "bare"
    }
    candidates.push({ entry, form, first: render(entry, form, maxLength, 0) })
  }
  candidates.sort((a, b) => rank(a.form, a.first) - rank(b.form, b.first) || compareEntries(a.entry, b.entry))

  const taken = new Set(options.reserved ?? [])
  const byExposed = new Map<string, Named>()
  const byEntry = new Map<string, string>()
  const keyOf = (server: string, name: string) => JSON.stringify([server, name])
  for (const { entry, first, form } of candidates) {
    let rendered = first
    let used = form
    if (taken.has(rendered.name) && form === "bare" && policy === "conditional") {
      // A bare name that another entry's prefixed name (or a reserved one) already holds: namespace it.
      used = "prefixed"
      rendered = render(entry, used, maxLength, 0)
    }
    // Each salt gives a new hash and finitely many names are taken, so this ends (in practice at salt 1).
    for (let salt = 1; taken.has(rendered.name); salt++) rendered = render(entry, used, maxLength, salt)
    taken.add(rendered.name)
    const named: Named = { ...entry, exposed: rendered.name, shortened: rendered.shortened }
    byExposed.set(rendered.name, named)
    byEntry.set(keyOf(entry.server, entry.name), rendered.name)
  }

  const named = [...byExposed.values()].sort((a, b) => compare(a.exposed, b.exposed))
  conflicts.sort((a, b) => compareEntries(a, b) || compare(a._tag, b._tag))
  return {
    policy,
    maxLength,
    named,
    conflicts,
    resolve: (exposed) => {
      const found = byExposed.get(exposed)
      return found === undefined ? undefined : { server: found.server, name: found.name }
    },
    exposedName: (server, name) => byEntry.get(keyOf(server, name))
  }
}
