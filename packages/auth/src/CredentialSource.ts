/**
 * Where a machine credential comes from: a value the application holds, a file read afresh at every use (a
 * workload identity token that the platform rotates, a private key mounted as a secret), or any effect the
 * application supplies. Every value is `Redacted`; errors name the source (a path), never the content.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Redacted from "effect/Redacted"
import { CredentialUnavailable } from "./AuthError.ts"

/**
 * What a credential is, for messages.
 *
 * @since 0.2.0
 * @category models
 */
export type What = CredentialUnavailable["what"]

/**
 * A credential, read each time it is needed.
 *
 * @since 0.2.0
 * @category models
 */
export type CredentialSource = Effect.Effect<Redacted.Redacted<string>, CredentialUnavailable>

/**
 * A value the application holds (an env-provided token, a secret from its vault).
 *
 * @since 0.2.0
 * @category constructors
 */
export const value = (secret: Redacted.Redacted<string>): CredentialSource => Effect.succeed(secret)

/**
 * A file, read at every use and trimmed of surrounding whitespace (a trailing newline is not part of a token). A
 * missing, unreadable or empty file is `CredentialUnavailable` naming the path.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromFile = (
  path: string,
  what: What
): Effect.Effect<CredentialSource, never, FileSystem.FileSystem> =>
  Effect.map(FileSystem.FileSystem, (fs) =>
    fs.readFileString(path).pipe(
      Effect.mapError((error) =>
        new CredentialUnavailable({
          what,
          source: path,
          reason: error.reason._tag === "NotFound" ? "no such file" : `the file cannot be read (${error.reason._tag})`
        })
      ),
      Effect.flatMap((text) => {
        const trimmed = text.trim()
        return trimmed === ""
          ? Effect.fail(new CredentialUnavailable({ what, source: path, reason: "the file is empty" }))
          : Effect.succeed(Redacted.make(trimmed, { label: what }))
      })
    ))
