/**
 * The rules a `sampling/createMessage` and its answer must keep (2025-11-25, sampling with tools), checked before the
 * handler sees a request and before an answer is sent:
 *
 * - a request with `tools` or `toolChoice`, or with tool blocks in its messages, is for a handler that takes tools
 *   (the client declared `sampling.tools`); otherwise the spec says the client MUST return an error;
 * - a user message that holds a `tool_result` holds nothing else, and `tool_use` blocks are the assistant's;
 * - every assistant message with `tool_use` blocks is followed by a user message of `tool_result`s answering each
 *   of them, before any other message; a `tool_result` answers a `tool_use` of the message before it;
 * - an answer with `tool_use` blocks is the assistant's, to a request that offered tools and did not forbid them
 *   (`toolChoice: { mode: "none" }`).
 *
 * Each check returns why the message breaks a rule, or `undefined`.
 *
 * @internal
 */
import * as Sampling from "../Sampling.ts"

type Block = Sampling.ContentBlock

const isList = (content: Sampling.Message["content"]): content is ReadonlyArray<Block> => Array.isArray(content)

const blocksOf = (content: Sampling.Message["content"]): ReadonlyArray<Block> => isList(content) ? content : [content]

const isToolBlock = (block: Block): boolean => block.type === "tool_use" || block.type === "tool_result"

/** Why the request's messages break a tool rule, or `undefined`. */
const messageRules = (messages: ReadonlyArray<Sampling.Message>): string | undefined => {
  let open: Set<string> | undefined
  for (const [index, message] of messages.entries()) {
    const blocks = blocksOf(message.content)
    const uses = blocks.filter((block) => block.type === "tool_use")
    const results = blocks.filter((block) => block.type === "tool_result")
    for (const block of uses) {
      if (!Sampling.isToolUse(block)) return `message ${index} has a tool_use block without an id, a name or an input`
    }
    for (const block of results) {
      if (!Sampling.isToolResult(block)) {
        return `message ${index} has a tool_result block without a toolUseId or content`
      }
    }
    if (open !== undefined) {
      // The message after an assistant's tool uses: the user's results for every one of them, and nothing else.
      if (message.role !== "user" || results.length === 0 || results.length !== blocks.length) {
        return `message ${index} must be the user's tool_result blocks for the tool_use blocks of message ${index - 1}`
      }
      const answered = new Set(results.map((block) => String(block["toolUseId"])))
      const missing = [...open].filter((id) => !answered.has(id))
      if (missing.length > 0) return `message ${index} has no tool_result for tool_use ${JSON.stringify(missing[0])}`
      const unknown = [...answered].find((id) => !open?.has(id))
      if (unknown !== undefined) {
        return `message ${index} has a tool_result for ${JSON.stringify(unknown)}, which no tool_use asked for`
      }
      open = undefined
      continue
    }
    if (results.length > 0) {
      return message.role === "user"
        ? `message ${index} has a tool_result that answers no tool_use of the message before it`
        : `message ${index} is the assistant's but has a tool_result block`
    }
    if (uses.length > 0) {
      if (message.role !== "assistant") return `message ${index} is the user's but has a tool_use block`
      open = new Set(uses.map((block) => String(block["id"])))
    }
  }
  return open === undefined ? undefined : `the last message's tool_use blocks have no tool_result`
}

/**
 * Why `params` cannot be given to a handler that takes tools (`tools`) or not, or `undefined`.
 *
 * @internal
 */
export const request = (params: Sampling.CreateMessageParams, tools: boolean): string | undefined => {
  const withTools = params.tools !== undefined || params.toolChoice !== undefined ||
    params.messages.some((message) => blocksOf(message.content).some(isToolBlock))
  if (withTools && !tools) {
    return "This client does not take tools in sampling (it did not declare sampling.tools)."
  }
  const broken = messageRules(params.messages)
  return broken === undefined ? undefined : `sampling/createMessage messages: ${broken}`
}

/**
 * Why `answer` cannot be sent for `params`, or `undefined`.
 *
 * @internal
 */
export const answer = (
  params: Sampling.CreateMessageParams,
  result: Sampling.CreateMessageResult
): string | undefined => {
  const blocks = blocksOf(result.content)
  if (blocks.some((block) => block.type === "tool_result")) return "the answer has a tool_result block"
  const uses = blocks.filter((block) => block.type === "tool_use")
  if (uses.length === 0) return undefined
  if (!uses.every(Sampling.isToolUse)) return "the answer has a tool_use block without an id, a name or an input"
  if (result.role !== "assistant") return "the answer's tool_use blocks are not the assistant's"
  if (params.tools === undefined || params.tools.length === 0) return "the answer uses a tool, but none was offered"
  if (params.toolChoice?.mode === "none") return "the answer uses a tool, but toolChoice is none"
  const offered = new Set(params.tools.map((tool) => tool.name))
  const unknown = uses.find((block) => !offered.has(String(block["name"])))
  return unknown === undefined
    ? undefined
    : `the answer uses the tool ${JSON.stringify(unknown["name"])}, which was not offered`
}
