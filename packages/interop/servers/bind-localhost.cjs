// Preload (`node -r ./bind-localhost.cjs …`) for servers that call `listen(port)` without a host, which
// binds every interface: a port-only `listen` gets host 127.0.0.1. Once a server is listening, one line
// goes to stderr so a test can find an ephemeral port (PORT=0):
//
//   bind-localhost: listening 127.0.0.1:41234
"use strict"
const net = require("node:net")

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function patchedListen(...args) {
  const first = args[0]
  const portOnly = (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) &&
    typeof args[1] !== "string"
  if (portOnly) args.splice(1, 0, "127.0.0.1")
  else if (typeof first === "object" && first !== null && first.host === undefined && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" }
  }
  this.once("listening", () => {
    const address = this.address()
    if (address !== null && typeof address === "object") {
      process.stderr.write(`bind-localhost: listening ${address.address}:${address.port}\n`)
    }
  })
  return listen.apply(this, args)
}
