/**
 * Node errors as `PlatformError`s, with the reasons `@effect/platform-node` gives the same errno codes, so that a
 * caller matching on `reason._tag` sees the same thing from either spawner.
 *
 * @internal
 */
import * as PlatformError from "effect/PlatformError"
import * as CommandLine from "effect/process/CommandLine"
import type * as ChildProcess from "effect/process/ChildProcess"
import * as Redacted from "effect/Redacted"

const reasonOf = (code: unknown): PlatformError.SystemErrorTag => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
    case "EPERM":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

const codeOf = (error: unknown): unknown => error instanceof Error && "code" in error ? error.code : undefined

const syscallOf = (error: unknown): string | undefined =>
  error instanceof Error && "syscall" in error && typeof error.syscall === "string" ? error.syscall : undefined

/** The command line as the platform spawner shows it in errors; redacted arguments stay redacted. */
export const display = (command: ChildProcess.StandardCommand): string =>
  CommandLine.display([command.command, ...command.args], { format: "posix" })

/** A failure of `method` while running `command` (module `ChildProcess`). */
export const platformError = (
  method: string,
  error: unknown,
  command: ChildProcess.StandardCommand
): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: reasonOf(codeOf(error)),
    module: "ChildProcess",
    method,
    pathOrDescriptor: display(command),
    syscall: syscallOf(error),
    cause: error
  })

/** A failure of the working-directory check (module `FileSystem`, method `access`), as the platform reports it. */
export const accessError = (error: unknown, cwd: string): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: reasonOf(codeOf(error)),
    module: "FileSystem",
    method: "access",
    pathOrDescriptor: cwd,
    syscall: syscallOf(error),
    cause: error
  })

/** An argument's plain value (`Redacted` ones unwrapped only to be passed to the OS). */
export const unwrap = (value: string | Redacted.Redacted<string>): string =>
  Redacted.isRedacted(value) ? Redacted.value(value) : value
