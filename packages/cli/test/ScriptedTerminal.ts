/**
 * A scripted terminal for the prompt tests: keys in, screen out.
 */
import { Effect, Option, Queue, Terminal } from "effect"

export const key = (name: string, input?: string): Terminal.UserInput => ({
  input: Option.fromUndefinedOr(input),
  key: { name, ctrl: false, meta: false, shift: false }
})
export const enter = key("return")
export const typed = (text: string) => [...text].map((c) => key(c, c))

/** A terminal whose keyboard is `keys`, and whose screen is `shown`. */
export const scripted = (keys: ReadonlyArray<Terminal.UserInput>) =>
  Effect.gen(function*() {
    const input = yield* Queue.unbounded<Terminal.UserInput, never>()
    yield* Queue.offerAll(input, keys)
    const shown: Array<string> = []
    const terminal = Terminal.make({
      columns: Effect.succeed(80),
      rows: Effect.succeed(24),
      size: Effect.never,
      readInput: Effect.succeed(input),
      readLine: Effect.never,
      display: (text) => Effect.sync(() => void shown.push(text))
    })
    return { terminal, shown }
  })
