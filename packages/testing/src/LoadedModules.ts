/**
 * What an import loads: a fresh `node` process imports one module (resolved from `cwd`, as a program there would)
 * with a `module.registerHooks` load hook, and reports every module it loaded, in load order: `file:` URLs for
 * ES modules and `node:` ones for built-ins. A check on a module graph (a stdio-only program loads no HTTP code),
 * not a timing.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import * as Stream from "effect/Stream"
import { ImportFailed } from "./TestingError.ts"

const SCRIPT = "import { registerHooks } from 'node:module';" +
  " const loaded = [];" +
  " registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context) } });" +
  " await import(process.argv[1]);" +
  " process.stdout.write(JSON.stringify(loaded))"

/**
 * The modules that importing `specifier` from `cwd` loads, as URLs. Fails with `ImportFailed` when the import fails
 * (the end of its stderr is the reason).
 *
 * @since 0.3.0
 */
export const loadedBy = (
  specifier: string,
  options: { readonly cwd: string }
): Effect.Effect<ReadonlyArray<string>, ImportFailed, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* ChildProcess.make(process.execPath, ["--input-type=module", "-e", SCRIPT, specifier], {
      cwd: options.cwd,
      extendEnv: true
    })
    const out = yield* Effect.forkScoped(Stream.mkString(Stream.decodeText(handle.stdout)))
    const err = yield* Effect.forkScoped(Stream.mkString(Stream.decodeText(handle.stderr)))
    const code = yield* handle.exitCode
    const text = yield* Fiber.join(out)
    if (code !== 0) {
      const stderr = yield* Fiber.join(err)
      return yield* new ImportFailed({ specifier, reason: `exit code ${code}: ${stderr.slice(-400)}` })
    }
    return yield* Effect.try({
      try: () => JSON.parse(text) as ReadonlyArray<string>,
      catch: (cause) => new ImportFailed({ specifier, reason: "its output is not a JSON list", cause })
    })
  })).pipe(
    Effect.catchTag("PlatformError", (cause) => new ImportFailed({ specifier, reason: cause.message, cause }))
  )
