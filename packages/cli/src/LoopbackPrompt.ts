/**
 * The CLI's `AuthorizationPrompt` (RFC 8252 loopback redirect): a listener on 127.0.0.1 with a random port
 * receives the authorization server's redirect at `/callback`. The authorization URL is printed (on stderr) and
 * opened in a browser only when one is configured (`$BROWSER`). Only a redirect that carries the `state` of the
 * authorization under way is taken: any other request to `/callback` (a wrong or missing `state`, as any local
 * process could send before the browser does) is answered 400 and the listener keeps waiting. When nobody comes
 * back before the deadline the prompt fails with `PromptFailed` saying so, and the listener is closed with its
 * scope: nothing hangs.
 *
 * @since 0.2.0
 */
import * as AuthorizationPrompt from "@mcp-fleet/auth/AuthorizationPrompt"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { IncomingMessage, Server, ServerResponse } from "node:http"

/**
 * What `make` needs.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** How long to wait for the user to come back; default 5 minutes. */
  readonly timeout?: Duration.Input | undefined
  /** Shows the URL to the user. */
  readonly show: (url: string) => Effect.Effect<void>
  /** Opens the URL in a browser, when one is configured. */
  readonly open?: ((url: string) => Effect.Effect<void>) | undefined
}

/**
 * A listening loopback prompt: its redirect URI (give it to `McpAuth.layer`) and the prompt service.
 *
 * @since 0.2.0
 * @category models
 */
export interface Loopback {
  readonly redirectUri: string
  readonly prompt: AuthorizationPrompt.AuthorizationPrompt["Service"]
}

/**
 * The path the redirect comes back to.
 *
 * @since 0.2.0
 * @category constants
 */
export const CALLBACK_PATH = "/callback"

const PAGE = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>mcp-fleet</title><p>${title}</p><p>You can close this tab.</p>\n`

// `node:http` is imported by the login that listens, not with the CLI: its ES module facade loads undici, which
// costs every other command about 40 ms of CPU and 12 MB of memory.
const listen = Effect.flatMap(
  Effect.promise(() => import("node:http")),
  (http) =>
    Effect.callback<Server, AuthorizationPrompt.PromptFailed>((resume) => {
      const server = http.createServer()
      server.once(
        "error",
        (cause) =>
          resume(
            Effect.fail(new AuthorizationPrompt.PromptFailed({ reason: "no loopback port could be opened", cause }))
          )
      )
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    })
)

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })

/**
 * Opens the listener in the current scope.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Loopback, AuthorizationPrompt.PromptFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const callbacks = yield* Queue.unbounded<AuthorizationPrompt.Callback>()
    const server = yield* Effect.acquireRelease(listen, close)
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`
    /** The `state` of the authorization under way; a callback without it is not the browser's. */
    let expectedState: string | undefined
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", redirectUri)
      if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found\n")
        return
      }
      const callback = AuthorizationPrompt.callbackFromRedirect(url)
      if (expectedState === undefined || callback.state !== expectedState) {
        res.writeHead(400, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
          .end(PAGE("This is not the authorization mcp-fleet is waiting for (its state does not match)."))
        return
      }
      expectedState = undefined // the first matching callback is the answer; a replay of it is refused too
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(
          PAGE(
            callback.error === undefined ? "mcp-fleet received the authorization." : "The authorization was refused."
          )
        )
      Queue.offerUnsafe(callbacks, callback)
    })
    const timeout = Duration.fromInputUnsafe(options.timeout ?? "5 minutes")
    const prompt = AuthorizationPrompt.AuthorizationPrompt.of({
      authorize: (request) =>
        Effect.gen(function*() {
          yield* Effect.sync(() => {
            expectedState = request.url.searchParams.get("state") ?? undefined
          })
          yield* options.show(request.url.href)
          if (options.open !== undefined) yield* options.open(request.url.href)
          return yield* Queue.take(callbacks)
        }).pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.fail(
                new AuthorizationPrompt.PromptFailed({
                  reason: `nobody came back to ${redirectUri} within ${Duration.format(timeout)}`
                })
              )
          })
        )
    })
    return { redirectUri, prompt }
  })
