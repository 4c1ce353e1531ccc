/**
 * The classification every auth error carries as `kind`: the shapes of `@mcp-fleet/transport`'s `ErrorKind`, which
 * reads them (auth sits below the transport, so it cannot import that module; the transport's error unions, which
 * take `AuthorizationRequired` in, check that the shapes agree).
 *
 * @internal
 */

/** The same call may succeed later. */
export interface Transient {
  readonly _tag: "Transient"
}

/** Nothing succeeds until the user acts; `reason` says why. */
export interface NeedsUser {
  readonly _tag: "NeedsUser"
  readonly reason: string
}

/** The server is at fault for good. */
export interface ServerFault {
  readonly _tag: "ServerFault"
}

/** The configuration must change first. */
export interface ConfigFault {
  readonly _tag: "ConfigFault"
}

export const transient: Transient = { _tag: "Transient" }
export const serverFault: ServerFault = { _tag: "ServerFault" }
export const configFault: ConfigFault = { _tag: "ConfigFault" }
export const needsUser = (reason: string): NeedsUser => ({ _tag: "NeedsUser", reason })
