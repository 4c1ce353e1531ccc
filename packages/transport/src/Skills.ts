/**
 * Skills over MCP (SEP-2640, the `io.modelcontextprotocol/skills` extension): a server publishes Agent Skills, each a
 * directory of files served as resources; `skills/list` and `skills/get` return their entries, each a complete
 * manifest of the skill's files with the SHA-256 digest and size of each.
 *
 * The client's side (`client.listSkills`, `getSkill`, `loadSkill`):
 *
 * - **Discovery never fetches a file**: listing (or getting) a skill reads no resource. A file is read when the
 *   skill is loaded (its `SKILL.md`) or when the loaded skill reads it (a supporting file): lazy retrieval, as the
 *   extension requires.
 * - **Every file read is verified** against the entry the skill was loaded from: its size, then its digest (a
 *   mismatch is `SkillVerificationFailed` and the content is never returned); `SKILL.md`'s YAML frontmatter is parsed
 *   and compared field by field with the entry's `frontmatter` (any difference fails the load); a file the entry does
 *   not list is not read at all (`unlisted`).
 * - A skill whose `resources` is `"dynamic"` (generated content, nothing to verify against) is not loaded unless the
 *   caller allows it (`{ allowDynamic: true }`); its frontmatter is still compared.
 * - Entries are checked when listed: one without `resources`, with a `uri` that is not a `SKILL.md` whose last path
 *   segment is the skill's `name`, with a file outside the skill's directory, with a malformed digest, or without
 *   its own `SKILL.md` among its files, is skipped and reported in `skipped` (hosts must not load it).
 * - The methods are sent only to a server that declares the extension (`CapabilityNotSupported` otherwise).
 *
 * @since 0.5.0
 */
import * as Schema from "effect/Schema"
import * as ErrorKind from "./ErrorKind.ts"
import { oneLine } from "./internal/ServerText.ts"

/**
 * The extension's identifier, as servers declare it in `capabilities.extensions`.
 *
 * @since 0.5.0
 * @category constants
 */
export const EXTENSION = "io.modelcontextprotocol/skills"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * One file of a skill: its resource URI, the SHA-256 digest of its raw bytes (`sha256:` and 64 lowercase hex
 * digits) and its length in bytes.
 *
 * @since 0.5.0
 * @category schemas
 */
export const SkillResource = Schema.StructWithRest(
  Schema.Struct({
    uri: Schema.String,
    digest: Schema.String.check(Schema.isPattern(/^sha256:[0-9a-f]{64}$/)),
    size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
  }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type SkillResource = typeof SkillResource.Type

/**
 * A skill's `SKILL.md` frontmatter, verbatim: `name` and `description` always, every other field as the author wrote
 * it.
 *
 * @since 0.5.0
 * @category schemas
 */
export const Frontmatter = Schema.StructWithRest(
  Schema.Struct({ name: Schema.String, description: Schema.String }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type Frontmatter = typeof Frontmatter.Type

/**
 * One skill's entry (`skills/list`, `skills/get`): the URI of its `SKILL.md`, its frontmatter, and every file of it
 * (or `"dynamic"`: generated content, published without digests).
 *
 * @since 0.5.0
 * @category schemas
 */
export const Skill = Schema.StructWithRest(
  Schema.Struct({
    uri: Schema.String,
    frontmatter: Frontmatter,
    resources: Schema.Union([Schema.Array(SkillResource), Schema.Literal("dynamic")])
  }),
  Rest
)

/**
 * @since 0.5.0
 * @category schemas
 */
export type Skill = typeof Skill.Type

/**
 * Every skill a server lists, with the entries left out (and why) and the number of pages.
 *
 * @since 0.5.0
 * @category models
 */
export interface SkillList {
  readonly skills: ReadonlyArray<Skill>
  readonly skipped: ReadonlyArray<
    { readonly index: number; readonly name: string | undefined; readonly reason: string }
  >
  readonly pages: number
}

/**
 * One verified file of a loaded skill: its bytes, and its text when the server sent it as text.
 *
 * @since 0.5.0
 * @category models
 */
export interface SkillFile {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly bytes: Uint8Array
  readonly text: string | undefined
}

/**
 * What `loadSkill` takes.
 *
 * @since 0.5.0
 * @category options
 */
export interface LoadOptions {
  /**
   * Load a skill whose `resources` is `"dynamic"` (nothing to verify its files against; its frontmatter is still
   * compared). Default `false`: such a skill fails with `SkillVerificationFailed` (`dynamic`), as a host may decline.
   */
  readonly allowDynamic?: boolean | undefined
}

/**
 * Which check a skill's file failed: its `size`, its `digest`, its `frontmatter` (`SKILL.md` against the entry),
 * `unlisted` (a file the entry does not list: never read), or `dynamic` (a skill without digests, not allowed).
 *
 * @since 0.5.0
 * @category models
 */
export type Check = "size" | "digest" | "frontmatter" | "unlisted" | "dynamic"

/**
 * A file of a skill is not what its entry describes (corrupted, tampered with, or stale: `getSkill` gives the
 * current entry). Its content was not used.
 *
 * @since 0.5.0
 * @category errors
 */
export class SkillVerificationFailed extends Schema.TaggedError<SkillVerificationFailed>()("SkillVerificationFailed", {
  server: Schema.String,
  /** The skill's `SKILL.md` URI. */
  skill: Schema.String,
  /** The file that failed. */
  file: Schema.String,
  check: Schema.Literals(["size", "digest", "frontmatter", "unlisted", "dynamic"]),
  detail: Schema.String
}) {
  /** The server's: it served content its own entry does not describe (asking again gets the same, until it changes). */
  get kind(): ErrorKind.ServerFault {
    return ErrorKind.serverFault
  }
  override get message(): string {
    return `MCP server "${this.server}" served ${oneLine(this.file)} of skill ${oneLine(this.skill)}, which fails ${
      this.check === "unlisted" || this.check === "dynamic" ? "" : `its ${this.check} `
    }verification: ${oneLine(this.detail)}; it was not used.`
  }
}

/**
 * A skill's directory (its root): the `SKILL.md` URI without `/SKILL.md`.
 *
 * @since 0.5.0
 * @category uris
 */
export const root = (skill: Pick<Skill, "uri">): string => skill.uri.slice(0, -"/SKILL.md".length)

/**
 * A reference to one of the skill's files, resolved as a filesystem path would be against the skill's root: an
 * absolute URI is kept, `references/FORMS.md` becomes `<root>/references/FORMS.md`.
 *
 * @since 0.5.0
 * @category uris
 */
export const resolve = (skill: Pick<Skill, "uri">, reference: string): string => {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(reference)) return reference
  const parts: Array<string> = []
  for (const part of reference.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") parts.pop()
    else parts.push(part)
  }
  return `${root(skill)}/${parts.join("/")}`
}
