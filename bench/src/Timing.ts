/**
 * Timing helpers shared by the cells: a bound on any promise, and waiting until a process is gone.
 *
 * @since 0.0.0
 */

/**
 * Rejects with a clear message if `promise` does not settle within `ms`.
 *
 * @since 0.0.0
 */
export const withTimeout = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/**
 * Whether a process with this pid still exists (signal 0 probes without signalling).
 *
 * @since 0.0.0
 */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else; ESRCH: it is gone.
    return typeof error === "object" && error !== null && "code" in error && error.code === "EPERM"
  }
}

/**
 * Resolves once `pid` no longer exists, checking once per event-loop turn (so the exit can be reaped);
 * rejects after `ms`.
 *
 * @since 0.0.0
 */
export const waitUntilGone = (pid: number, ms: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const deadline = performance.now() + ms
    const check = () => {
      if (!isProcessAlive(pid)) return resolve()
      if (performance.now() > deadline) {
        return reject(new Error(`server process ${pid} still alive ${ms} ms after close`))
      }
      setImmediate(check)
    }
    check()
  })
