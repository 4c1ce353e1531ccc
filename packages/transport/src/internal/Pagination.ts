/**
 * When a paginated list ends, per protocol era.
 *
 * In the legacy era (every revision up to 2025-11-25) several real server stacks send `nextCursor: ""` on the last
 * page to mean "no more pages"; following it would request `""` again and fail with `RepeatedCursor`, so there
 * `""` ends the list. From 2026-07-28 on, a cursor is an opaque string and `""` is one like any other: only an
 * absent `nextCursor` ends the list. That era cannot be negotiated yet; `endsList` already knows its rule.
 *
 * @internal
 */

/** The last protocol revision of the legacy era. Revisions are dates, so they compare as strings. */
export const LAST_LEGACY_REVISION = "2025-11-25"

/** Whether a negotiated protocol revision belongs to the legacy era. */
export const isLegacyEra = (protocolVersion: string): boolean => protocolVersion <= LAST_LEGACY_REVISION

/** Whether a page whose `nextCursor` is `next` is the last one, under the negotiated protocol revision. */
export const endsList = (next: string | undefined, protocolVersion: string): next is undefined | "" =>
  next === undefined || (next === "" && isLegacyEra(protocolVersion))
