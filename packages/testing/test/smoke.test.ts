import { assert, it } from "@effect/vitest"
import { Effect } from "effect"

it.effect("workspace runs an Effect test", () => Effect.sync(() => assert.strictEqual(1 + 1, 2)))
