// JWT checks for the fake authorization server, with node:crypto only: an independent path from the client's
// signing library (jose), so that a bug shared by a signer and a verifier built on the same code cannot hide.
import { createHash, createPublicKey, verify } from "node:crypto"

/**
 * @typedef {object} DecodedJwt
 * @property {Record<string, unknown>} header
 * @property {Record<string, unknown>} payload
 * @property {string} signingInput
 * @property {Buffer} signature
 */

/** @param {string} part @returns {Record<string, unknown> | undefined} */
const json = (part) => {
  try {
    const value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Splits a compact JWS; undefined when it is not one.
 *
 * @param {string} jwt
 * @returns {DecodedJwt | undefined}
 */
export const decodeJwt = (jwt) => {
  const parts = jwt.split(".")
  if (parts.length !== 3) return undefined
  const [h = "", p = "", s = ""] = parts
  const header = json(h)
  const payload = json(p)
  if (header === undefined || payload === undefined) return undefined
  return { header, payload, signingInput: `${h}.${p}`, signature: Buffer.from(s, "base64url") }
}

/** @type {Record<string, { hash: string, ec: boolean, pss?: boolean }>} */
const ALGORITHMS = {
  ES256: { hash: "sha256", ec: true },
  ES384: { hash: "sha384", ec: true },
  RS256: { hash: "sha256", ec: false },
  PS256: { hash: "sha256", ec: false, pss: true }
}

/**
 * Whether `decoded` is signed by the public key `jwk` with the algorithm its header names.
 *
 * @param {DecodedJwt} decoded
 * @param {import("node:crypto").JsonWebKey} jwk
 * @returns {boolean}
 */
export const verifySignature = (decoded, jwk) => {
  const alg = ALGORITHMS[String(decoded.header["alg"])]
  if (alg === undefined) return false
  try {
    const key = createPublicKey({ key: jwk, format: "jwk" })
    return verify(
      alg.hash,
      Buffer.from(decoded.signingInput),
      alg.ec
        ? { key, dsaEncoding: "ieee-p1363" }
        : alg.pss === true
        ? { key, padding: 6, /* RSA_PKCS1_PSS_PADDING */ saltLength: 32 }
        : key,
      decoded.signature
    )
  } catch {
    return false
  }
}

/**
 * The RFC 7638 SHA-256 thumbprint of an EC public JWK, base64url.
 *
 * @param {Record<string, unknown>} jwk
 * @returns {string}
 */
export const thumbprint = (jwk) =>
  createHash("sha256")
    .update(JSON.stringify({ crv: jwk["crv"], kty: jwk["kty"], x: jwk["x"], y: jwk["y"] }))
    .digest("base64url")

/** @param {string} text @returns {string} base64url SHA-256 */
export const sha256 = (text) => createHash("sha256").update(text, "ascii").digest("base64url")
