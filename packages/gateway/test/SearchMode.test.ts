/**
 * SearchMode: the rule that makes search mode the default above the threshold.
 */
import { assert, describe, it } from "@effect/vitest"
import { SearchMode } from "@mcp-fleet/gateway"

describe("SearchMode", () => {
  it("auto searches exactly when more tools are kept than the threshold (default 40)", () => {
    assert.isFalse(SearchMode.decide("auto", 40, undefined).search)
    assert.isTrue(SearchMode.decide("auto", 41, undefined).search)
    assert.isFalse(SearchMode.decide("auto", 10, 10).search)
    assert.isTrue(SearchMode.decide("auto", 11, 10).search)
    assert.isTrue(SearchMode.decide("auto", 1, 0).search)
    assert.strictEqual(
      SearchMode.decide("auto", 300, undefined).reason,
      "300 tools is more than the search threshold of 40"
    )
  })

  it("tools and search are not counted", () => {
    assert.isFalse(SearchMode.decide("tools", 10_000, 1).search)
    assert.isTrue(SearchMode.decide("search", 0, 100).search)
  })
})
