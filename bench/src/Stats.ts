/**
 * Small order statistics for the report: median and percentiles.
 *
 * @since 0.0.0
 */

/**
 * The p-th percentile (0..100) of the samples by nearest rank; `NaN` for no samples.
 *
 * @since 0.0.0
 */
export const percentile = (samples: ReadonlyArray<number>, p: number): number => {
  if (samples.length === 0) return Number.NaN
  const sorted = Float64Array.from(samples).sort()
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN
}

/**
 * The median of the samples (mean of the two middle values for an even count); `NaN` for no samples.
 *
 * @since 0.0.0
 */
export const median = (samples: ReadonlyArray<number>): number => {
  if (samples.length === 0) return Number.NaN
  const sorted = Float64Array.from(samples).sort()
  const mid = sorted.length >> 1
  const upper = sorted[mid] ?? Number.NaN
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2
}
