// A small OAuth 2.1 authorization server plus one protected MCP-like endpoint, for tests: plain JavaScript,
// no dependencies, 127.0.0.1 on an ephemeral port. It serves Protected Resource Metadata (RFC 9728),
// authorization-server metadata (RFC 8414), Dynamic Client Registration (RFC 7591), an /authorize endpoint
// that redirects straight back with a code (no user), and a token endpoint with PKCE checks, refresh-token
// rotation and client authentication. Faults are switched on by options.
import { createHash } from "node:crypto"
import { createServer } from "node:http"

/**
 * @typedef {object} AuthServerOptions
 * @property {boolean} [wrongIssuer] metadata names another issuer
 * @property {boolean} [noPkce] metadata omits code_challenge_methods_supported
 * @property {boolean} [revokedRefresh] every refresh_token grant answers invalid_grant
 * @property {boolean} [htmlToken] the token endpoint answers an HTML page
 * @property {boolean} [hugeToken] the token endpoint answers 1 MiB of JSON
 * @property {boolean} [scopeLoop] the MCP endpoint always answers 403 insufficient_scope
 * @property {boolean} [slowToken] the token endpoint never answers (until the server closes)
 * @property {boolean} [issInResponse] the redirect carries iss, and the metadata advertises it
 * @property {string} [wrongIss] the redirect carries this iss instead of the issuer
 * @property {boolean} [cimd] metadata advertises client_id_metadata_document_supported
 * @property {boolean} [noRegistration] metadata has no registration_endpoint
 * @property {"header" | "path" | "root"} [prm] where the PRM is found (default header: the challenge names it)
 * @property {string} [issuerPath] a path for the issuer, e.g. "/tenant1" (metadata by path insertion)
 * @property {string[]} [authMethods] token_endpoint_auth_methods_supported (default: basic, post, none)
 * @property {string[]} [scopesSupported] scopes_supported of the PRM
 * @property {string} [challengeScope] the scope the 401 challenge names
 * @property {string} [requiredScope] a scope the MCP endpoint needs, else 403 insufficient_scope naming it
 * @property {number} [expiresIn] access token lifetime in seconds (default 3600)
 * @property {boolean} [offlineAccess] AS metadata lists offline_access in scopes_supported
 * @property {boolean} [insecureTokenEndpoint] AS metadata names a plain-HTTP token endpoint on another host
 * @property {boolean} [echoGrantError] the token endpoint answers 400 whose error echoes the code or refresh token sent
 * @property {boolean} [echoToken] tools/call answers HTTP 500 whose body and WWW-Authenticate echo the bearer token
 * @property {boolean} [echoHeaders] tools/call answers a text that echoes every header of the request (the bearer
 *   token and configured headers included): a result, or with the argument `outcome: "isError"` a result with
 *   isError, or with `outcome: "error"` a JSON-RPC error whose message echoes them
 * @property {{ clientId: string, clientSecret?: string }} [preRegistered] a client known beforehand
 * @property {boolean} [separateAuthorizationServer] the authorization server (its metadata, /register, /authorize,
 *   /token) listens on its own origin (another port); the MCP origin serves only the PRM and the MCP endpoints
 * @property {(issued: Record<string, unknown>, client: { clientId: string, clientSecret: string | undefined }) => string} [tokenJson]
 *   the token endpoint's 200 body, made from the token response it would have sent and the client it authenticated
 *   (hostile lifetimes, oversize fields, an echoed client secret)
 * @property {(document: Record<string, unknown>) => Record<string, unknown>} [asMetadata] rewrites the
 *   authorization-server metadata (hostile endpoints)
 * @property {(document: Record<string, unknown>) => Record<string, unknown>} [prmDocument] rewrites the Protected
 *   Resource Metadata (a broader resource, other authorization servers)
 * @property {string} [resourceMetadataUrl] the 401 challenge names this resource_metadata URL (whatever `prm` says)
 * @property {boolean | "refresh"} [echoClientSecret] the token endpoint answers 400 whose error echoes the client
 *   secret of the client_secret_basic Authorization header (every grant, or only refresh_token grants)
 * @property {{ endpoint?: string }} [legacySse] also serve a legacy HTTP+SSE MCP server at /sse whose endpoint
 *   event names `endpoint` (default /messages?sessionId=…); its POSTs need a token issued for the resource
 *   <origin>/sse, answered on the stream
 */

/**
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} query
 * @property {Record<string, string | string[] | undefined>} headers
 * @property {Record<string, string>} form the urlencoded body, parsed
 * @property {unknown} json the JSON body, parsed (undefined when not JSON)
 * @property {"resource" | "authorization"} listener which origin received it (they differ only with
 *   separateAuthorizationServer)
 */

/**
 * @typedef {object} AuthServer
 * @property {string} origin e.g. http://127.0.0.1:40123
 * @property {string} issuer
 * @property {string} mcpUrl the protected endpoint
 * @property {string} asOrigin the authorization server's origin (the MCP origin unless separateAuthorizationServer)
 * @property {string} sseUrl the legacy HTTP+SSE endpoint (with legacySse)
 * @property {RecordedRequest[]} requests every request, in order
 * @property {(predicate: (r: RecordedRequest) => boolean) => Promise<RecordedRequest>} waitFor resolves at the first matching request
 * @property {(accessToken: string) => void} revoke makes an access token invalid (the endpoint answers 401)
 * @property {(scope: string | undefined) => void} requireScope from now on tools/call needs this scope (else 403 insufficient_scope)
 * @property {() => Promise<void>} close closes every connection and the listener
 */

/** @param {string} verifier */
const s256 = (verifier) => createHash("sha256").update(verifier).digest("base64url")

/**
 * Starts the server.
 *
 * @param {AuthServerOptions} [options]
 * @returns {Promise<AuthServer>}
 */
export const startAuthServer = (options = {}) =>
  new Promise((resolve, reject) => {
    /** @type {RecordedRequest[]} */
    const requests = []
    /** @type {Array<{ predicate: (r: RecordedRequest) => boolean, resolve: (r: RecordedRequest) => void }>} */
    let waiters = []
    /** @type {Map<string, { secret: string | undefined, method: string, redirectUris: string[] }>} */
    const clients = new Map()
    /** @type {Map<string, { challenge: string, clientId: string, redirectUri: string, resource: string | undefined, scope: string | undefined }>} */
    const codes = new Map()
    /** @type {Map<string, { scope: string | undefined, resource: string | undefined }>} */
    const accessTokens = new Map()
    /** @type {Map<string, { clientId: string, scope: string | undefined, resource: string | undefined }>} */
    const refreshTokens = new Map()
    let counter = 0
    const next = (/** @type {string} */ prefix) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2)}`
    if (options.preRegistered !== undefined) {
      clients.set(options.preRegistered.clientId, {
        secret: options.preRegistered.clientSecret,
        method: options.preRegistered.clientSecret === undefined ? "none" : "client_secret_basic",
        redirectUris: []
      })
    }

    /** @param {"resource" | "authorization"} listener */
    const handler = (listener) =>
    (
      /** @type {import("node:http").IncomingMessage} */ req,
      /** @type {import("node:http").ServerResponse} */ res
    ) => {
      /** @type {Buffer[]} */
      const chunks = []
      req.on("data", (c) => chunks.push(c))
      req.on("end", () => {
        const url = new URL(req.url ?? "/", listener === "resource" ? origin : asOrigin)
        const text = Buffer.concat(chunks).toString("utf8")
        /** @type {unknown} */
        let json
        try {
          json = text.length > 0 && (req.headers["content-type"] ?? "").includes("json")
            ? JSON.parse(text)
            : undefined
        } catch {
          json = undefined
        }
        /** @type {RecordedRequest} */
        const record = {
          method: req.method ?? "GET",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          form: (req.headers["content-type"] ?? "").includes("x-www-form-urlencoded")
            ? Object.fromEntries(new URLSearchParams(text))
            : {},
          json,
          listener
        }
        requests.push(record)
        waiters = waiters.filter((w) => {
          if (!w.predicate(record)) return true
          w.resolve(record)
          return false
        })
        route(record, res)
      })
    }
    const server = createServer(handler("resource"))
    const asServer = options.separateAuthorizationServer === true ? createServer(handler("authorization")) : undefined

    let origin = ""
    let asOrigin = ""
    let issuer = ""
    let requiredScope = options.requiredScope
    const issuerPath = options.issuerPath ?? ""
    const mcpPath = "/mcp"

    /** @param {import("node:http").ServerResponse} res @param {number} status @param {unknown} body @param {Record<string, string>} [headers] */
    const sendJson = (res, status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers })
      res.end(JSON.stringify(body))
    }

    const prmDocument = (resourcePath = mcpPath) => {
      const document = {
        resource: `${origin}${resourcePath}`,
        authorization_servers: [issuer],
        ...(options.scopesSupported === undefined ? {} : { scopes_supported: options.scopesSupported })
      }
      return options.prmDocument === undefined ? document : options.prmDocument(document)
    }

    const asDocument = () => {
      const document = baseAsDocument()
      return options.asMetadata === undefined ? document : options.asMetadata(document)
    }
    const baseAsDocument = () => ({
      issuer: options.wrongIssuer === true ? "https://wrong-issuer.example" : issuer,
      authorization_endpoint: `${asOrigin}/authorize`,
      token_endpoint: options.insecureTokenEndpoint === true ? "http://token.example/token" : `${asOrigin}/token`,
      ...(options.offlineAccess === true ? { scopes_supported: ["mcp:read", "offline_access"] } : {}),
      ...(options.noRegistration === true ? {} : { registration_endpoint: `${asOrigin}/register` }),
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: options.authMethods ??
        ["client_secret_basic", "client_secret_post", "none"],
      ...(options.noPkce === true ? {} : { code_challenge_methods_supported: ["S256"] }),
      ...(options.cimd === true ? { client_id_metadata_document_supported: true } : {}),
      ...(options.issInResponse === true ? { authorization_response_iss_parameter_supported: true } : {})
    })

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const route = (r, res) => {
      const prmPathBased = `/.well-known/oauth-protected-resource${mcpPath}`
      const prmRoot = "/.well-known/oauth-protected-resource"
      const where = options.prm ?? "header"
      const authorizationListener = options.separateAuthorizationServer === true ? "authorization" : "resource"
      if (r.listener === "resource") {
        if (r.path === prmPathBased && (where === "header" || where === "path")) {
          return sendJson(res, 200, prmDocument())
        }
        if (r.path === prmRoot && where === "root") return sendJson(res, 200, prmDocument())
        if (options.legacySse !== undefined) {
          if (r.path === "/.well-known/oauth-protected-resource/sse") return sendJson(res, 200, prmDocument("/sse"))
          if (r.path === "/sse" && r.method === "GET") return openSse(r, res)
          if (r.method === "POST" && sseSessions.has(r.query["sessionId"] ?? "")) return postSse(r, res)
        }
        if (r.path === mcpPath) return protectedResource(r, res)
      }
      if (r.listener !== authorizationListener) return sendJson(res, 404, { error: "not_found" })
      if (r.path === `/.well-known/oauth-authorization-server${issuerPath}`) return sendJson(res, 200, asDocument())
      if (r.path === "/register" && r.method === "POST" && options.noRegistration !== true) return register(r, res)
      if (r.path === "/authorize") return authorize(r, res)
      if (r.path === "/token" && r.method === "POST") return token(r, res)
      sendJson(res, 404, { error: "not_found" })
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const register = (r, res) => {
      const body = /** @type {Record<string, unknown>} */ (typeof r.json === "object" && r.json !== null ? r.json : {})
      const redirectUris = Array.isArray(body["redirect_uris"]) ? body["redirect_uris"].map(String) : []
      if (redirectUris.length === 0) return sendJson(res, 400, { error: "invalid_redirect_uri" })
      const method = typeof body["token_endpoint_auth_method"] === "string"
        ? body["token_endpoint_auth_method"]
        : "client_secret_basic"
      const clientId = next("client")
      const secret = method === "none" ? undefined : next("secret")
      clients.set(clientId, { secret, method, redirectUris })
      sendJson(res, 201, {
        client_id: clientId,
        ...(secret === undefined ? {} : { client_secret: secret }),
        token_endpoint_auth_method: method,
        redirect_uris: redirectUris
      })
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const authorize = (r, res) => {
      const q = r.query
      const redirectUri = q["redirect_uri"] ?? ""
      const clientId = q["client_id"] ?? ""
      const known = clients.has(clientId) || (options.cimd === true && clientId.startsWith("https://"))
      if (!known || q["code_challenge_method"] !== "S256" || q["code_challenge"] === undefined || redirectUri === "") {
        return sendJson(res, 400, { error: "invalid_request" })
      }
      const code = next("code")
      codes.set(code, {
        challenge: q["code_challenge"],
        clientId,
        redirectUri,
        resource: q["resource"],
        scope: q["scope"]
      })
      const location = new URL(redirectUri)
      location.searchParams.set("code", code)
      if (q["state"] !== undefined) location.searchParams.set("state", q["state"])
      if (options.wrongIss !== undefined) location.searchParams.set("iss", options.wrongIss)
      else if (options.issInResponse === true) location.searchParams.set("iss", issuer)
      res.writeHead(302, { location: location.href })
      res.end()
    }

    /** @param {RecordedRequest} r @returns {string | undefined} the authenticated client id */
    const authenticate = (r) => {
      const header = r.headers["authorization"]
      if (typeof header === "string" && header.startsWith("Basic ")) {
        const [id = "", secret = ""] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":").map((s) =>
          decodeURIComponent(s.replace(/\+/g, " "))
        )
        const client = clients.get(id)
        return client !== undefined && client.secret === secret && client.method === "client_secret_basic"
          ? id
          : undefined
      }
      const id = r.form["client_id"] ?? ""
      const client = clients.get(id)
      if (client === undefined) return options.cimd === true && id.startsWith("https://") ? id : undefined
      if (client.method === "client_secret_post") return client.secret === r.form["client_secret"] ? id : undefined
      return client.secret === undefined ? id : undefined
    }

    /** @param {string | undefined} scope @param {string | undefined} resource */
    const issue = (scope, resource, /** @type {string} */ clientId) => {
      const access = next("at")
      const refresh = next("rt")
      accessTokens.set(access, { scope, resource })
      refreshTokens.set(refresh, { clientId, scope, resource })
      return {
        access_token: access,
        token_type: "Bearer",
        expires_in: options.expiresIn ?? 3600,
        refresh_token: refresh,
        ...(scope === undefined ? {} : { scope })
      }
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const token = (r, res) => {
      if (options.slowToken === true) return // never answered; close() ends the connection
      if (options.hugeToken === true) {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify({ access_token: "x".repeat(1024 * 1024), token_type: "Bearer" }))
      }
      if (options.htmlToken === true) {
        res.writeHead(200, { "content-type": "text/html" })
        return res.end("<html><body>Sign in</body></html>")
      }
      if (
        options.echoClientSecret === true ||
        (options.echoClientSecret === "refresh" && r.form["grant_type"] === "refresh_token")
      ) {
        const header = String(r.headers["authorization"] ?? "")
        const secret = header.startsWith("Basic ")
          ? decodeURIComponent(Buffer.from(header.slice(6), "base64").toString("utf8").split(":")[1] ?? "")
          : ""
        return sendJson(res, 400, { error: `invalid_client ${secret} ${header}` })
      }
      if (options.echoGrantError === true) {
        return sendJson(res, 400, { error: `invalid_grant ${r.form["code"] ?? r.form["refresh_token"] ?? ""}` })
      }
      const clientId = authenticate(r)
      if (clientId === undefined) return sendJson(res, 401, { error: "invalid_client" })
      const f = r.form
      if (f["grant_type"] === "authorization_code") {
        const grant = codes.get(f["code"] ?? "")
        codes.delete(f["code"] ?? "")
        if (grant === undefined || grant.clientId !== clientId || grant.redirectUri !== f["redirect_uri"]) {
          return sendJson(res, 400, { error: "invalid_grant" })
        }
        if (s256(f["code_verifier"] ?? "") !== grant.challenge) return sendJson(res, 400, { error: "invalid_grant" })
        if (grant.resource !== f["resource"]) return sendJson(res, 400, { error: "invalid_target" })
        return sendToken(res, issue(grant.scope, grant.resource, clientId), clientId)
      }
      if (f["grant_type"] === "refresh_token") {
        const old = refreshTokens.get(f["refresh_token"] ?? "")
        if (options.revokedRefresh === true || old === undefined || old.clientId !== clientId) {
          return sendJson(res, 400, { error: "invalid_grant" })
        }
        refreshTokens.delete(f["refresh_token"] ?? "") // rotation: the old one is spent
        return sendToken(res, issue(old.scope, old.resource, clientId), clientId)
      }
      sendJson(res, 400, { error: "unsupported_grant_type" })
    }

    /** @param {import("node:http").ServerResponse} res @param {Record<string, unknown>} issued */
    const sendToken = (res, issued, /** @type {string} */ clientId) => {
      if (options.tokenJson === undefined) return sendJson(res, 200, issued)
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      res.end(options.tokenJson(issued, { clientId, clientSecret: clients.get(clientId)?.secret }))
    }

    /** @param {string} path */
    const challengeFor = (path) => {
      const params = [
        ...((options.prm ?? "header") === "header" || options.resourceMetadataUrl !== undefined
          ? [
            `resource_metadata="${
              options.resourceMetadataUrl ?? `${origin}/.well-known/oauth-protected-resource${path}`
            }"`
          ]
          : []),
        ...(options.challengeScope === undefined ? [] : [`scope="${options.challengeScope}"`])
      ]
      return `Bearer ${params.join(", ")}`.trim()
    }

    /** @type {Map<string, import("node:http").ServerResponse>} */
    const sseSessions = new Map()

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const openSse = (r, res) => {
      if (bearerFor(r, `${origin}/sse`) === undefined) {
        res.writeHead(401, { "www-authenticate": challengeFor("/sse") })
        return res.end()
      }
      const sessionId = next("sse")
      sseSessions.set(sessionId, res)
      res.on("close", () => sseSessions.delete(sessionId))
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      const endpoint = options.legacySse?.endpoint ?? "/messages"
      const target = new URL(endpoint, origin)
      target.searchParams.set("sessionId", sessionId)
      const named = /^https?:/.test(endpoint) ? target.href : `${target.pathname}${target.search}`
      res.write(`event: endpoint\ndata: ${named}\n\n`)
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const postSse = (r, res) => {
      const stream = sseSessions.get(r.query["sessionId"] ?? "")
      if (bearerFor(r, `${origin}/sse`) === undefined || stream === undefined) {
        res.writeHead(401, { "www-authenticate": challengeFor("/sse") })
        return res.end()
      }
      res.writeHead(202)
      res.end()
      const rpc =
        /** @type {{ id?: unknown, method?: unknown, params?: { protocolVersion?: unknown } } | undefined} */ (
          typeof r.json === "object" && r.json !== null ? r.json : undefined
        )
      const answer = rpc === undefined || rpc.id === undefined ? undefined : rpcAnswer(rpc)
      if (answer !== undefined) stream.write(`event: message\ndata: ${JSON.stringify(answer)}\n\n`)
    }

    /**
     * The held access token of a request when it was issued for `resource`, else undefined.
     *
     * @param {RecordedRequest} r @param {string} resource
     */
    const bearerFor = (r, resource) => {
      const header = r.headers["authorization"]
      const held = typeof header === "string" && header.startsWith("Bearer ")
        ? accessTokens.get(header.slice(7))
        : undefined
      return held !== undefined && held.resource === resource ? held : undefined
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const protectedResource = (r, res) => {
      const header = r.headers["authorization"]
      const held = typeof header === "string" && header.startsWith("Bearer ")
        ? accessTokens.get(header.slice(7))
        : undefined
      if (held === undefined) {
        res.writeHead(401, { "www-authenticate": challengeFor(mcpPath) })
        return res.end()
      }
      if (r.method === "GET") {
        // No server-to-client stream here (a streamable HTTP server may refuse the GET with 405).
        res.writeHead(405)
        return res.end()
      }
      const scopes = (held.scope ?? "").split(" ")
      const rpc =
        /** @type {{ id?: unknown, method?: unknown, params?: { protocolVersion?: unknown } } | undefined} */ (
          typeof r.json === "object" && r.json !== null ? r.json : undefined
        )
      // The required scope guards tools/call (and a bare POST); initialize and tools/list need only a token.
      const guarded = rpc === undefined || rpc.method === "tools/call"
      if (
        options.scopeLoop === true ||
        (guarded && requiredScope !== undefined && !scopes.includes(requiredScope))
      ) {
        const wanted = requiredScope ?? "more"
        res.writeHead(403, {
          "www-authenticate":
            `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${origin}/.well-known/oauth-protected-resource${mcpPath}"`
        })
        return res.end()
      }
      if (options.echoToken === true && rpc?.method === "tools/call") {
        res.writeHead(500, { "content-type": "text/plain", "www-authenticate": `Bearer error="${header}"` })
        return res.end(`upstream refused the credentials ${header}`)
      }
      if (rpc !== undefined) return answerRpc(rpc, res, r)
      sendJson(res, 200, { ok: true, scope: held.scope ?? null })
    }

    /**
     * A minimal MCP server behind the token: initialize, tools/list (one tool, `whoami`) and tools/call.
     *
     * @param {{ id?: unknown, method?: unknown, params?: { protocolVersion?: unknown } }} rpc
     * @param {import("node:http").ServerResponse} res
     */
    const answerRpc = (rpc, res, /** @type {RecordedRequest} */ r) => {
      if (rpc.id === undefined) {
        res.writeHead(202)
        return res.end()
      }
      sendJson(res, 200, rpcAnswer(rpc, r))
    }

    /**
     * The JSON-RPC answer of the minimal MCP server.
     *
     * @param {{ id?: unknown, method?: unknown, params?: { protocolVersion?: unknown } }} rpc
     */
    const rpcAnswer = (rpc, /** @type {RecordedRequest | undefined} */ r = undefined) => {
      if (options.echoHeaders === true && r !== undefined && rpc.method === "tools/call") {
        const echo = `authorized; you sent ${JSON.stringify(r.headers)}`
        const params = /** @type {{ arguments?: { outcome?: unknown } } | undefined} */ (rpc.params)
        const outcome = params?.arguments?.outcome
        if (outcome === "error") return { jsonrpc: "2.0", id: rpc.id, error: { code: -32000, message: echo } }
        return {
          jsonrpc: "2.0",
          id: rpc.id,
          result: { content: [{ type: "text", text: echo }], ...(outcome === "isError" ? { isError: true } : {}) }
        }
      }
      const result = rpc.method === "initialize"
        ? {
          protocolVersion: typeof rpc.params?.protocolVersion === "string" ? rpc.params.protocolVersion : "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "fake-auth-mcp", version: "0.1.0" }
        }
        : rpc.method === "tools/list"
        ? { tools: [{ name: "whoami", description: "Says who called", inputSchema: { type: "object" } }] }
        : rpc.method === "tools/call"
        ? { content: [{ type: "text", text: "authorized" }] }
        : undefined
      return result === undefined
        ? { jsonrpc: "2.0", id: rpc.id, error: { code: -32601, message: "Method not found" } }
        : { jsonrpc: "2.0", id: rpc.id, result }
    }

    server.on("error", reject)
    asServer?.on("error", reject)
    /** @param {import("node:http").Server} listener @returns {Promise<string>} */
    const listen = (listener) =>
      new Promise((resolveListen, rejectListen) => {
        listener.listen(0, "127.0.0.1", () => {
          const address = listener.address()
          if (address === null || typeof address === "string") return rejectListen(new Error("no address"))
          resolveListen(`http://127.0.0.1:${address.port}`)
        })
      })
    /** @param {import("node:http").Server} listener @returns {Promise<void>} */
    const closeListener = (listener) =>
      new Promise((resolveClose) => {
        listener.closeAllConnections()
        listener.close(() => resolveClose())
      })
    Promise.all([listen(server), asServer === undefined ? undefined : listen(asServer)]).then(([mcp, as]) => {
      origin = mcp
      asOrigin = as ?? mcp
      issuer = `${asOrigin}${issuerPath}`
      resolve({
        origin,
        asOrigin,
        issuer,
        mcpUrl: `${origin}${mcpPath}`,
        sseUrl: `${origin}/sse`,
        requests,
        waitFor: (predicate) =>
          new Promise((resolveWait) => {
            const seen = requests.find(predicate)
            if (seen !== undefined) return resolveWait(seen)
            waiters.push({ predicate, resolve: resolveWait })
          }),
        revoke: (accessToken) => {
          accessTokens.delete(accessToken)
        },
        requireScope: (scope) => {
          requiredScope = scope
        },
        close: async () => {
          for (const stream of sseSessions.values()) stream.destroy()
          await Promise.all([closeListener(server), asServer === undefined ? undefined : closeListener(asServer)])
        }
      })
    }, reject)
  })
