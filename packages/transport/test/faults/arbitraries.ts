/**
 * fast-check arbitraries shared by the transport's property tests.
 */
import fc from "fast-check"

const encoder = new TextEncoder()

/** One JSON-RPC notification as a single line of text (JSON.stringify never emits a raw newline). */
export const notificationLine: fc.Arbitrary<string> = fc.jsonValue({ stringUnit: "binary", maxDepth: 3 }).map((
  params
) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params }))

const sharpBytes = [
  [0x0a], // newline
  [0x0d, 0x0a], // CRLF
  [0x0d], // a lone CR
  [0x7b], // {
  [0x7d], // }
  [0xc3, 0xa9], // é
  [0xf0, 0x9f, 0x98, 0x80], // 😀
  [0xf0, 0x9f], // half of 😀
  [0xff], // never valid in UTF-8
  [0xed, 0xa0, 0x80] // an encoded surrogate
].map((bytes) => new Uint8Array(bytes))

/**
 * One piece of hostile stdout: random bytes, a sharp byte sequence (newline, CR, brace, split or invalid UTF-8),
 * a valid notification line, or JSON that is not a valid message (an array, a bad version, a response to an
 * id the client never used).
 */
export const hostilePart: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 48 }),
  fc.constantFrom(...sharpBytes),
  notificationLine.map((line) => encoder.encode(`${line}\n`)),
  fc.oneof(
    fc.constant("[1,2,3]"),
    fc.constant("{\"jsonrpc\":\"1.0\",\"id\":1}"),
    fc.constant("null"),
    fc.integer({ min: 1_000_000 }).map((id) => JSON.stringify({ jsonrpc: "2.0", id, result: {} })),
    fc.string().map((id) => JSON.stringify({ jsonrpc: "2.0", id: `x-${id}`, error: { code: 1, message: "m" } }))
  ).map((text) => encoder.encode(`${text}\n`))
)

/** Concatenates byte arrays. */
export const concatBytes = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
