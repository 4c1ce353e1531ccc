// The `tasks` mode (2025-11-25, SEP-1686): the server declares the `tasks` capability and lists a tool
// `research` whose `execution.taskSupport` is `required`. A task-augmented call (`task: { ttl? }`) gets a task at
// once; the task then moves one step every `interval` ms (a `notifications/tasks/status` each time, `statusMessage`
// "step i of N") and completes after `steps` steps with a text result. It answers `tasks/get`, `tasks/result` (held
// until the task ends), `tasks/list` and `tasks/cancel` (-32602 for an unknown task or one that already ended).
// Plain JavaScript with JSDoc, as the rest of the fake server.

/** The tool the mode adds. */
export const RESEARCH_TOOL = {
  name: "research",
  description: "Researches a topic as a task: one status per step, then a text result.",
  inputSchema: {
    type: "object",
    properties: {
      topic: { type: "string" },
      steps: { type: "integer", minimum: 0 },
      interval: { type: "integer", minimum: 1 }
    }
  },
  execution: { taskSupport: "required" }
}

/** The `tasks` capability the mode declares. */
export const CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } }

const TERMINAL = new Set(["completed", "failed", "cancelled"])

/**
 * The mode's tasks over `send` (one JSON-RPC message), `answer(id, result)` and `fail(id, code, message)`.
 * `interval` is the default time between steps (the server's `delay` option).
 *
 * @param {{ send: (message: unknown) => void, answer: (id: unknown, result: unknown) => void, fail: (id: unknown, code: number, message: string) => void, interval: number }} io
 */
export const make = ({ answer, fail, interval, send }) => {
  /** @type {Map<string, { taskId: string, status: string, statusMessage: string, createdAt: string, lastUpdatedAt: string, ttl: number | null, pollInterval: number, result: unknown, waiting: Array<unknown>, timer: ReturnType<typeof setTimeout> | undefined }>} */
  const tasks = new Map()
  let counter = 0
  const wire = (task) => ({
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttl,
    pollInterval: task.pollInterval
  })
  const move = (task, status, statusMessage) => {
    task.status = status
    task.statusMessage = statusMessage
    task.lastUpdatedAt = new Date().toISOString()
    send({ jsonrpc: "2.0", method: "notifications/tasks/status", params: wire(task) })
    if (TERMINAL.has(status)) {
      if (task.timer !== undefined) clearTimeout(task.timer)
      for (const id of task.waiting.splice(0)) settle(id, task)
    }
  }
  const settle = (id, task) =>
    task.status === "cancelled"
      ? fail(id, -32603, `Task ${task.taskId} was cancelled and has no result`)
      : answer(id, { ...task.result, _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } } })

  /** A `tools/call` of `research`. */
  const call = (id, params) => {
    const args = typeof params.arguments === "object" && params.arguments !== null ? params.arguments : {}
    if (typeof params.task !== "object" || params.task === null) {
      return fail(id, -32601, "research requires task augmentation (taskSupport: required)")
    }
    const steps = Number.isSafeInteger(args.steps) && args.steps >= 0 ? args.steps : 3
    const every = Number.isSafeInteger(args.interval) && args.interval > 0 ? args.interval : interval
    const now = new Date().toISOString()
    const taskId = `task-${process.pid}-${++counter}`
    const ttl = typeof params.task.ttl === "number" ? params.task.ttl : 60_000
    const task = {
      taskId,
      status: "working",
      statusMessage: `step 0 of ${steps}`,
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: every,
      result: { content: [{ type: "text", text: `researched ${String(args.topic ?? "nothing")} in ${steps} steps` }] },
      waiting: [],
      timer: undefined
    }
    tasks.set(taskId, task)
    let step = 0
    const next = () => {
      task.timer = undefined
      if (TERMINAL.has(task.status)) return
      step += 1
      if (step > steps) return move(task, "completed", `step ${steps} of ${steps}`)
      move(task, "working", `step ${step} of ${steps}`)
      task.timer = setTimeout(next, every)
    }
    task.timer = setTimeout(next, every)
    answer(id, { task: wire(task) })
  }

  /** Whether `method` is one of the mode's. */
  const handles = (method) => method.startsWith("tasks/")

  /** A `tasks/*` request. */
  const request = (id, method, params) => {
    const taskId = typeof params.taskId === "string" ? params.taskId : undefined
    const task = taskId === undefined ? undefined : tasks.get(taskId)
    if (method === "tasks/list") return answer(id, { tasks: [...tasks.values()].map(wire) })
    if (task === undefined) return fail(id, -32602, `Failed to retrieve task: Task not found`)
    switch (method) {
      case "tasks/get":
        return answer(id, wire(task))
      case "tasks/result":
        if (TERMINAL.has(task.status)) return settle(id, task)
        task.waiting.push(id)
        return
      case "tasks/cancel":
        if (TERMINAL.has(task.status)) {
          return fail(id, -32602, `Cannot cancel task: already in terminal status '${task.status}'`)
        }
        move(task, "cancelled", "The task was cancelled by request.")
        return answer(id, wire(task))
      default:
        return fail(id, -32601, `Method not found: ${method}`)
    }
  }

  return { call, handles, request }
}
