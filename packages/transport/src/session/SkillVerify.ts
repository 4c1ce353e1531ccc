/**
 * The checks of SEP-2640 on a skill's entry and files: an entry's shape (what makes it loadable), a file's size and
 * SHA-256 digest against its entry, and a `SKILL.md`'s YAML frontmatter against the entry's, field by field.
 *
 * The digest is WebCrypto's (`crypto.subtle`, global in Node 22 and every runtime Effect supports: no `node:crypto`).
 * The frontmatter is parsed with `yaml` (eemeli/yaml, YAML 1.2's core schema: strings, numbers, booleans, null, maps
 * and sequences, never dates or custom tags; aliases bounded), imported on the first skill loaded.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Skills from "../Skills.ts"

const SKILL_MD = "/SKILL.md"

/** The final segment of a skill's path (`skill://acme/billing/refunds/SKILL.md` → `refunds`). */
const nameOf = (uri: string): string | undefined => {
  if (!uri.endsWith(SKILL_MD)) return undefined
  const path = uri.slice(0, -SKILL_MD.length)
  const segment = path.slice(path.lastIndexOf("/") + 1)
  return segment === "" ? undefined : segment
}

/** Why an entry cannot be loaded (hosts must not load it), or `undefined`. */
export const entryProblem = (skill: Skills.Skill): string | undefined => {
  const name = nameOf(skill.uri)
  if (name === undefined) return `its uri ${JSON.stringify(skill.uri)} does not name a SKILL.md`
  if (name !== skill.frontmatter.name) {
    return `its uri's last path segment ${JSON.stringify(name)} is not its name ${
      JSON.stringify(skill.frontmatter.name)
    }`
  }
  if (skill.resources === "dynamic") return undefined
  const root = skill.uri.slice(0, -SKILL_MD.length + 1)
  const outside = skill.resources.find((file) => !file.uri.startsWith(root))
  if (outside !== undefined) return `its file ${JSON.stringify(outside.uri)} is outside the skill's directory`
  if (!skill.resources.some((file) => file.uri === skill.uri)) return "its resources do not list its own SKILL.md"
  const seen = new Set<string>()
  for (const file of skill.resources) {
    if (seen.has(file.uri)) return `its resources list ${JSON.stringify(file.uri)} twice`
    seen.add(file.uri)
  }
  return undefined
}

const hex = (buffer: ArrayBuffer): string =>
  Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** `sha256:<hex>` of `bytes`. */
export const digest = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() => crypto.subtle.digest("SHA-256", new Uint8Array(bytes))),
    (buffer) => `sha256:${hex(buffer)}`
  )

/** Why `bytes` are not the file `expected` describes (`size`, then `digest`), or `undefined`. */
export const file = (
  expected: Skills.SkillResource,
  bytes: Uint8Array
): Effect.Effect<{ readonly check: "size" | "digest"; readonly detail: string } | undefined> => {
  if (bytes.length !== expected.size) {
    return Effect.succeed({ check: "size", detail: `${bytes.length} bytes, where its entry says ${expected.size}` })
  }
  return Effect.map(digest(bytes), (actual) =>
    actual === expected.digest
      ? undefined
      : { check: "digest", detail: `its digest is ${actual}, where its entry says ${expected.digest}` })
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether two JSON values are the same (objects by their keys, in any order). */
const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]))
  }
  if (!isRecord(a) || !isRecord(b)) return false
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const key of keys) if (!same(a[key], b[key])) return false
  return true
}

/** The YAML between a leading `---` line and the next `---` line, or `undefined` when the file has none. */
const block = (markdown: string): string | undefined =>
  /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown)?.[1] ??
    (/^\uFEFF?---[ \t]*\r?\n---[ \t]*(?:\r?\n|$)/.test(markdown) ? "" : undefined)

/**
 * Why `SKILL.md`'s frontmatter is not the entry's (`frontmatter`), or `undefined`: the file has no frontmatter, it is
 * not YAML or not a mapping, or a field differs (the first one is named).
 */
export const frontmatter = (
  markdown: string,
  expected: Skills.Frontmatter
): Effect.Effect<string | undefined> => {
  const yaml = block(markdown)
  if (yaml === undefined) return Effect.succeed("the file has no --- delimited YAML frontmatter")
  return Effect.promise(() => import("yaml")).pipe(
    Effect.flatMap((YAML) =>
      Effect.try({
        try: (): unknown => YAML.parse(yaml, { schema: "core", prettyErrors: false }),
        catch: (error) => `its frontmatter is not YAML (${error instanceof Error ? error.message : String(error)})`
      })
    ),
    Effect.match({
      onFailure: (reason): string | undefined => reason,
      onSuccess: (parsed): string | undefined => {
        if (!isRecord(parsed)) return "its frontmatter is not a mapping"
        const keys = [...new Set([...Object.keys(expected), ...Object.keys(parsed)])]
        const differs = keys.find((key) => !same(parsed[key], expected[key]))
        return differs === undefined
          ? undefined
          : `its frontmatter field ${JSON.stringify(differs)} is ${
            JSON.stringify(parsed[differs] ?? null)
          }, where its entry says ${JSON.stringify(expected[differs] ?? null)}`
      }
    })
  )
}
