/**
 * FNV-1a (64-bit) over the UTF-8 bytes of a string, written in a 32-character base32 alphabet: a stable,
 * dependency-free hash for names that must come out the same on every run, replica and Effect version.
 * Not a secret: it only spreads names apart.
 *
 * @internal
 */

const OFFSET = 0xcbf29ce484222325n
const PRIME = 0x100000001b3n
const MASK = 0xffffffffffffffffn
/** Lower-case letters and digits without `i`, `l`, `o`, `u` (Crockford's base32): valid in every host's names. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
const encoder = new TextEncoder()

/** @internal */
export const fnv1a64 = (input: string): bigint => {
  let hash = OFFSET
  for (const byte of encoder.encode(input)) {
    hash ^= BigInt(byte)
    hash = (hash * PRIME) & MASK
  }
  return hash
}

/** The hash of `input` as `length` base32 characters (5 bits each, at most 12). @internal */
export const base32 = (input: string, length: number): string => {
  let hash = fnv1a64(input)
  let out = ""
  for (let i = 0; i < length; i++) {
    out += ALPHABET[Number(hash & 31n)]
    hash >>= 5n
  }
  return out
}
