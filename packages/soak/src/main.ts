/**
 * Entry point of the soak: `pnpm soak [--duration D] [--servers N] [--concurrency C] [--seed S]`, which runs
 * `node --expose-gc packages/soak/src/main.ts` (Node 22 strips the types). Progress goes to stderr, the report
 * to stdout; the exit code is 0 for a pass, 1 for a failed run, 2 for a bad command line.
 *
 * @since 0.0.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Console, Effect, Exit, Runtime } from "effect"
import * as LogTally from "./LogTally.ts"
import * as Report from "./Report.ts"
import * as Soak from "./Soak.ts"
import * as SoakOptions from "./SoakOptions.ts"

const logs = LogTally.make()

const program = Effect.gen(function*() {
  const options = yield* SoakOptions.parse(process.argv.slice(2))
  if (options === "help") {
    yield* Console.log(SoakOptions.usage)
    return 0
  }
  // The manager's and transport's log lines are counted (and summarized in the report), not printed.
  const result = yield* Soak.run(options).pipe(Effect.provide(LogTally.layer(logs)))
  yield* Console.log(Report.render(result, logs))
  return Report.failures(result).length === 0 ? 0 : 1
}).pipe(
  Effect.catchTag("SoakUsageError", (error) => Effect.as(Console.error(`soak: ${error.message}`), 2)),
  Effect.provide(NodeServices.layer)
)

NodeRuntime.runMain(program, {
  // Exit explicitly, also on success: the report is the result, and a stray handle must not keep CI waiting.
  teardown: (exit, onExit) =>
    Exit.isSuccess(exit)
      ? process.exit(typeof exit.value === "number" ? exit.value : 1)
      : Runtime.defaultTeardown(exit, onExit)
})
