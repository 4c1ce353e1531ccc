/**
 * JSON-RPC 2.0 envelopes: parsing one line into a classified message, and encoding outbound frames.
 *
 * Hand-written guards rather than a Schema: this runs once per inbound line on the reader's hot path and
 * must never throw. Payloads (`result`, `params`) are decoded later, with Schemas, by whoever asked.
 *
 * @internal
 */

/** A JSON-RPC id: a string or an integer, never null. */
export type Id = string | number

/** @internal */
export type Incoming =
  | { readonly _tag: "Result"; readonly id: Id; readonly result: unknown }
  | {
    readonly _tag: "Error"
    readonly id: Id | null
    readonly code: number
    readonly message: string
    readonly data: unknown
    readonly hasData: boolean
  }
  | { readonly _tag: "Request"; readonly id: Id; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Invalid"; readonly id: Id | undefined; readonly reason: string }
  | { readonly _tag: "NotJson"; readonly reason: string }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isInteger = (u: unknown): u is number => typeof u === "number" && Number.isInteger(u)

const isId = (u: unknown): u is Id => typeof u === "string" || (typeof u === "number" && Number.isInteger(u))

const parseJson = (line: string): { ok: true; value: unknown } | { ok: false; reason: string } => {
  try {
    return { ok: true, value: JSON.parse(line) }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : "invalid JSON" }
  }
}

/** Parses and classifies one line. Never throws. */
export const classify = (line: string): Incoming => {
  const parsed = parseJson(line)
  if (!parsed.ok) return { _tag: "NotJson", reason: parsed.reason }
  const msg = parsed.value
  if (!isObject(msg)) return { _tag: "Invalid", id: undefined, reason: "not a JSON object (batches are not supported)" }
  const id = msg.id
  let validId: Id | undefined
  if (id !== undefined && id !== null) {
    if (!isId(id)) return { _tag: "Invalid", id: undefined, reason: "id is neither a string nor an integer" }
    validId = id
  }
  if (msg.jsonrpc !== "2.0") return { _tag: "Invalid", id: validId, reason: "jsonrpc is not \"2.0\"" }
  const method = msg.method
  if (method !== undefined) {
    if (typeof method !== "string") return { _tag: "Invalid", id: validId, reason: "method is not a string" }
    return validId === undefined
      ? { _tag: "Notification", method, params: msg.params }
      : { _tag: "Request", id: validId, method, params: msg.params }
  }
  const hasResult = "result" in msg
  const hasError = "error" in msg
  if (hasResult && hasError) return { _tag: "Invalid", id: validId, reason: "a response has both result and error" }
  if (hasResult) {
    if (validId === undefined) return { _tag: "Invalid", id: undefined, reason: "a result without an id" }
    return { _tag: "Result", id: validId, result: msg.result }
  }
  if (hasError) {
    const error = msg.error
    if (!isObject(error) || !isInteger(error.code) || typeof error.message !== "string") {
      return { _tag: "Invalid", id: validId, reason: "an error object without an integer code and a message" }
    }
    return {
      _tag: "Error",
      id: validId ?? null,
      code: error.code,
      message: error.message,
      data: error.data,
      hasData: "data" in error
    }
  }
  return { _tag: "Invalid", id: validId, reason: "neither a request, a notification nor a response" }
}

const headId = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/
const headIdFirst = /^\s*\{\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/
const tailId = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/

/**
 * Reads the top-level `id` of a message from the start or the end of its text only (for messages too large
 * to parse). Returns `undefined` when neither end shows it unambiguously.
 */
export const sniffId = (head: string, tail: string): Id | undefined => {
  const match = headId.exec(head) ?? headIdFirst.exec(head) ?? tailId.exec(tail)
  if (match === null) return undefined
  const raw = match[1]!
  if (raw.startsWith("\"")) {
    const parsed = parseJson(raw)
    return parsed.ok && typeof parsed.value === "string" ? parsed.value : undefined
  }
  return Number(raw)
}

/** What the start and the end of an oversize message show it to be. */
export interface OversizeSniff {
  /** `response`: a top-level `result` or `error` key and no `method`; `request`/`notification`: a `method`. */
  readonly kind: "response" | "request" | "notification" | "unknown"
  readonly id: Id | undefined
}

/**
 * Classifies a message too large to parse from its head and tail excerpts only. The head's top-level keys are
 * read in order for as long as the excerpt lasts, so the kind is known whenever a distinguishing key (`method`,
 * `result`, `error`) comes before the first value that runs past the excerpt. `unknown` when it does not.
 */
export const sniffOversize = (head: string, tail: string): OversizeSniff => {
  const keys = topLevelKeys(head)
  const id = sniffId(head, tail)
  if (keys.has("method")) return { kind: id === undefined ? "notification" : "request", id }
  if (keys.has("result") || keys.has("error")) return { kind: "response", id }
  // The method may come last (after a huge `params`), as in `{"method":…,"params":…}` reversed: look at the tail.
  if (tailMethod.test(tail)) return { kind: id === undefined ? "notification" : "request", id }
  return { kind: "unknown", id }
}

const tailMethod =
  /"method"\s*:\s*"(?:[^"\\]|\\.)*"\s*(?:,\s*"(?:jsonrpc|id)"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*)*\}\s*$/

/** The top-level keys of a JSON object's text, as far as the (possibly cut) text goes. Never throws. */
const topLevelKeys = (text: string): Set<string> => {
  const keys = new Set<string>()
  let i = skipSpace(text, 0)
  if (text[i] !== "{") return keys
  i++
  while (i < text.length) {
    i = skipSpace(text, i)
    if (text[i] !== "\"") return keys
    const end = stringEnd(text, i)
    if (end === -1) return keys
    const parsed = parseJson(text.slice(i, end))
    i = skipSpace(text, end)
    if (text[i] !== ":") return keys
    if (parsed.ok && typeof parsed.value === "string") keys.add(parsed.value)
    i = valueEnd(text, skipSpace(text, i + 1))
    if (i === -1) return keys
    i = skipSpace(text, i)
    if (text[i] !== ",") return keys
    i++
  }
  return keys
}

const skipSpace = (text: string, from: number): number => {
  let i = from
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++
  return i
}

/** The index just past the string starting at `from` (a quote), or -1 when the text ends first. */
const stringEnd = (text: string, from: number): number => {
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === "\\") i++
    else if (text[i] === "\"") return i + 1
  }
  return -1
}

/** The index just past the value starting at `from`, or -1 when the text ends first. */
const valueEnd = (text: string, from: number): number => {
  const first = text[from]
  if (first === "\"") return stringEnd(text, from)
  if (first === "{" || first === "[") {
    let depth = 0
    for (let i = from; i < text.length; i++) {
      const c = text[i]
      if (c === "\"") {
        i = stringEnd(text, i) - 1
        if (i < 0) return -1
      } else if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        depth--
        if (depth === 0) return i + 1
      }
    }
    return -1
  }
  let i = from
  while (i < text.length && text[i] !== "," && text[i] !== "}") i++
  return i < text.length ? i : -1
}

/** One outbound request frame, newline-terminated. */
export const requestFrame = (id: number, method: string, params: unknown): string =>
  params === undefined
    ? `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}}\n`
    : `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`

/** One outbound notification frame, newline-terminated. */
export const notificationFrame = (method: string, params: unknown): string =>
  params === undefined
    ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}\n`
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`

/** A response frame to a server→client request. */
export const resultFrame = (id: Id, result: unknown): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`

/** An error response frame to a server→client request. */
export const errorFrame = (id: Id, code: number, message: string): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":${code},"message":${JSON.stringify(message)}}}\n`

/** Encodes a request frame, or says why the params cannot be encoded (a cycle, a BigInt). Never throws. */
export const encodeRequest = (id: number, method: string, params: unknown): string | { readonly error: string } => {
  try {
    return requestFrame(id, method, params)
  } catch (error) {
    return { error: error instanceof Error ? error.message : "not JSON-serialisable" }
  }
}
