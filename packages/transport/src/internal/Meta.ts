/**
 * The one place where entries are added to a request's `params._meta` (trace context, protocol keys, progress
 * tokens): merged with what the params already carry, never replacing the whole `_meta`.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"

/**
 * `params` with `entries` added to its `_meta`. Keys of `entries` replace the same keys already there; every other
 * key of `params` and of its `_meta` is kept. Absent params become `{ _meta: entries }`; params that are not a JSON
 * object (an array) are returned as they are, since `_meta` has no place in them.
 */
export const merge = (params: unknown, entries: Readonly<Record<string, unknown>>): unknown => {
  if (params === undefined || params === null) return { _meta: { ...entries } }
  if (!Predicate.isObject(params)) return params
  const existing = "_meta" in params && Predicate.isObject(params["_meta"]) ? params["_meta"] : undefined
  return { ...params, _meta: existing === undefined ? { ...entries } : { ...existing, ...entries } }
}
