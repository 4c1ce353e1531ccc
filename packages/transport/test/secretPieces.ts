/**
 * How much of a secret a text shows: the longest run of the secret's characters found in it. Redaction replaces a
 * whole secret, and a piece of 8 characters or more against a cut; a shorter piece can show (at most 7).
 */
import { assert } from "@effect/vitest"

/** The longest substring of `secret` that `text` contains ("" when none). */
export const longestPiece = (text: string, secret: string): string => {
  let best = ""
  for (let start = 0; start < secret.length; start++) {
    for (let end = secret.length; end > start + best.length; end--) {
      if (text.includes(secret.slice(start, end))) {
        best = secret.slice(start, end)
        break
      }
    }
  }
  return best
}

/** The shortest piece of a secret that redaction replaces against a cut (`Redactor.MIN_FRAGMENT`). */
export const MIN_PIECE = 8

/** Asserts that `text` shows no piece of `secret` of `MIN_PIECE` characters or more. */
export const assertNoPiece = (text: string, secret: string, where: string) => {
  const piece = longestPiece(text, secret)
  assert.isBelow(
    piece.length,
    MIN_PIECE,
    `${where} shows ${piece.length} of the secret's ${secret.length} characters (${JSON.stringify(piece)}) in ${
      JSON.stringify(text)
    }`
  )
}
