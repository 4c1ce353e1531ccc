/**
 * `${VAR}` expansion for config values, against an environment passed in as a plain record.
 *
 * Syntax (the same as Claude Code's `.mcp.json`):
 * - `${NAME}` — the value of `NAME`; an unset `NAME` is an error ({@link MissingVariable}).
 * - `${NAME:-default}` — the value of `NAME`, or `default` when `NAME` is unset or empty. The default is literal
 *   text up to the first `}` (it is not expanded again).
 * - `${env:NAME}` / `${env:NAME:-default}` — the same, in VS Code's spelling.
 * - `$$` — one literal `$`.
 * - A `$` followed by anything else is kept as it is (`$HOME` is not expanded: only the braced form is).
 *
 * `NAME` is `[A-Za-z_][A-Za-z0-9_]*`. Anything else inside `${…}`, or a `${` without its `}`, is a
 * {@link MalformedPlaceholder}. Nothing here reads `process.env`: the caller passes the environment.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { EnvExpansion } from "@mcp-fleet/config"
 *
 * EnvExpansion.expand("${HOME}/data", { HOME: "/home/ada" }) // Result.succeed("/home/ada/data")
 * EnvExpansion.expand("${PORT:-8080}", {})                  // Result.succeed("8080")
 * ```
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * The environment that placeholders are looked up in (`process.env` has this shape).
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * A `${NAME}` whose variable is not set (and has no default).
 *
 * @since 0.1.0
 * @category models
 */
export interface MissingVariable {
  readonly _tag: "MissingVariable"
  readonly variable: string
}

/**
 * A `${` that does not form a valid placeholder; `offset` is where the placeholder starts in the template.
 * The template text itself is deliberately not carried: it may be a secret.
 *
 * @since 0.1.0
 * @category models
 */
export interface MalformedPlaceholder {
  readonly _tag: "MalformedPlaceholder"
  readonly offset: number
}

/**
 * Why a template could not be expanded.
 *
 * @since 0.1.0
 * @category models
 */
export type ExpansionIssue = MissingVariable | MalformedPlaceholder

const PLACEHOLDER_BODY = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s

/**
 * Expands every placeholder in `template` against `env`; fails with the first issue, left to right.
 *
 * @since 0.1.0
 * @category expansion
 */
export const expand = (template: string, env: Environment): Result.Result<string, ExpansionIssue> => {
  let out = ""
  let i = 0
  for (;;) {
    const dollar = template.indexOf("$", i)
    if (dollar === -1) return Result.succeed(out + template.slice(i))
    out += template.slice(i, dollar)
    const next = template.charAt(dollar + 1)
    if (next === "$") {
      out += "$"
      i = dollar + 2
      continue
    }
    if (next !== "{") {
      out += "$"
      i = dollar + 1
      continue
    }
    const close = template.indexOf("}", dollar + 2)
    if (close === -1) return Result.fail({ _tag: "MalformedPlaceholder", offset: dollar })
    const match = PLACEHOLDER_BODY.exec(template.slice(dollar + 2, close))
    const name = match?.[1]
    if (match === null || name === undefined) return Result.fail({ _tag: "MalformedPlaceholder", offset: dollar })
    const fallback = match[2]
    const value = Object.hasOwn(env, name) ? env[name] : undefined
    if (fallback !== undefined) {
      out += value === undefined || value === "" ? fallback : value
    } else if (value === undefined) {
      return Result.fail({ _tag: "MissingVariable", variable: name })
    } else {
      out += value
    }
    i = close + 1
  }
}
