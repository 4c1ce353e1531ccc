/**
 * The HTTP headers of MCP 2026-07-28 (`basic/transports/streamable-http.mdx` §Request Metadata): `MCP-Protocol-Version`
 * (equal to the request's `_meta` version), `Mcp-Method`, `Mcp-Name` (`tools/call`, `prompts/get`: `params.name`;
 * `resources/read`: `params.uri`) and `Mcp-Param-*` from a tool's `x-mcp-header` annotations.
 *
 * - A value that is not plain visible ASCII, has leading or trailing whitespace, or already looks like the sentinel
 *   is sent as `=?base64?<UTF-8 in base64>?=`.
 * - `x-mcp-header` is read along chains of `properties` only; a tool whose annotation breaks a rule (empty, not an
 *   RFC 9110 token, a case-insensitive duplicate, on a type that is not string/integer/boolean, or reachable through
 *   `items`, a combinator, a conditional or `$ref`) is not callable, and the rule is said.
 *
 * @since 0.3.0
 */

/** One designated parameter: where it is in the arguments, which header carries it, and its type. */
export interface HeaderParameter {
  readonly path: ReadonlyArray<string>
  /** The header's name, `Mcp-Param-` + the annotation as written. */
  readonly header: string
  readonly type: "string" | "integer" | "boolean"
}

/** A tool's designated parameters, or the rule its annotations break. */
export type Annotations =
  | { readonly _tag: "Valid"; readonly parameters: ReadonlyArray<HeaderParameter> }
  | { readonly _tag: "Invalid"; readonly rule: string }

const SENTINEL_PREFIX = "=?base64?"
const SENTINEL_SUFFIX = "?="
/** RFC 9110 `token`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * A header value as sent: as it is when safe, else in the base64 sentinel.
 *
 * @since 0.3.0
 */
export const headerValue = (value: string): string => {
  const safe = /^[\x20-\x7e]*$/.test(value) && value.trim() === value &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))
  if (safe) return value
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return `${SENTINEL_PREFIX}${btoa(binary)}${SENTINEL_SUFFIX}`
}

/** Keywords whose value is one schema, a map of schemas, or an array of schemas (JSON Schema 2020-12 and draft-07). */
const ONE = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "contentSchema"
])
const MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"])
const MANY = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Reads a tool's `x-mcp-header` annotations from its `inputSchema`.
 *
 * @since 0.3.0
 */
export const annotations = (inputSchema: unknown): Annotations => {
  const parameters: Array<HeaderParameter> = []
  const names = new Set<string>()
  let broken: string | undefined
  const fail = (rule: string) => {
    broken ??= rule
    return false
  }
  // `path` is undefined once the walk has left a chain of `properties`.
  const visit = (schema: unknown, path: ReadonlyArray<string> | undefined): boolean => {
    if (!isRecord(schema)) return true
    const name = schema["x-mcp-header"]
    if (name !== undefined) {
      if (path === undefined || path.length === 0) {
        return fail("x-mcp-header is reachable only through items, a combinator, a conditional or $ref")
      }
      if (typeof name !== "string" || name === "") return fail("x-mcp-header must not be empty")
      if (!TOKEN.test(name)) return fail(`x-mcp-header ${JSON.stringify(name)} is not an RFC 9110 token`)
      if (names.has(name.toLowerCase())) {
        return fail(`x-mcp-header ${JSON.stringify(name)} is used twice (case-insensitively)`)
      }
      const type = schema["type"]
      if (type !== "string" && type !== "integer" && type !== "boolean") {
        return fail(`x-mcp-header ${JSON.stringify(name)} is on a ${JSON.stringify(type)} parameter, not a primitive`)
      }
      names.add(name.toLowerCase())
      parameters.push({ path, header: `Mcp-Param-${name}`, type })
    }
    return Object.entries(schema).every(([keyword, value]) => {
      if (MAP.has(keyword) && isRecord(value)) {
        return Object.entries(value).every(([key, child]) =>
          visit(child, keyword === "properties" && path !== undefined ? [...path, key] : undefined)
        )
      }
      if (Array.isArray(value)) return !MANY.has(keyword) || value.every((child) => visit(child, undefined))
      return !ONE.has(keyword) || visit(value, undefined)
    })
  }
  return visit(inputSchema, []) ? { _tag: "Valid", parameters } : { _tag: "Invalid", rule: broken ?? "invalid" }
}

/** The body field `Mcp-Name` mirrors, by method (SEP-2243; the `tasks/*` rows are SEP-2663's, for routing by task). */
const NAMED: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
  ["tasks/get", "taskId"],
  ["tasks/update", "taskId"],
  ["tasks/cancel", "taskId"]
])

/**
 * The headers of one modern request. `parameters` are the called tool's designated parameters (when known): a value
 * that is absent or null is omitted, and one of the wrong type too (the server validates the arguments).
 *
 * @since 0.3.0
 */
export const forRequest = (
  method: string,
  params: unknown,
  protocolVersion: string,
  parameters: ReadonlyArray<HeaderParameter> | undefined
): Record<string, string> => {
  const headers: Record<string, string> = { "mcp-protocol-version": protocolVersion, "mcp-method": method }
  const field = NAMED.get(method)
  if (field === undefined || !isRecord(params)) return headers
  const name = params[field]
  if (typeof name === "string") headers["mcp-name"] = headerValue(name)
  if (method !== "tools/call" || parameters === undefined) return headers
  for (const { header, path, type } of parameters) {
    let value: unknown = params["arguments"]
    for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
    if (value === undefined || value === null) continue
    const fits = type === "integer" ? typeof value === "number" && Number.isSafeInteger(value) : typeof value === type
    if (fits) headers[header] = headerValue(String(value))
  }
  return headers
}
