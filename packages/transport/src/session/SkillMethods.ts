/**
 * Skills over MCP (SEP-2640): `skills/list` (paginated as the other lists, checked entries, never a file read),
 * `skills/get`, and loading a skill: its `SKILL.md` read through `resources/read` and verified (size, digest,
 * frontmatter) before it is returned, its other files read later, one at a time, each verified against the entry the
 * skill was loaded from. See the public `Skills` module for the rules.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ProtocolError } from "../McpError.ts"
import type { ResourceContents } from "../ProtocolFeatures.ts"
import * as Skills from "../Skills.ts"
import type { Context, FeatureError, FeatureListError, FeatureOptions } from "./Context.ts"
import { decodeWith, gated } from "./Context.ts"
import * as Lists from "./Lists.ts"
import type * as Resources from "./Resources.ts"
import { contentBytes } from "./Resources.ts"
import * as SkillVerify from "./SkillVerify.ts"

/**
 * What reading a skill's file can fail with: the read itself, or its verification.
 *
 * @since 0.5.0
 * @category errors
 */
export type SkillReadError = FeatureError | ProtocolError | Skills.SkillVerificationFailed

/**
 * A skill loaded from one entry: its `SKILL.md`, verified, and the way to its other files (the acting window: every
 * read resolves only to the files this entry lists, and is verified against it).
 *
 * @since 0.5.0
 * @category models
 */
export interface LoadedSkill {
  /** The entry the skill was loaded from (held while the skill is used). */
  readonly skill: Skills.Skill
  /** `SKILL.md`, as verified. */
  readonly markdown: string
  /**
   * Reads one of the skill's files: an absolute URI, or a path relative to the skill's root
   * (`references/FORMS.md`). A file the entry does not list is refused without a read (`unlisted`).
   */
  readonly read: (reference: string, options?: FeatureOptions) => Effect.Effect<Skills.SkillFile, SkillReadError>
}

/**
 * The client's skill methods.
 *
 * @since 0.5.0
 * @category models
 */
export interface SkillMethods {
  /** Every skill the server lists (extension `io.modelcontextprotocol/skills`); reads no file. */
  readonly listSkills: (options?: FeatureOptions) => Effect.Effect<Skills.SkillList, FeatureListError>
  /** The entry of one skill, by the URI of its `SKILL.md` (listed or not); reads no file. */
  readonly getSkill: (uri: string, options?: FeatureOptions) => Effect.Effect<Skills.Skill, FeatureError>
  /** Loads a skill: its `SKILL.md` read and verified against `skill` (size, digest, frontmatter). */
  readonly loadSkill: (
    skill: Skills.Skill,
    options?: FeatureOptions & Skills.LoadOptions
  ) => Effect.Effect<LoadedSkill, SkillReadError>
}

/** A listed entry, checked: one that cannot be loaded is skipped with the reason. */
const ListedSkill = Skills.Skill.check(Schema.makeFilter((skill) => SkillVerify.entryProblem(skill) ?? true))

const SKILLS: Lists.Spec<typeof ListedSkill> = {
  method: "skills/list",
  field: "skills",
  item: ListedSkill,
  keyField: "uri",
  key: (skill) => skill.uri
}

const GetSkillResult = Schema.StructWithRest(Schema.Struct({ skill: ListedSkill }), [
  Schema.Record(Schema.String, Schema.Unknown)
])

/** The content of `uri` in a read's result (the only one, or the one that names it). */
const contentOf = (contents: ReadonlyArray<ResourceContents>, uri: string): ResourceContents | undefined =>
  contents.length === 1 ? contents[0] : contents.find((content) => content.uri === uri)

/** Builds the skill methods over `context`, reading files with `resources`. */
export const make = (context: Context, resources: Resources.Resources): SkillMethods => {
  const { server } = context
  const listSkills = Lists.lister(context, SKILLS)
  const decodeGet = decodeWith(context, "skills/get", GetSkillResult)

  const failed = (skill: Skills.Skill, file: string, check: Skills.Check, detail: string) =>
    new Skills.SkillVerificationFailed({
      server,
      skill: context.scrub(skill.uri),
      file: context.scrub(file),
      check,
      detail: context.scrub(detail)
    })

  /** Reads `uri` and, when `expected` describes it, verifies it first; the file, or why it cannot be used. */
  const fetch = (
    skill: Skills.Skill,
    uri: string,
    expected: Skills.SkillResource | undefined,
    options: FeatureOptions | undefined
  ): Effect.Effect<Skills.SkillFile, SkillReadError> =>
    Effect.gen(function*() {
      const read = yield* resources.readResource(uri, options)
      const content = contentOf(read.contents, uri)
      if (content === undefined) {
        return yield* new ProtocolError({
          server,
          method: "resources/read",
          detail: `the result has no content for ${JSON.stringify(context.scrub(uri))}`
        })
      }
      const bytes = yield* contentBytes(server, content)
      if (expected !== undefined) {
        const wrong = yield* SkillVerify.file(expected, bytes)
        if (wrong !== undefined) return yield* failed(skill, uri, wrong.check, wrong.detail)
      }
      const text = content["text"]
      return {
        uri,
        mimeType: content.mimeType,
        bytes,
        text: typeof text === "string" ? text : undefined
      }
    })

  const loadSkill = (skill: Skills.Skill, options?: FeatureOptions & Skills.LoadOptions) =>
    Effect.gen(function*() {
      const files = skill.resources
      if (files === "dynamic" && options?.allowDynamic !== true) {
        return yield* failed(
          skill,
          skill.uri,
          "dynamic",
          "its files are generated (resources: \"dynamic\"), so none can be verified; load it with allowDynamic"
        )
      }
      const listed = files === "dynamic" ? undefined : new Map(files.map((file) => [file.uri, file]))
      const manifest = yield* fetch(skill, skill.uri, listed?.get(skill.uri), options)
      const markdown = manifest.text ?? new TextDecoder().decode(manifest.bytes)
      const wrong = yield* SkillVerify.frontmatter(markdown, skill.frontmatter)
      if (wrong !== undefined) return yield* failed(skill, skill.uri, "frontmatter", wrong)
      const root = `${Skills.root(skill)}/`
      const loaded: LoadedSkill = {
        skill,
        markdown,
        read: (reference, readOptions) => {
          const uri = Skills.resolve(skill, reference)
          const expected = listed?.get(uri)
          // The acting window: only the files of the held entry (any file of the skill's directory when dynamic).
          if (listed !== undefined ? expected === undefined : !uri.startsWith(root)) {
            return Effect.fail(
              failed(skill, uri, "unlisted", "the skill's entry does not list it, so it was not read")
            )
          }
          return fetch(skill, uri, expected, readOptions)
        }
      }
      return loaded
    })

  return {
    listSkills: (options) =>
      Effect.map(
        gated(context, "listSkills", SKILLS.method, "skills", options, (_session, era) => listSkills(era, options)),
        ({ items, pages, skipped }): Skills.SkillList => ({ skills: items, skipped, pages })
      ),
    getSkill: (uri, options) =>
      gated(
        context,
        "getSkill",
        "skills/get",
        "skills",
        options,
        () =>
          Effect.map(
            Effect.flatMap(context.request("skills/get", { uri }, options), decodeGet),
            (result) => result.skill
          )
      ),
    loadSkill
  }
}
