/**
 * `${VAR}` expansion for config values, against an environment passed in as a plain record.
 *
 * Syntax (the same as Claude Code's `.mcp.json`):
 * - `${NAME}` — the value of `NAME`; an unset `NAME` is an error ({@link MissingVariable}).
 * - `${NAME:-default}` — the value of `NAME`, or `default` when `NAME` is unset or empty. The default is literal
 *   text up to the first `}` (it is not expanded again).
 * - `${env:NAME}` / `${env:NAME:-default}` — the same, in VS Code's spelling.
 * - `${workspaceFolder}` / `${userHome}` — VS Code's predefined variables, taken from `predefined` (the config
 *   file's folder and the home directory, passed in by the caller); `${env:NAME}` never looks there.
 * - `${input:ID}` — a VS Code prompt input: there is nobody to prompt, so it is a {@link PromptInput} issue
 *   (the caller suggests `${NAME}` from the environment instead).
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
import * as Result from "effect/Result"

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
 * A VS Code `${input:ID}` prompt input: mcp-fleet cannot prompt for it. `id` is the input's id.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromptInput {
  readonly _tag: "PromptInput"
  readonly id: string
}

/**
 * Values for the predefined (non-environment) variables `${workspaceFolder}` and `${userHome}`; an absent one
 * is looked up in the environment like any other name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Predefined {
  readonly workspaceFolder?: string | undefined
  readonly userHome?: string | undefined
}

/**
 * Why a template could not be expanded.
 *
 * @since 0.1.0
 * @category models
 */
export type ExpansionIssue = MissingVariable | MalformedPlaceholder | PromptInput

const PLACEHOLDER_BODY = /^(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s

const INPUT_BODY = /^input:(.+)$/s

const predefinedValue = (name: string, predefined: Predefined): string | undefined =>
  name === "workspaceFolder" ? predefined.workspaceFolder : name === "userHome" ? predefined.userHome : undefined

/**
 * The environment variable name to suggest instead of a VS Code input id: `perplexity-key` → `PERPLEXITY_KEY`.
 *
 * @since 0.1.0
 * @category expansion
 */
export const suggestedVariable = (inputId: string): string => {
  const name = inputId.toUpperCase().replace(/[^A-Z0-9_]+/g, "_").replace(/^_+|_+$/g, "")
  return name === "" ? "NAME" : /^[0-9]/.test(name) ? `_${name}` : name
}

/**
 * Expands every placeholder in `template` against `env`; fails with the first issue, left to right.
 *
 * @since 0.1.0
 * @category expansion
 */
export const expand = (
  template: string,
  env: Environment,
  predefined: Predefined = {}
): Result.Result<string, ExpansionIssue> => {
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
    const body = template.slice(dollar + 2, close)
    const input = INPUT_BODY.exec(body)?.[1]
    if (input !== undefined) return Result.fail({ _tag: "PromptInput", id: input })
    const match = PLACEHOLDER_BODY.exec(body)
    const name = match?.[2]
    if (match === null || name === undefined) return Result.fail({ _tag: "MalformedPlaceholder", offset: dollar })
    const fallback = match[3]
    const fixed = match[1] === undefined ? predefinedValue(name, predefined) : undefined
    const value = fixed ?? (Object.hasOwn(env, name) ? env[name] : undefined)
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
