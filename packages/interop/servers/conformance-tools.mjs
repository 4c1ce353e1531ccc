// What the official conformance suite's *server* scenarios look for (`@modelcontextprotocol/conformance`,
// `conformance server --url …`), served by @modelcontextprotocol/server (v2) for both eras: the tools, resources,
// prompts, logging and completion of the suite's fixtures, written from what each scenario of its `dist/index.js`
// checks (names, contents, the input rounds of SEP-2322, the diagnostic tools of SEP-2575). One factory per
// serving unit; the state that must outlive an instance (subscriptions, the list-change triggers) lives here.
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate
} from "@modelcontextprotocol/server"
import { randomUUID } from "node:crypto"

/** A 1×1 red PNG and a minimal WAV, as the suite expects them. */
export const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
export const AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

const object = (properties = {}, required = []) => fromJsonSchema({ type: "object", properties, required })
const text = (value) => ({ content: [{ type: "text", text: value }] })
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const ask = (message, property, type = "string") =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: "object", properties: { [property]: { type } }, required: [property] }
  })

/** `chars` characters: lines of 100 (99 characters and a newline), each starting with its number. */
const largeText = (chars) => {
  const lines = []
  for (let i = 0; i * 100 < chars; i++) lines.push(`${String(i).padStart(6, "0")} ${"x".repeat(92)}\n`)
  return lines.join("").slice(0, chars)
}

/**
 * The factory of server instances. `hooks.toolsChanged()` / `hooks.promptsChanged()` announce a list change on the
 * 2026-07-28 listen streams, `hooks.resourceUpdated(uri)` a resource update; `hooks.closeStream(sessionId, requestId)` closes a 2025-era request's SSE stream mid-call
 * (the SEP-1699 polling check).
 */
export function createFactory(hooks) {
  // HMAC-sealed, per process: a tampered requestState is refused (-32602) before the handler runs.
  const codec = createRequestStateCodec({ key: crypto.getRandomValues(new Uint8Array(32)) })
  const subscriptions = new Set()
  const counters = { cancelled: 0, waiting: [], asking: [] }

  return () => {
    const server = new McpServer(
      { name: "mcp-fleet-conformance-upstream", version: "1.0.0" },
      {
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {}
        },
        requestState: { verify: codec.verify }
      }
    )
    const log = (level, data) =>
      server.server.notification({ method: "notifications/message", params: { level, logger: "upstream", data } })
        .catch(() => undefined)
    const tool = (name, description, handler, inputSchema = object()) =>
      server.registerTool(name, { description, inputSchema }, handler)

    // Content of every kind.
    tool("test_simple_text", "Returns simple text", async () => text("This is a simple text response for testing."))
    tool("test_image_content", "Returns an image", async () => ({
      content: [{ type: "image", data: IMAGE, mimeType: "image/png" }]
    }))
    tool("test_audio_content", "Returns audio", async () => ({
      content: [{ type: "audio", data: AUDIO, mimeType: "audio/wav" }]
    }))
    tool("test_embedded_resource", "Returns an embedded resource", async () => ({
      content: [{
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content."
        }
      }]
    }))
    tool("test_multiple_content_types", "Returns text, an image and a resource", async () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: IMAGE, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 })
          }
        }
      ]
    }))
    tool("test_error_handling", "Fails (isError)", async () => {
      throw new Error("This tool intentionally returns an error for testing")
    })

    // Notifications during a call.
    tool("test_tool_with_logging", "Logs three entries while it runs", async (_args, ctx) => {
      for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
        await ctx.mcpReq.notify({ method: "notifications/message", params: { level: "info", data } })
        await wait(50)
      }
      return text("Tool with logging executed successfully")
    })
    tool("test_tool_with_progress", "Reports progress 0, 50, 100", async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken
      if (progressToken !== undefined) {
        for (const progress of [0, 50, 100]) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` }
          })
          if (progress < 100) await wait(50)
        }
      }
      return text(String(progressToken ?? "no-progress-token"))
    })
    tool("test_reconnection", "Closes its SSE stream mid-call (SEP-1699)", async (_args, ctx) => {
      if (ctx.sessionId !== undefined && ctx.mcpReq.id !== undefined) hooks.closeStream(ctx.sessionId, ctx.mcpReq.id)
      await wait(100)
      return text("Reconnection test completed successfully.")
    })

    // Input from the client, written once for both eras: an input round (`input_required`) that the SDK serves to a
    // 2025-era session as a real server → client request (elicitation/create, sampling/createMessage), and to a
    // 2026-07-28 request as it is.
    const elicitTool = (name, description, message, requestedSchema, inputSchema = object()) =>
      tool(name, description, async (args, ctx) => {
        const answer = ctx.mcpReq.inputResponses?.["input"]
        if (answer === undefined) {
          return inputRequired({
            inputRequests: {
              input: inputRequired.elicit({
                message: typeof message === "function" ? message(args) : message,
                requestedSchema
              })
            }
          })
        }
        return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)
      }, inputSchema)
    tool(
      "test_sampling",
      "Asks the client for an LLM completion",
      async ({ prompt }, ctx) => {
        const answer = ctx.mcpReq.inputResponses?.["completion"]
        if (answer === undefined) {
          return inputRequired({
            inputRequests: {
              completion: inputRequired.createMessage({
                messages: [{ role: "user", content: { type: "text", text: prompt } }],
                maxTokens: 100
              })
            }
          })
        }
        return text(`LLM response: ${answer.content?.text ?? "No response"}`)
      },
      object({ prompt: { type: "string", description: "The prompt to send to the LLM" } }, ["prompt"])
    )
    elicitTool(
      "test_elicitation",
      "Asks the user for input",
      ({ message }) => message,
      {
        type: "object",
        properties: { response: { type: "string", description: "User's response" } },
        required: ["response"]
      },
      object({ message: { type: "string", description: "The message to show the user" } }, ["message"])
    )
    elicitTool(
      "test_elicitation_sep1034_defaults",
      "Elicitation with a default for every primitive (SEP-1034)",
      "Please review and update the form fields with defaults",
      {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: {
            type: "string",
            description: "User status",
            enum: ["active", "inactive", "pending"],
            default: "active"
          },
          verified: { type: "boolean", description: "Verification status", default: true }
        },
        required: []
      }
    )
    const titled = (noun) =>
      [1, 2, 3].map((n) => ({ const: `value${n}`, title: `${["First", "Second", "Third"][n - 1]} ${noun}` }))
    elicitTool(
      "test_elicitation_sep1330_enums",
      "Elicitation with the five enum shapes (SEP-1330)",
      "Please select options from the enum fields",
      {
        type: "object",
        properties: {
          untitledSingle: { type: "string", description: "Select one", enum: ["option1", "option2", "option3"] },
          titledSingle: { type: "string", description: "Select one with titles", oneOf: titled("Option") },
          legacyEnum: {
            type: "string",
            description: "Select one (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"]
          },
          untitledMulti: {
            type: "array",
            description: "Select several",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] }
          },
          titledMulti: {
            type: "array",
            description: "Select several with titles",
            minItems: 1,
            maxItems: 3,
            items: { anyOf: titled("Choice") }
          }
        },
        required: []
      }
    )

    // JSON Schema 2020-12 kept verbatim (SEP-1613, SEP-2106).
    tool(
      "json_schema_2020_12_tool",
      "Tool with JSON Schema 2020-12 features",
      async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
      fromJsonSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } }
          }
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" }
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false
      })
    )

    // SEP-2243: a tool argument mirrored into an Mcp-Param-* header.
    tool(
      "test_x_mcp_header",
      "Mirrors region into Mcp-Param-Region",
      async (args) => text(`region=${args.region ?? "<none>"}`),
      fromJsonSchema({
        type: "object",
        properties: {
          region: { type: "string", description: "mirrored into Mcp-Param-Region", "x-mcp-header": "Region" },
          level: { type: "integer", description: "non-mirrored argument" }
        }
      })
    )

    // Not the suite's: for mcp-fleet's own tests through the gateway. A resource update on demand, and a call that
    // waits (counting the times it was cancelled).
    tool("test_update_resource", "Announces that test://watched-resource changed", async () => {
      await server.server.sendResourceUpdated({ uri: "test://watched-resource" }).catch(() => undefined)
      hooks.resourceUpdated?.("test://watched-resource")
      return text("updated")
    })
    tool(
      "test_wait",
      "Waits ms milliseconds, or until the call is cancelled",
      async ({ ms }, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress: 0 } })
        }
        const cancelled = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), ms)
          ctx.mcpReq.signal.addEventListener("abort", () => {
            clearTimeout(timer)
            resolve(true)
          })
        })
        if (cancelled) {
          counters.cancelled++
          for (const wake of counters.waiting.splice(0)) wake()
        }
        return text(cancelled ? "cancelled" : `waited ${ms} ms`)
      },
      object({ ms: { type: "integer" } }, ["ms"])
    )
    tool(
      "test_cancellations",
      "How many test_wait calls were cancelled, once there are at least atLeast (or 10 s have passed)",
      async ({ atLeast = 0 }) => {
        const deadline = Date.now() + 10_000
        while (counters.cancelled < atLeast && Date.now() < deadline) {
          await new Promise((resolve) => {
            counters.waiting.push(resolve)
            setTimeout(resolve, deadline - Date.now())
          })
        }
        return text(String(counters.cancelled))
      },
      object({ atLeast: { type: "integer" } })
    )

    // A question the server takes back: a 2025-era elicitation/create that test_cancel_questions cancels
    // (notifications/cancelled to the client), then the call ends saying so. 2025 era only.
    tool(
      "test_cancelled_question",
      "Asks the client a question, until test_cancel_questions takes it back",
      async (_a, ctx) => {
        const controller = new AbortController()
        counters.asking.push(controller)
        try {
          const answer = await ctx.mcpReq.elicitInput({
            mode: "form",
            message: "A question the server will take back",
            requestedSchema: { type: "object", properties: { answer: { type: "string" } } }
          }, { signal: controller.signal, timeout: 600_000 })
          return text(`answered: ${answer.action}`)
        } catch (error) {
          return text(`question taken back: ${controller.signal.aborted ? "aborted" : String(error)}`)
        }
      }
    )
    tool("test_cancel_questions", "Takes back every question test_cancelled_question is asking", async () => {
      const asking = counters.asking.splice(0)
      for (const controller of asking) controller.abort("the server took its question back")
      return text(String(asking.length))
    })
    // The URIs this process was asked to watch (resources/subscribe, not yet unsubscribed), as JSON.
    tool(
      "test_subscriptions",
      "The resource URIs this process has subscriptions for",
      async () => text(JSON.stringify([...subscriptions].sort()))
    )
    // A large result: `chars` characters of text, numbered lines of 100 characters (the last one cut).
    tool(
      "test_large_text",
      "Returns chars characters of text",
      async ({ chars }) => text(largeText(chars)),
      object({
        chars: { type: "integer" }
      }, ["chars"])
    )

    // SEP-2575 diagnostics (server-stateless).
    tool(
      "test_missing_capability",
      "Needs the sampling capability (an input round)",
      async (_args, ctx) =>
        ctx.mcpReq.inputResponses?.["llm_answer"] === undefined
          ? inputRequired({
            inputRequests: {
              llm_answer: inputRequired.createMessage({
                messages: [{ role: "user", content: { type: "text", text: "Reply with the single word: pong" } }],
                maxTokens: 16
              })
            }
          })
          : text("sampling round-trip complete")
    )
    tool("test_streaming_elicitation", "A plain result stream", async () => text("stream observed"))
    tool("test_logging_tool", "Logs only when the request set a log level", async (_args, ctx) => {
      await ctx.mcpReq.log("info", "test_logging_tool ran")
      return text("logged through the request-scoped channel")
    })
    tool("test_trigger_tool_change", "Announces tools/list_changed", async () => {
      hooks.toolsChanged()
      return text("tools_list_changed published")
    })
    tool("test_trigger_prompt_change", "Announces prompts/list_changed", async () => {
      hooks.promptsChanged()
      return text("prompts_list_changed published")
    })

    // SEP-2322 input rounds (2026-07-28).
    tool("test_input_required_result_elicitation", "Asks for a name in an input round", async (_args, ctx) => {
      const name = acceptedContent(ctx.mcpReq.inputResponses, "user_name")?.name
      return typeof name === "string"
        ? text(`Hello, ${name}!`)
        : inputRequired({ inputRequests: { user_name: ask("What is your name?", "name") } })
    })
    tool("test_input_required_result_sampling", "Asks for a completion in an input round", async (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.["capital_question"]
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
              maxTokens: 100
            })
          }
        })
      }
      return text(`Sampling response: ${answer.content?.text ?? JSON.stringify(answer)}`)
    })
    tool("test_input_required_result_list_roots", "Asks for the roots in an input round", async (_args, ctx) => {
      const roots = ctx.mcpReq.inputResponses?.["client_roots"]?.roots
      return Array.isArray(roots)
        ? text(`Client exposed ${roots.length} root(s): ${roots.map((root) => root.uri).join(", ")}`)
        : inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } })
    })
    tool("test_input_required_result_request_state", "An input round with a sealed requestState", async (_a, ctx) => {
      if (acceptedContent(ctx.mcpReq.inputResponses, "confirm") === undefined) {
        return inputRequired({
          inputRequests: { confirm: ask("Please confirm", "ok", "boolean") },
          requestState: await codec.mint({ tool: "request_state", nonce: randomUUID() })
        })
      }
      if (ctx.mcpReq.requestState() === undefined) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid requestState")
      }
      return text("state-ok: requestState verified and confirmation received")
    })
    tool("test_input_required_result_multiple_inputs", "Three input requests in one round", async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses
      const name = acceptedContent(responses, "user_name")?.name
      const greeting = responses?.["greeting"]?.content?.text
      const roots = responses?.["client_roots"]?.roots
      if (typeof name === "string" && typeof greeting === "string" && Array.isArray(roots)) {
        return text(`${greeting} ${name} — ${roots.length} root(s) visible`)
      }
      return inputRequired({
        inputRequests: {
          user_name: ask("What is your name?", "name"),
          greeting: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
            maxTokens: 50
          }),
          client_roots: inputRequired.listRoots()
        },
        requestState: await codec.mint({ tool: "multiple_inputs", nonce: randomUUID() })
      })
    })
    tool("test_input_required_result_multi_round", "Two rounds, the state changing between them", async (_a, ctx) => {
      const state = ctx.mcpReq.requestState()
      const round = state?.tool === "multi_round" && typeof state.round === "number" ? state.round : 0
      if (round === 0) {
        return inputRequired({
          inputRequests: { step1: ask("Step 1: What is your name?", "name") },
          requestState: await codec.mint({ tool: "multi_round", round: 1, nonce: randomUUID() })
        })
      }
      if (round === 1) {
        const name = acceptedContent(ctx.mcpReq.inputResponses, "step1")?.name ?? "unknown"
        return inputRequired({
          inputRequests: { step2: ask("Step 2: What is your favorite color?", "color") },
          requestState: await codec.mint({ tool: "multi_round", round: 2, name, nonce: randomUUID() })
        })
      }
      const color = acceptedContent(ctx.mcpReq.inputResponses, "step2")?.color ?? "unknown"
      return text(`Multi-round complete: ${String(state?.name ?? "unknown")} likes ${color}`)
    })
    tool(
      "test_input_required_result_tampered_state",
      "Refuses a requestState that fails its seal",
      async (_a, ctx) =>
        ctx.mcpReq.requestState() !== undefined && acceptedContent(ctx.mcpReq.inputResponses, "confirm") !== undefined
          ? text("integrity-ok: requestState verified")
          : inputRequired({
            inputRequests: { confirm: ask("Please confirm", "ok", "boolean") },
            requestState: await codec.mint({ tool: "tampered_state", nonce: randomUUID() })
          })
    )
    tool("test_input_required_result_capabilities", "Asks only for what the client declared", async (_a, ctx) => {
      if (ctx.mcpReq.inputResponses !== undefined) return text("Capability-aware input requests fulfilled")
      const declared = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY]
      const inputRequests = {}
      if (declared?.elicitation !== undefined) inputRequests.user_name = ask("What is your name?", "name")
      if (declared?.sampling !== undefined) {
        inputRequests.greeting = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Generate a short greeting" } }],
          maxTokens: 50
        })
      }
      if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots()
      return Object.keys(inputRequests).length === 0
        ? text("No declared client capability supports an in-band input request")
        : inputRequired({ inputRequests })
    })

    // Resources.
    const resource = (name, uri, mimeType, contents) =>
      server.registerResource(name, uri, { title: name, description: `The ${name} resource`, mimeType }, async () => ({
        contents: [{ uri, mimeType, ...contents }]
      }))
    resource("static-text", "test://static-text", "text/plain", {
      text: "This is the content of the static text resource."
    })
    resource("static-binary", "test://static-binary", "image/png", { blob: IMAGE })
    resource("watched-resource", "test://watched-resource", "text/plain", { text: "Watched resource content" })
    server.registerResource(
      "template",
      new ResourceTemplate("test://template/{id}/data", { list: undefined }),
      { title: "Resource Template", description: "A template with one parameter", mimeType: "application/json" },
      async (uri, { id }) => ({
        contents: [{
          uri: uri.toString(),
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` })
        }]
      })
    )
    server.server.setRequestHandler("resources/subscribe", async (request) => {
      subscriptions.add(request.params.uri)
      log("info", `Subscribed to resource: ${request.params.uri}`)
      return {}
    })
    server.server.setRequestHandler("resources/unsubscribe", async (request) => {
      subscriptions.delete(request.params.uri)
      log("info", `Unsubscribed from resource: ${request.params.uri}`)
      return {}
    })

    // Prompts.
    const user = (content) => ({ role: "user", content })
    server.registerPrompt(
      "test_simple_prompt",
      { title: "Simple Test Prompt", description: "No arguments" },
      async () => ({
        messages: [user({ type: "text", text: "This is a simple prompt for testing." })]
      })
    )
    server.registerPrompt(
      "test_prompt_with_arguments",
      {
        title: "Prompt With Arguments",
        description: "Two required arguments",
        argsSchema: object({
          arg1: { type: "string", description: "First test argument" },
          arg2: { type: "string", description: "Second test argument" }
        }, ["arg1", "arg2"])
      },
      async ({ arg1, arg2 }) => ({
        messages: [user({ type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })]
      })
    )
    server.registerPrompt(
      "test_prompt_with_embedded_resource",
      {
        title: "Prompt With Embedded Resource",
        description: "Embeds a resource",
        argsSchema: object({ resourceUri: { type: "string", description: "URI of the resource to embed" } }, [
          "resourceUri"
        ])
      },
      async ({ resourceUri }) => ({
        messages: [
          user({
            type: "resource",
            resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
          }),
          user({ type: "text", text: "Please process the embedded resource above." })
        ]
      })
    )
    server.registerPrompt(
      "test_prompt_with_image",
      { title: "Prompt With Image", description: "Includes an image" },
      async () => ({
        messages: [
          user({ type: "image", data: IMAGE, mimeType: "image/png" }),
          user({ type: "text", text: "Please analyze the image above." })
        ]
      })
    )
    server.registerPrompt(
      "test_input_required_result_prompt",
      { title: "MRTR Prompt", description: "Asks for context in an input round before rendering" },
      async (ctx) => {
        const context = acceptedContent(ctx.mcpReq.inputResponses, "user_context")?.context
        return typeof context === "string"
          ? { messages: [user({ type: "text", text: `Use the following context: ${context}` })] }
          : inputRequired({ inputRequests: { user_context: ask("What context should the prompt use?", "context") } })
      }
    )

    // Logging and completion.
    server.server.setRequestHandler("logging/setLevel", async (request) => {
      log("info", `Log level set to: ${request.params.level}`)
      return {}
    })
    server.server.setRequestHandler("completion/complete", async () => ({
      completion: { values: [], total: 0, hasMore: false }
    }))
    return server
  }
}
