/**
 * `mcp-fleet resources [--server S] [--json]`: the resources and resource templates of every ready server that
 * offers them; `mcp-fleet read <server> <uri> [--output F] [--json]`: one resource's contents.
 *
 * `resources` prints one line per resource (`server  uri  name  (mimeType)`), then one per template; with `--json`
 * one document `{ resources, resourceTemplates, failed }`, each item with its `server`. `read` prints text
 * contents on stdout; binary contents go to `--output F` (bytes, base64-decoded), or with `--json` the raw result.
 *
 * @since 0.3.0
 */
import type { ConfigError } from "@mcp-fleet/config"
import type { ManagerError } from "@mcp-fleet/manager"
import type { Features, ProtocolFeatures } from "@mcp-fleet/transport"
import { Resources } from "@mcp-fleet/transport"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type { CliEnvironment } from "../CliEnvironment.ts"
import type { ServerNotConfigured, ServerNotUsable } from "../CliError.ts"
import { BinaryResource, OutputUnwritable } from "../CliError.ts"
import * as CliFlags from "../CliFlags.ts"
import * as FeatureListing from "../FeatureListing.ts"
import * as Prelude from "./Prelude.ts"

/**
 * Every way `resources` and `read` can fail.
 *
 * @since 0.3.0
 * @category models
 */
export type ResourcesError =
  | ConfigError.ConfigError
  | ServerNotConfigured
  | ServerNotUsable
  | BinaryResource
  | OutputUnwritable
  | ManagerError.UnknownServer
  | ManagerError.ServerUnavailable
  | Features.FeatureError

type Listed = {
  readonly resources: ReadonlyArray<ProtocolFeatures.Resource>
  readonly templates: ReadonlyArray<ProtocolFeatures.ResourceTemplate>
}

/**
 * The text of a listing: a line per resource, then a line per template.
 *
 * @since 0.3.0
 * @category rendering
 */
export const renderText = (listings: ReadonlyArray<FeatureListing.Listing<Listed>>): string =>
  listings.flatMap((listing) =>
    listing._tag === "Failed" ? [] : [
      ...listing.value.resources.map((r) =>
        `${listing.server}  ${r.uri}  ${r.name}${r.mimeType === undefined ? "" : `  (${r.mimeType})`}`
      ),
      ...listing.value.templates.map((t) => `${listing.server}  ${t.uriTemplate}  ${t.name}  (template)`)
    ]
  ).join("\n")

/**
 * The `resources` command.
 *
 * @since 0.3.0
 * @category commands
 */
export const list: Command.Command<
  "resources",
  {
    readonly config: string
    readonly server: Option.Option<string>
    readonly json: boolean
    readonly wait: Duration.Duration
    readonly verbose: boolean
  },
  {},
  ResourcesError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "resources",
  {
    config: CliFlags.config,
    server: CliFlags.server,
    json: CliFlags.json,
    wait: CliFlags.wait("How long to wait for the servers to settle before listing."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet resources")(function*({ config, json, server, verbose, wait }) {
    const file = yield* Prelude.load(config, server)
    yield* Prelude.run(
      { file, verbose, wait, target: { _tag: "Fleet", only: server } },
      (session) =>
        Effect.gen(function*() {
          const listings = yield* FeatureListing.collect(session.manager, "resources", (client) =>
            Effect.gen(function*() {
              const { resources } = yield* client.listResources()
              // A server may list resources and answer templates with -32601: no templates, not a failure.
              const templates = yield* client.listResourceTemplates().pipe(
                Effect.map((t) =>
                  t.resourceTemplates
                ),
                Effect.orElseSucceed(() => [])
              )
              return { resources, templates }
            }))
          const failed = listings.flatMap((l) =>
            l._tag === "Failed" ? [{ server: l.server, reason: l.reason }] : []
          )
          if (json) {
            const items = listings.flatMap((l) => l._tag === "Listed" ? [[l.server, l.value] as const] : [])
            yield* Console.log(JSON.stringify(
              {
                resources: items.flatMap(([s, i]) => i.resources.map((r) => ({ server: s, ...r }))),
                resourceTemplates: items.flatMap(([s, i]) => i.templates.map((t) => ({ server: s, ...t }))),
                failed
              },
              null,
              2
            ))
            return
          }
          const text = renderText(listings)
          if (text !== "") yield* Console.log(text)
          for (const f of failed) yield* Console.error(`mcp-fleet: ${f.server}: resources not listed: ${f.reason}`)
        })
    )
  })
).pipe(
  Command.withDescription("List the resources and resource templates of every ready server that offers them."),
  Command.withExamples([
    { command: "mcp-fleet resources", description: "Every resource of every ready server in ./.mcp.json" },
    { command: "mcp-fleet resources --server docs --json", description: "One server's resources as JSON" }
  ])
)

/**
 * The `read` command.
 *
 * @since 0.3.0
 * @category commands
 */
export const read: Command.Command<
  "read",
  {
    readonly server: string
    readonly uri: string
    readonly output: Option.Option<string>
    readonly json: boolean
    readonly timeout: Option.Option<Duration.Duration>
    readonly config: string
    readonly wait: Duration.Duration
    readonly verbose: boolean
  },
  {},
  ResourcesError,
  CliEnvironment | FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> = Command.make(
  "read",
  {
    server: Argument.String("server").pipe(Argument.withDescription("The server, as named in the config file.")),
    uri: Argument.String("uri").pipe(Argument.withDescription("The resource's URI, as `resources` prints it.")),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withMetavar("FILE"),
      Flag.withDescription("Write the contents' bytes (binary contents base64-decoded) to FILE."),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the raw result as JSON on stdout (binary contents as base64)."),
      Flag.withDefault(false)
    ),
    timeout: CliFlags.timeout,
    config: CliFlags.config,
    wait: CliFlags.wait("How long to wait for the server to start before reading."),
    verbose: CliFlags.verbose
  },
  Effect.fn("mcp-fleet read")(function*({ config, json, output, server, timeout, uri, verbose, wait }) {
    const file = yield* Prelude.load(config, Option.some(server))
    yield* Prelude.run(
      { file, verbose, wait, target: { _tag: "Server", server } },
      (session) =>
        Effect.gen(function*() {
          const { manager } = session
          const result = yield* manager.readResource(
            server,
            uri,
            Option.isSome(timeout) ? { timeout: timeout.value } : undefined
          )
          if (json) yield* Console.log(JSON.stringify({ server, ...result }, null, 2))
          if (Option.isSome(output)) {
            const parts = yield* Effect.forEach(result.contents, (content) => Resources.contentBytes(server, content))
            const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
            let at = 0
            for (const part of parts) {
              bytes.set(part, at)
              at += part.length
            }
            const fs = yield* FileSystem.FileSystem
            yield* fs.writeFile(output.value, bytes).pipe(
              Effect.mapError((error) => new OutputUnwritable({ path: output.value, reason: error.reason._tag }))
            )
            yield* Console.error(`mcp-fleet: wrote ${bytes.length} bytes to ${output.value}`)
            return
          }
          if (json) return
          for (const content of result.contents) {
            const text = content["text"]
            if (typeof text !== "string") return yield* new BinaryResource({ uri: content.uri })
            yield* Console.log(text)
          }
        })
    )
  })
).pipe(
  Command.withDescription("Read one resource of one server: text on stdout, bytes to --output FILE."),
  Command.withExamples([
    { command: "mcp-fleet read docs file:///README.md", description: "Print a text resource" },
    { command: "mcp-fleet read docs file:///logo.png --output logo.png", description: "Save a binary resource" }
  ])
)
