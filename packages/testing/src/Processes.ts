/**
 * Small checks on OS processes for real-process tests.
 *
 * @since 0.1.0
 */

/**
 * Whether a process exists — or, with a negative pid, whether any process of that process group does. A process
 * that exists but may not be signalled by us (`EPERM`) counts as existing.
 *
 * @since 0.1.0
 * @category checks
 */
export const exists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}
