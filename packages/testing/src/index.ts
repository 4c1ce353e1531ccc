/**
 * @since 0.1.0
 */
export * as FakeServer from "./FakeServer.ts"

/**
 * @since 0.1.0
 */
export * as LeakGuard from "./LeakGuard.ts"

/**
 * @since 0.1.0
 */
export * as TestingError from "./TestingError.ts"

/** @since 0.1.0 */
export * as FakeSpawner from "./FakeSpawner.ts"

/** @since 0.1.0 */
export * as McpPeer from "./McpPeer.ts"

/** @since 0.1.0 */
export * as Processes from "./Processes.ts"

/** @since 0.2.0 */
export * as HttpPeer from "./HttpPeer.ts"

/** @since 0.1.0 */
export * as FakeHttpServer from "./FakeHttpServer.ts"

/** @since 0.3.0 */
export * as LoadedModules from "./LoadedModules.ts"

/** @since 0.3.0 */
export * as Daemons from "./Daemons.ts"

/** @since 0.3.0 */
export * as Sleeps from "./Sleeps.ts"

/** @since 0.5.0 */
export * as TaskPeer from "./TaskPeer.ts"
