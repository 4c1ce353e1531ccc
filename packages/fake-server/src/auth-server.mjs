// A small OAuth 2.1 authorization server plus one protected MCP-like endpoint, for tests: plain JavaScript,
// no dependencies, 127.0.0.1 on an ephemeral port. It serves Protected Resource Metadata (RFC 9728),
// authorization-server metadata (RFC 8414), Dynamic Client Registration (RFC 7591), an /authorize endpoint
// that redirects straight back with a code (no user), and a token endpoint with PKCE checks, refresh-token
// rotation and client authentication. Faults are switched on by options.
//
// For machine-to-machine clients it also has, on options: the client_credentials grant (secret by basic or post, or a
// private_key_jwt assertion checked against the client's public key), the JWT bearer grant (RFC 7523 §2.1: a
// workload's assertion checked against its issuer's key, or an ID-JAG from the IdP below), an enterprise IdP at
// /idp/token (RFC 8693 token exchange of an ID token for an ID-JAG), and DPoP (RFC 9449: proofs checked at the token
// endpoint and the MCP endpoint, tokens bound to the proof key, server nonces on demand). JWTs are checked with
// node:crypto (./jwt.mjs), not with the client's library.
import { createHash, randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { decodeJwt, sha256, thumbprint, verifySignature } from "./jwt.mjs"

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
 * @property {boolean} [echoToken] tools/call answers HTTP 500 whose body and WWW-Authenticate echo the bearer token (and the DPoP proof)
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
 * @property {boolean} [echoMachineSecrets] the token endpoint and the IdP answer 400 whose error echoes every secret sent (assertions, client secret, Basic credentials, subject token)
 * @property {{ clientId: string, clientSecret?: string, publicJwk?: import("node:crypto").JsonWebKey }} [machineClient] a confidential client for the machine grants: its secret (basic or post) or its public key (private_key_jwt)
 * @property {string[]} [signingAlgs] token_endpoint_auth_signing_alg_values_supported
 * @property {import("node:crypto").JsonWebKey} [assertionKey] the key a workload's JWT bearer assertions must be signed with (aud: the issuer)
 * @property {string} [idToken] an enterprise IdP at /idp/token exchanges this ID token for an ID-JAG (RFC 8693)
 * @property {(answer: Record<string, unknown>) => Record<string, unknown>} [idpAnswer] rewrites the IdP's exchange
 *   response (another issued_token_type, a malformed token)
 * @property {boolean} [refreshMachineTokens] the machine grants issue refresh tokens too
 * @property {boolean} [dpop] DPoP: metadata lists ES256 proofs, the 401 challenge uses the DPoP scheme, proofs are checked and tokens bound
 * @property {boolean} [bearerChallenge] with dpop: the 401 challenge still uses the Bearer scheme
 * @property {"as" | "rs" | "both"} [dpopNonce] the token endpoint and/or the MCP endpoint demand a server nonce
 * @property {boolean} [dpopNonceStuck] the MCP endpoint answers use_dpop_nonce to every proof, always with the same nonce
 * @property {boolean} [dpopAsNonceStuck] the token endpoint answers use_dpop_nonce to every proof, always with the same nonce
 * @property {boolean} [dpopNonceRotate] with dpopNonce "rs"/"both": every accepted MCP request hands out the next nonce (DPoP-Nonce on the success), which the next request must carry
 */

/**
 * @typedef {object} DpopSeen
 * @property {"token" | "mcp"} at
 * @property {boolean} valid
 * @property {string} [error] why it was refused
 * @property {Record<string, unknown>} [claims]
 * @property {string} [jkt] the thumbprint of its key
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
 * @property {DpopSeen[]} dpopProofs every DPoP proof presented, in order, as checked
 * @property {Record<string, unknown>[]} clientAssertions the claims of every private_key_jwt assertion that verified
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
    /** @type {Map<string, { scope: string | undefined, resource: string | undefined, jkt?: string }>} */
    const accessTokens = new Map()
    /** @type {DpopSeen[]} */
    const dpopProofs = []
    /** @type {Record<string, unknown>[]} */
    const clientAssertions = []
    /** @type {Set<string>} */
    const jtis = new Set()
    /** @type {Map<string, string>} ID-JAGs the IdP issued, with their resource */
    const idJags = new Map()
    const AS_NONCE = "as-nonce-1"
    /** The nonce the MCP endpoint wants now (it changes on every success with dpopNonceRotate). */
    let rsNonceNow = "rs-nonce-1"
    /** @type {Map<string, { clientId: string, scope: string | undefined, resource: string | undefined, jkt?: string }>} */
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
      ...(options.issInResponse === true ? { authorization_response_iss_parameter_supported: true } : {}),
      ...(options.signingAlgs === undefined
        ? {}
        : { token_endpoint_auth_signing_alg_values_supported: options.signingAlgs }),
      ...(options.dpop === true ? { dpop_signing_alg_values_supported: ["ES256"] } : {})
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
      if (r.path === "/idp/token" && r.method === "POST" && options.idToken !== undefined) return idpToken(r, res)
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
      const machine = options.machineClient
      if (machine !== undefined) {
        if (r.form["client_assertion_type"] === "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") {
          const decoded = decodeJwt(r.form["client_assertion"] ?? "")
          if (decoded === undefined || machine.publicJwk === undefined) return undefined
          if (!verifySignature(decoded, machine.publicJwk)) return undefined
          const { aud, exp, iss, jti, sub } = decoded.payload
          const fresh = typeof exp === "number" && exp * 1000 > Date.now() && typeof jti === "string" &&
            !jtis.has(jti)
          if (!fresh || aud !== issuer || iss !== machine.clientId || sub !== machine.clientId) return undefined
          jtis.add(String(jti))
          clientAssertions.push(decoded.payload)
          return machine.clientId
        }
        if (machine.clientSecret !== undefined) {
          const basic = typeof header === "string" && header.startsWith("Basic ")
            ? Buffer.from(header.slice(6), "base64").toString("utf8").split(":").map((s) =>
              decodeURIComponent(s.replace(/\+/g, " "))
            )
            : [r.form["client_id"], r.form["client_secret"]]
          if (basic[0] === machine.clientId) return basic[1] === machine.clientSecret ? machine.clientId : undefined
        }
      }
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

    /**
     * @param {string | undefined} scope @param {string | undefined} resource @param {string} clientId
     * @param {{ refresh?: boolean, jkt?: string | undefined }} [extra]
     */
    const issue = (scope, resource, clientId, extra = {}) => {
      const access = next("at")
      const refresh = extra.refresh === false ? undefined : next("rt")
      accessTokens.set(access, { scope, resource, ...(extra.jkt === undefined ? {} : { jkt: extra.jkt }) })
      if (refresh !== undefined) {
        refreshTokens.set(refresh, {
          clientId,
          scope,
          resource,
          ...(extra.jkt === undefined ? {} : { jkt: extra.jkt })
        })
      }
      return {
        access_token: access,
        token_type: extra.jkt === undefined ? "Bearer" : "DPoP",
        expires_in: options.expiresIn ?? 3600,
        ...(refresh === undefined ? {} : { refresh_token: refresh }),
        ...(scope === undefined ? {} : { scope })
      }
    }

    /**
     * Checks a DPoP proof (RFC 9449 §4.3) and records it.
     *
     * @param {RecordedRequest} r @param {"token" | "mcp"} at @param {string} htu @param {string | undefined} accessToken
     * @returns {{ jkt: string, nonce: unknown } | { error: string }}
     */
    const checkProof = (r, at, htu, accessToken) => {
      const header = r.headers["dpop"]
      const refuse = (/** @type {string} */ error) => {
        dpopProofs.push({ at, valid: false, error })
        return { error }
      }
      if (typeof header !== "string" || header.includes(",")) return refuse("not exactly one DPoP header")
      const decoded = decodeJwt(header)
      if (decoded === undefined) return refuse("not a JWT")
      const { header: h, payload: c } = decoded
      const jwk =
        /** @type {Record<string, unknown> | undefined} */ (typeof h["jwk"] === "object" ? h["jwk"] : undefined)
      if (h["typ"] !== "dpop+jwt" || h["alg"] !== "ES256" || jwk === undefined) return refuse("bad header")
      if ("d" in jwk) return refuse("private key in jwk")
      if (!verifySignature(decoded, /** @type {import("node:crypto").JsonWebKey} */ (jwk))) {
        return refuse("bad signature")
      }
      if (typeof c["jti"] !== "string" || jtis.has(c["jti"])) return refuse("jti missing or replayed")
      if (c["htm"] !== r.method) return refuse(`htm ${String(c["htm"])} is not ${r.method}`)
      if (c["htu"] !== htu) return refuse(`htu ${String(c["htu"])} is not ${htu}`)
      if (typeof c["iat"] !== "number") return refuse("no iat")
      if (accessToken !== undefined && c["ath"] !== sha256(accessToken)) return refuse("ath does not match the token")
      jtis.add(c["jti"])
      const jkt = thumbprint(jwk)
      dpopProofs.push({ at, valid: true, claims: c, jkt })
      return { jkt, nonce: c["nonce"] }
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const echoSecrets = (r, res) => {
      const f = r.form
      const basic = r.headers["authorization"]
      const echoed = [f["assertion"], f["client_assertion"], f["client_secret"], f["subject_token"], basic]
        .filter((v) => v !== undefined).join(" ")
      sendJson(res, 400, { error: `invalid_grant ${echoed}`, error_description: echoed })
    }

    /** @param {RecordedRequest} r @param {import("node:http").ServerResponse} res */
    const idpToken = (r, res) => {
      if (options.echoMachineSecrets === true) return echoSecrets(r, res)
      const f = r.form
      if (f["grant_type"] !== "urn:ietf:params:oauth:grant-type:token-exchange") {
        return sendJson(res, 400, { error: "unsupported_grant_type" })
      }
      if (
        f["subject_token"] !== options.idToken ||
        f["subject_token_type"] !== "urn:ietf:params:oauth:token-type:id_token" ||
        f["requested_token_type"] !== "urn:ietf:params:oauth:token-type:id-jag" ||
        f["audience"] !== issuer || f["resource"] === undefined
      ) {
        return sendJson(res, 400, { error: "invalid_request" })
      }
      const jag = `${next("idjag")}.${randomUUID()}`
      idJags.set(jag, f["resource"])
      const answer = {
        access_token: jag,
        issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        token_type: "N_A",
        expires_in: 300
      }
      sendJson(res, 200, options.idpAnswer === undefined ? answer : options.idpAnswer(answer))
    }

    /** @param {RecordedRequest} r @returns {boolean} whether the JWT bearer assertion is one this server accepts */
    const acceptAssertion = (r) => {
      const assertion = r.form["assertion"] ?? ""
      const jagResource = idJags.get(assertion)
      if (jagResource !== undefined) {
        idJags.delete(assertion)
        return jagResource === r.form["resource"]
      }
      const decoded = decodeJwt(assertion)
      if (decoded === undefined || options.assertionKey === undefined) return false
      const { aud, exp } = decoded.payload
      return verifySignature(decoded, options.assertionKey) && aud === issuer && typeof exp === "number" &&
        exp * 1000 > Date.now()
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
      if (options.echoMachineSecrets === true) return echoSecrets(r, res)
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
      const f = r.form
      /** @type {string | undefined} */
      let jkt
      if (options.dpop === true && r.headers["dpop"] !== undefined) {
        const proof = checkProof(r, "token", `${asOrigin}/token`, undefined)
        if ("error" in proof) return sendJson(res, 400, { error: "invalid_dpop_proof" })
        const wantsNonce = options.dpopNonce === "as" || options.dpopNonce === "both"
        if (options.dpopAsNonceStuck === true || (wantsNonce && proof.nonce !== AS_NONCE)) {
          return sendJson(res, 400, { error: "use_dpop_nonce" }, { "dpop-nonce": AS_NONCE })
        }
        jkt = proof.jkt
      }
      const anonymous = r.headers["authorization"] === undefined && f["client_id"] === undefined &&
        f["client_assertion"] === undefined
      const clientId = authenticate(r) ??
        (anonymous && f["grant_type"] === "urn:ietf:params:oauth:grant-type:jwt-bearer" ? "anonymous" : undefined)
      if (clientId === undefined) return sendJson(res, 401, { error: "invalid_client" })
      const machineExtra = { refresh: options.refreshMachineTokens === true, jkt }
      if (f["grant_type"] === "client_credentials") {
        if (clientId !== options.machineClient?.clientId) return sendJson(res, 400, { error: "unauthorized_client" })
        return sendJson(res, 200, issue(f["scope"], f["resource"], clientId, machineExtra))
      }
      if (f["grant_type"] === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        if (!acceptAssertion(r)) return sendJson(res, 400, { error: "invalid_grant" })
        return sendJson(res, 200, issue(f["scope"], f["resource"], clientId, machineExtra))
      }
      if (f["grant_type"] === "authorization_code") {
        const grant = codes.get(f["code"] ?? "")
        codes.delete(f["code"] ?? "")
        if (grant === undefined || grant.clientId !== clientId || grant.redirectUri !== f["redirect_uri"]) {
          return sendJson(res, 400, { error: "invalid_grant" })
        }
        if (s256(f["code_verifier"] ?? "") !== grant.challenge) return sendJson(res, 400, { error: "invalid_grant" })
        if (grant.resource !== f["resource"]) return sendJson(res, 400, { error: "invalid_target" })
        return sendToken(res, issue(grant.scope, grant.resource, clientId, { jkt }), clientId)
      }
      if (f["grant_type"] === "refresh_token") {
        const old = refreshTokens.get(f["refresh_token"] ?? "")
        if (options.revokedRefresh === true || old === undefined || old.clientId !== clientId) {
          return sendJson(res, 400, { error: "invalid_grant" })
        }
        // A DPoP-bound refresh token needs a proof with the same key (RFC 9449 §5).
        if ("jkt" in old && old.jkt !== jkt) return sendJson(res, 400, { error: "invalid_grant" })
        refreshTokens.delete(f["refresh_token"] ?? "") // rotation: the old one is spent
        return sendToken(res, issue(old.scope, old.resource, clientId, { jkt }), clientId)
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
        ...(options.challengeScope === undefined ? [] : [`scope="${options.challengeScope}"`]),
        ...(options.dpop === true ? [`algs="ES256"`] : [])
      ]
      const scheme = options.dpop === true && options.bearerChallenge !== true ? "DPoP" : "Bearer"
      return `${scheme} ${params.join(", ")}`.trim()
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
      const scheme = typeof header === "string" ? header.slice(0, header.indexOf(" ")).toLowerCase() : ""
      const presented = typeof header === "string" ? header.slice(header.indexOf(" ") + 1) : ""
      const candidate = scheme === "bearer" || scheme === "dpop" ? accessTokens.get(presented) : undefined
      // A DPoP-bound token is good only with the DPoP scheme and a proof by its key (RFC 9449 §7).
      let held = candidate
      if (candidate !== undefined && (candidate.jkt !== undefined || scheme === "dpop")) {
        const proof = checkProof(r, "mcp", `${origin}${mcpPath}`, presented)
        const rsNonce = options.dpopNonce === "rs" || options.dpopNonce === "both"
        if ("error" in proof || scheme !== "dpop" || proof.jkt !== candidate.jkt) {
          held = undefined
        } else if (options.dpopNonceStuck === true || (rsNonce && proof.nonce !== rsNonceNow)) {
          res.writeHead(401, {
            "www-authenticate": `DPoP error="use_dpop_nonce", algs="ES256"`,
            "dpop-nonce": rsNonceNow
          })
          return res.end()
        } else if (rsNonce && options.dpopNonceRotate === true) {
          rsNonceNow = next("rs-nonce")
          res.setHeader("dpop-nonce", rsNonceNow)
        }
      }
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
        const proof = typeof r.headers["dpop"] === "string" ? ` with proof ${r.headers["dpop"]}` : ""
        return res.end(`upstream refused the credentials ${header}${proof}`)
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
        dpopProofs,
        clientAssertions,
        close: async () => {
          for (const stream of sseSessions.values()) stream.destroy()
          await Promise.all([closeListener(server), asServer === undefined ? undefined : closeListener(asServer)])
        }
      })
    }, reject)
  })
