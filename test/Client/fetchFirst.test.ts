/**
 * An app that used Node's own `fetch` before the client: on Node 20 and 22 that installs Node's
 * bundled undici (6) as the global dispatcher, which the facade's transport must work with too.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"

describe("the global dispatcher Node's own fetch installs", () => {
  it("serves the facade too (Node 22's is undici 6, with the classic handler methods)", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end('{"ok":true}')
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      // the app used fetch first: on Node 20 and 22 that may install Node's own undici as the
      // global dispatcher
      await (await fetch(`${origin}/warm`)).text()
      expect(await createSvc(origin, { retryAttempts: 0 }).get("/x")).toMatchObject({
        success: true,
        data: { ok: true }
      })
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
