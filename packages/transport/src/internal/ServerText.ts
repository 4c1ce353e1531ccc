/**
 * Text that came from a server, made fit for a one-sentence error message: one line, bounded in length.
 *
 * Errors keep the server's full text in a field of its own (`RemoteError.remoteMessage`, `ProtocolError.detail`,
 * `ProcessExited.stderrTail`); only `message`, the text that reaches logs, status lines and terminals, is bounded.
 *
 * @internal
 */

/** The most characters of server text one message carries. */
export const MAX_SERVER_TEXT = 500

/**
 * `text` on one line (line breaks escaped as `\n`, other control characters as spaces), cut after `max`
 * characters with `… (N more characters)` at the end. `atCut` rewrites the part kept before a cut (the
 * `Redactor`'s excerpt replaces a secret's prefix there); text that fits is returned whole.
 *
 * Its callers pass text whose secrets are already replaced: `Redactor.excerpt` (which also guards the cut), and the
 * `message` of errors whose fields were scrubbed when the error was made.
 */
export const oneLine = (
  text: string,
  max: number = MAX_SERVER_TEXT,
  atCut: (kept: string) => string = (kept) => kept
): string => {
  // oxlint-disable-next-line no-control-regex
  const flat = text.replace(/\r\n|\r|\n/g, "\\n").replace(/[\u0000-\u001f\u007f]/g, " ")
  if (flat.length <= max) return flat
  // Never cut between the two halves of a surrogate pair.
  const cut = isHighSurrogate(flat.charCodeAt(max - 1)) ? max - 1 : max
  return `${atCut(flat.slice(0, cut))}… (${flat.length - cut} more characters)`
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
