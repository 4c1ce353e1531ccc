/**
 * What the manager aggregates besides tools, each item with the server that offers it: resources, resource
 * templates and prompts.
 *
 * @since 0.3.0
 */
import type { ProtocolFeatures } from "@mcp-fleet/transport"

/**
 * A resource and the server that offers it.
 *
 * @since 0.3.0
 * @category models
 */
export interface ServerResource {
  readonly server: string
  readonly resource: ProtocolFeatures.Resource
}

/**
 * A resource template and the server that offers it.
 *
 * @since 0.3.0
 * @category models
 */
export interface ServerResourceTemplate {
  readonly server: string
  readonly template: ProtocolFeatures.ResourceTemplate
}

/**
 * A prompt and the server that offers it.
 *
 * @since 0.3.0
 * @category models
 */
export interface ServerPrompt {
  readonly server: string
  readonly prompt: ProtocolFeatures.Prompt
}
