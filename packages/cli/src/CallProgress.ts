/**
 * The progress line `call` draws on a terminal while a tool reports progress: `server__tool` then a bar when the
 * total is known, the count, and the report's `message`, redrawn in place and cleared before the result prints.
 * A call that runs as a task shows each status the same way (`task`): on a terminal in the same line, elsewhere
 * as one stderr line per status.
 *
 * @since 0.3.0
 */
import type { ProtocolFeatures, Tasks } from "@mcp-fleet/transport"

const WIDTH = 20

/**
 * One report as the progress line shows it.
 *
 * @since 0.3.0
 * @category rendering
 */
export const line = (name: string, report: ProtocolFeatures.Progress): string => {
  const { message, progress, total } = report
  const known = total !== undefined && total > 0
  const filled = known ? Math.max(0, Math.min(WIDTH, Math.round((progress / total) * WIDTH))) : 0
  const bar = known ? `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${progress}/${total}` : `${progress}`
  return `${name} ${bar}${message === undefined ? "" : ` · ${message.replace(/\s+/g, " ").slice(0, 120)}`}`
}

/**
 * The escape that redraws the line in place.
 *
 * @since 0.3.0
 * @category rendering
 */
export const redraw = (text: string): string => `\r\x1b[K${text}`

/**
 * The escape that clears the line.
 *
 * @since 0.3.0
 * @category rendering
 */
export const clear = "\r\x1b[K"

/**
 * One status of the call's task as the progress line shows it: `server__tool task <id> <status>` and its message.
 *
 * @since 0.5.0
 * @category rendering
 */
export const task = (name: string, status: Tasks.Task): string =>
  `${name} task ${status.taskId} ${status.status}${
    status.statusMessage === undefined ? "" : ` · ${status.statusMessage.replace(/\s+/g, " ").slice(0, 120)}`
  }`
