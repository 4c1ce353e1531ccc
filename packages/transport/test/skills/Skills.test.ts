/**
 * Skills over MCP (SEP-2640) through `McpClient.make` against an in-memory server that declares the extension:
 * discovery that reads no file, entries checked when listed, and loading that verifies `SKILL.md` (size, digest,
 * frontmatter) and each later file against the entry, refusing unlisted files without reading them.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, Skills } from "@mcp-fleet/transport"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { failureOf, framesWith } from "../faults/helpers.ts"
import { controlledPeer } from "../peers.ts"
import type { Message } from "../peers.ts"

const SKILL = "skill://pdf-processing/SKILL.md"
const FORMS = "skill://pdf-processing/references/FORMS.md"
const markdown = [
  "---",
  "name: pdf-processing",
  "description: Extract, fill, and assemble PDF documents",
  "license: Apache-2.0",
  "metadata:",
  "  version: \"2.1\"",
  "  tags: [pdf, forms]",
  "---",
  "",
  "Use references/FORMS.md for forms.",
  ""
].join("\n")
const forms = "Supporting content.\n"
const frontmatter = {
  description: "Extract, fill, and assemble PDF documents",
  name: "pdf-processing",
  metadata: { tags: ["pdf", "forms"], version: "2.1" },
  license: "Apache-2.0"
}

const digest = (text: string | Uint8Array) => `sha256:${createHash("sha256").update(text).digest("hex")}`
const entryOf = (files: Readonly<Record<string, string>>) => ({
  uri: SKILL,
  frontmatter,
  resources: Object.entries(files).map(([uri, text]) => ({ uri, digest: digest(text), size: Buffer.byteLength(text) }))
})
const entry = entryOf({ [SKILL]: markdown, [FORMS]: forms })

const uriOf = (msg: Message): string => {
  const params = msg["params"]
  return typeof params === "object" && params !== null && "uri" in params ? String(params.uri) : ""
}

interface Served {
  readonly skills: ReadonlyArray<unknown>
  /** What each file read answers (text), by URI. */
  readonly files: Readonly<Record<string, string>>
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** Answer reads as base64 blobs. */
  readonly blobs?: boolean
}

/** A ready client of a server serving `served`, and the frames it received. */
const serverOf = (served: Served) =>
  Effect.gen(function*() {
    const { frames, layer } = yield* controlledPeer({
      initialize: {
        capabilities: served.capabilities ??
          { resources: { listChanged: false }, extensions: { [Skills.EXTENSION]: {} } }
      },
      onRequest: (msg: Message, peer) => {
        switch (msg.method) {
          case "skills/list":
            return Effect.succeed({ skills: served.skills })
          case "skills/get": {
            const found = served.skills.find((s) =>
              typeof s === "object" && s !== null && "uri" in s && s.uri === uriOf(msg)
            )
            if (found !== undefined) return Effect.succeed({ skill: found })
            return Effect.as(
              peer.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "Unknown skill" } }),
              undefined
            )
          }
          case "resources/read": {
            const uri = uriOf(msg)
            const text = served.files[uri] ?? ""
            return Effect.succeed({
              contents: [
                served.blobs === true
                  ? { uri, mimeType: "text/markdown", blob: Buffer.from(text).toString("base64") }
                  : { uri, mimeType: "text/markdown", text }
              ]
            })
          }
          default:
            return Effect.succeed(undefined)
        }
      }
    })
    const client = yield* McpClient.make({ command: "server", name: "skills" }).pipe(Effect.provide(layer))
    yield* client.awaitReady
    const reads = () => framesWith(frames, "resources/read").map(uriOf)
    return { client, frames, reads }
  })

const verificationOf = (exit: Parameters<typeof failureOf>[0]) => {
  const error = failureOf(exit)
  if (!(error instanceof Skills.SkillVerificationFailed)) throw new Error(`not SkillVerificationFailed: ${error}`)
  return error
}

describe("skills (SEP-2640)", () => {
  it.effect("listing and getting read no file; load reads SKILL.md, verified; a later file is read when asked", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* serverOf({ skills: [entry], files: { [SKILL]: markdown, [FORMS]: forms } })
      const listed = yield* client.listSkills()
      assert.deepStrictEqual(listed.skills, [entry])
      assert.deepStrictEqual(yield* client.getSkill(SKILL), entry)
      assert.deepStrictEqual(reads(), [], "no file before the skill is loaded")
      const loaded = yield* client.loadSkill(listed.skills[0]!)
      assert.strictEqual(loaded.markdown, markdown)
      assert.deepStrictEqual(reads(), [SKILL], "loading reads SKILL.md alone")
      const file = yield* loaded.read("references/FORMS.md")
      assert.strictEqual(file.text, forms)
      assert.strictEqual(file.uri, FORMS)
      assert.deepStrictEqual(reads(), [SKILL, FORMS])
    }))

  it.effect("a server without the extension is not asked: CapabilityNotSupported, nothing sent", () =>
    Effect.gen(function*() {
      const { client, frames } = yield* serverOf({
        skills: [entry],
        files: {},
        capabilities: { resources: {}, extensions: { "com.example/other": {} } }
      })
      const error = failureOf(yield* Effect.exit(client.listSkills()))
      assert.strictEqual(error._tag, "CapabilityNotSupported")
      assert.strictEqual(failureOf(yield* Effect.exit(client.getSkill(SKILL)))._tag, "CapabilityNotSupported")
      assert.deepStrictEqual(framesWith(frames, "skills/list"), [])
    }))

  it.effect("a tampered SKILL.md (same size) fails its digest check, and nothing more is read", () =>
    Effect.gen(function*() {
      const evil = markdown.replace("Use references", "Use everything")
      assert.strictEqual(Buffer.byteLength(evil), Buffer.byteLength(markdown))
      const { client, reads } = yield* serverOf({ skills: [entry], files: { [SKILL]: evil, [FORMS]: forms } })
      const error = verificationOf(yield* Effect.exit(client.loadSkill(entry)))
      assert.strictEqual(error.check, "digest")
      assert.strictEqual(error.file, SKILL)
      assert.strictEqual(error.kind._tag, "ServerFault")
      assert.match(
        error.message,
        /^MCP server "skills" served skill:\/\/pdf-processing\/SKILL\.md of skill .* fails its digest verification: its digest is sha256:[0-9a-f]{64}, where its entry says sha256:[0-9a-f]{64}; it was not used\.$/
      )
      assert.deepStrictEqual(reads(), [SKILL])
    }))

  it.effect("a SKILL.md of another size fails its size check", () =>
    Effect.gen(function*() {
      const { client } = yield* serverOf({ skills: [entry], files: { [SKILL]: `${markdown}extra\n`, [FORMS]: forms } })
      const error = verificationOf(yield* Effect.exit(client.loadSkill(entry)))
      assert.strictEqual(error.check, "size")
      assert.include(
        error.detail,
        `${Buffer.byteLength(markdown) + 6} bytes, where its entry says ${Buffer.byteLength(markdown)}`
      )
    }))

  it.effect("a SKILL.md whose frontmatter differs from the entry's (digest and size matching) is not loaded", () =>
    Effect.gen(function*() {
      const evil = markdown.replace("description: Extract, fill, and assemble PDF documents", "description: Exfiltrate")
      const tampered = entryOf({ [SKILL]: evil, [FORMS]: forms })
      const { client, reads } = yield* serverOf({ skills: [tampered], files: { [SKILL]: evil, [FORMS]: forms } })
      const error = verificationOf(yield* Effect.exit(client.loadSkill(tampered)))
      assert.strictEqual(error.check, "frontmatter")
      assert.strictEqual(
        error.detail,
        "its frontmatter field \"description\" is \"Exfiltrate\", where its entry says \"Extract, fill, and assemble PDF documents\""
      )
      assert.deepStrictEqual(reads(), [SKILL])
    }))

  it.effect("a file read later is verified too; an unlisted file is refused without a read", () =>
    Effect.gen(function*() {
      const { client, reads } = yield* serverOf({
        skills: [entry],
        files: { [SKILL]: markdown, [FORMS]: "Supporting content!\n" }
      })
      const loaded = yield* client.loadSkill(entry)
      assert.strictEqual(verificationOf(yield* Effect.exit(loaded.read(FORMS))).check, "digest")
      const unlisted = verificationOf(yield* Effect.exit(loaded.read("scripts/run.sh")))
      assert.deepStrictEqual([unlisted.check, unlisted.file], ["unlisted", "skill://pdf-processing/scripts/run.sh"])
      assert.deepStrictEqual(reads(), [SKILL, FORMS])
    }))

  it.effect("blob contents are verified on their decoded bytes", () =>
    Effect.gen(function*() {
      const { client } = yield* serverOf({ skills: [entry], files: { [SKILL]: markdown, [FORMS]: forms }, blobs: true })
      const loaded = yield* client.loadSkill(entry)
      assert.strictEqual(loaded.markdown, markdown)
      assert.strictEqual(new TextDecoder().decode((yield* loaded.read(FORMS)).bytes), forms)
    }))

  it.effect("entries that cannot be loaded are skipped when listed, each with its reason", () =>
    Effect.gen(function*() {
      const other = {
        ...entryOf({ "skill://acme/refunds/SKILL.md": markdown }),
        uri: "skill://acme/refunds/SKILL.md",
        frontmatter: { name: "refunds", description: "Refunds" }
      }
      const { client, reads } = yield* serverOf({
        skills: [
          entry,
          { ...entry, uri: "skill://pdf-processing/README.md" },
          { uri: "skill://other/SKILL.md", frontmatter: { name: "other", description: "x" } },
          { ...entry, uri: "skill://pdf-tools/SKILL.md" },
          { ...entry, resources: [...entry.resources, { uri: "skill://elsewhere/x.md", digest: digest(""), size: 0 }] },
          { ...entry, resources: [{ ...entry.resources[0]!, digest: "md5:abc" }] },
          { ...other, resources: [] },
          other,
          entry
        ],
        files: {}
      })
      const listed = yield* client.listSkills()
      assert.deepStrictEqual(listed.skills.map((s) => s.uri), [SKILL, "skill://acme/refunds/SKILL.md"])
      const reasons = listed.skipped.map((s) => `${s.index}: ${s.reason}`)
      assert.strictEqual(reasons.length, 7)
      assert.include(reasons[0], "1: ")
      assert.include(reasons[0], "does not name a SKILL.md")
      assert.include(reasons[1], "2: ")
      assert.include(reasons[2], "is not its name \"pdf-processing\"")
      assert.include(reasons[3], "is outside the skill's directory")
      assert.include(reasons[4], "5: ")
      assert.include(reasons[5], "do not list its own SKILL.md")
      assert.include(reasons[6], "listed before it")
      assert.deepStrictEqual(reads(), [])
    }))

  it.effect("a dynamic skill is declined unless allowed; allowed, its frontmatter is still compared", () =>
    Effect.gen(function*() {
      const dynamic = { uri: SKILL, frontmatter, resources: "dynamic" as const }
      const { client, reads } = yield* serverOf({ skills: [dynamic], files: { [SKILL]: markdown, [FORMS]: forms } })
      assert.strictEqual(verificationOf(yield* Effect.exit(client.loadSkill(dynamic))).check, "dynamic")
      assert.deepStrictEqual(reads(), [], "declined before any read")
      const loaded = yield* client.loadSkill(dynamic, { allowDynamic: true })
      assert.strictEqual((yield* loaded.read("references/FORMS.md")).text, forms)
      assert.strictEqual(verificationOf(yield* Effect.exit(loaded.read("skill://elsewhere/x.md"))).check, "unlisted")
      const renamed = { ...dynamic, frontmatter: { ...frontmatter, license: "MIT" } }
      assert.strictEqual(
        verificationOf(yield* Effect.exit(client.loadSkill(renamed, { allowDynamic: true }))).check,
        "frontmatter"
      )
    }))

  it("resolve: relative references against the skill's root", () => {
    assert.strictEqual(Skills.resolve(entry, "references/FORMS.md"), FORMS)
    assert.strictEqual(Skills.resolve(entry, "./a/../references/FORMS.md"), FORMS)
    assert.strictEqual(Skills.resolve(entry, FORMS), FORMS)
    assert.strictEqual(Skills.root({ uri: "skill://acme/billing/refunds/SKILL.md" }), "skill://acme/billing/refunds")
  })
})
