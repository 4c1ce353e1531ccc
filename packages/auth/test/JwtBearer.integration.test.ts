/**
 * Workload identity (the JWT bearer grant, RFC 7523 §2.1) against the fake authorization server over real undici:
 * the assertion read afresh from its file at every token request, a refused assertion never sent twice, an expired
 * one never sent, a missing file named in the error.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Path } from "effect"
import { TestClock } from "effect/testing"
import { CredentialSource, JwtBearer, McpAuth } from "../src/index.ts"
import { ecKey, machineLayer, send, signJwt, startAtWallTime, tokenRequests } from "./machineSupport.ts"
import { authServer, paths } from "./support.ts"

/** A temporary file holding `text`, and a way to replace it (as a platform rotates a projected token). */
const tokenFile = (text: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(yield* fs.makeTempDirectoryScoped(), "token")
    yield* fs.writeFileString(file, `${text}\n`)
    return { file, write: (next: string) => fs.writeFileString(file, `${next}\n`) }
  })

describe("JwtBearer (workload identity)", () => {
  it.effect("the assertion comes from its file at every token request: a rotated file is sent on renewal", () =>
    Effect.gen(function*() {
      yield* startAtWallTime
      const now = Math.floor(Date.now() / 1000)
      const key = ecKey()
      const server = yield* authServer({ assertionKey: key.publicJwk, expiresIn: 600, authMethods: ["none"] })
      const first = signJwt(key.pem, { iss: "https://idp.example", sub: "wl", aud: server.issuer, exp: now + 3600 })
      const second = signJwt(key.pem, { iss: "https://idp.example", sub: "wl", aud: server.issuer, exp: now + 7200 })
      const file = yield* tokenFile(first)
      const assertion = yield* CredentialSource.fromFile(file.file, "assertion")
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* send(server.mcpUrl), 200)
        yield* file.write(second)
        yield* TestClock.adjust("541 seconds")
        const auth = yield* McpAuth.McpAuth
        assert.property(yield* auth.headers(server.mcpUrl), "authorization")
      }).pipe(Effect.provide(machineLayer(JwtBearer.layer({ assertion }))))
      const tokens = tokenRequests(server)
      assert.deepStrictEqual(tokens.map((r) => r.form["assertion"]), [first, second])
      assert.deepStrictEqual(tokens[0]?.form, {
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: first,
        resource: server.mcpUrl
      })
      assert.isUndefined(tokens[0]?.headers["authorization"])
      assert.notInclude(paths(server), "POST /register")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a refused assertion is not sent again (nor another grant tried); a new one is", () =>
    Effect.gen(function*() {
      yield* startAtWallTime
      const now = Math.floor(Date.now() / 1000)
      const trusted = ecKey()
      const stranger = ecKey()
      const server = yield* authServer({ assertionKey: trusted.publicJwk, authMethods: ["none"] })
      const bad = signJwt(stranger.pem, { sub: "wl", aud: server.issuer, exp: now + 3600 })
      const good = signJwt(trusted.pem, { sub: "wl", aud: server.issuer, exp: now + 3600 })
      const file = yield* tokenFile(bad)
      const assertion = yield* CredentialSource.fromFile(file.file, "assertion")
      yield* Effect.gen(function*() {
        const refused = yield* Effect.flip(send(server.mcpUrl))
        assert.include(refused.message, "invalid_grant")
        const again = yield* Effect.flip(send(server.mcpUrl))
        assert.include(again.message, "refused this assertion before (invalid_grant)")
        assert.lengthOf(tokenRequests(server), 1)
        yield* file.write(good)
        assert.strictEqual(yield* send(server.mcpUrl), 200)
      }).pipe(Effect.provide(machineLayer(JwtBearer.layer({ assertion }))))
      const grants = tokenRequests(server).map((r) => r.form["grant_type"])
      assert.deepStrictEqual(grants, [
        "urn:ietf:params:oauth:grant-type:jwt-bearer",
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
      ])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("an expired assertion is refused before it is sent; a missing file is named", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(2_000_000_000_000)
      const key = ecKey()
      const server = yield* authServer({ assertionKey: key.publicJwk, authMethods: ["none"] })
      const expired = signJwt(key.pem, { sub: "wl", aud: server.issuer, exp: 2_000_000_000 - 90 })
      const file = yield* tokenFile(expired)
      const fromFile = yield* CredentialSource.fromFile(file.file, "assertion")
      const error = yield* Effect.flip(
        send(server.mcpUrl).pipe(Effect.provide(machineLayer(JwtBearer.layer({ assertion: fromFile }))))
      )
      assert.include(error.message, "expired 90 s ago")
      const missing = yield* CredentialSource.fromFile(`${file.file}.gone`, "assertion")
      const absent = yield* Effect.flip(
        send(server.mcpUrl).pipe(Effect.provide(machineLayer(JwtBearer.layer({ assertion: missing }))))
      )
      assert.include(absent.message, `The assertion from ${file.file}.gone could not be read: no such file.`)
      assert.lengthOf(tokenRequests(server), 0)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
