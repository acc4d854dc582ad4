/**
 * An app's tests with msw (`setupServer` from `msw/node`), run over each msw major the package
 * supports: the facade's requests on Node reach msw's handlers, even for a client made before msw
 * started listening, and never the network. The base URL is a real loopback server that answers
 * 418 and records what reaches it: a request msw let through shows there.
 */
import { afterAll, afterEach, assert, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"

type Json = string | number | boolean | null | JsonObject | ReadonlyArray<Json>
type JsonObject = { readonly [key: string]: Json }

type Resolver = (info: {
  readonly params: Readonly<Record<string, unknown>>
  readonly request: Request
}) => Response | Promise<Response>

/** What the suite uses of one msw major (the two majors' types differ past it). */
export interface MswModules {
  readonly http: {
    readonly get: (path: string, resolver: Resolver) => unknown
    readonly post: (path: string, resolver: Resolver) => unknown
  }
  readonly HttpResponse: {
    readonly json: (body: JsonObject, init?: ResponseInit) => Response
    readonly arrayBuffer: (body: ArrayBuffer, init?: ResponseInit) => Response
  }
  readonly setupServer: (...handlers: Array<never>) => {
    readonly listen: (options: object) => void
    readonly close: () => void
  }
  /** `listen`'s options that make an unhandled request an error (msw 3 renamed the option). */
  readonly strict: object
}

export const mswSuite = (title: string, load: () => Promise<MswModules>): void => {
  describe(title, () => {
    let network: TestServer
    let api: string
    let svc: ReturnType<typeof createSvc>
    let stop: () => void
    const seen: Array<string | null> = []

    beforeAll(async () => {
      network = await startServer(() => ({ status: 418, body: "the network answered" }))
      api = `${network.origin}/api`
      svc = createSvc(api, { sessionId: "s-msw", retryAttempts: 0 })
      const { http, HttpResponse, setupServer, strict } = await load()
      const server = setupServer(
        ...([
          http.get(`${api}/users/:id`, ({ params, request }) => {
            seen.push(request.headers.get("x-session-id"))
            return HttpResponse.json({
              success: true,
              data: { id: String(params.id), name: "Ada" }
            })
          }),
          http.post(`${api}/users`, async ({ request }) =>
            HttpResponse.json({ created: await request.json() }, { status: 201 })
          ),
          http.get(`${api}/broken`, () => HttpResponse.json({ error: "Nope" }, { status: 500 })),
          http.get(`${api}/logo.png`, () =>
            HttpResponse.arrayBuffer(new Uint8Array([137, 80, 78, 71]).buffer, {
              headers: { "content-type": "image/png" }
            })
          )
        ] as Array<never>)
      )
      server.listen(strict)
      stop = () => server.close()
    })
    afterEach(() => {
      expect(network.requests).toEqual([])
    })
    afterAll(async () => {
      stop?.()
      await network?.close()
    })

    it("GET reaches the handler, session header included", async () => {
      const response = await svc.get("/users/7")
      expect(response).toMatchObject({ success: true, status: 200, data: { id: "7", name: "Ada" } })
      expect(seen).toEqual(["s-msw"])
    })

    it("POST sends its JSON body", async () => {
      const response = await svc.post("/users", { name: "Grace" })
      expect(response).toMatchObject({
        success: true,
        status: 201,
        data: { created: { name: "Grace" } }
      })
    })

    it("the README's download recipe: an image arrives as its bytes", async () => {
      const logo = await svc.get<Uint8Array>("/logo.png")
      assert(logo.success)
      expect(Array.from(logo.data)).toEqual([137, 80, 78, 71])
      expect(logo.headers?.["content-type"]).toBe("image/png")
    })

    it("an HTTP failure from a handler is an ApiResponse failure", async () => {
      expect(await svc.get("/broken")).toMatchObject({
        success: false,
        status: 500,
        error: "Nope",
        code: "HTTP_ERROR"
      })
    })

    it("once msw stops listening, the facade is back on undici (fetch is not called)", async () => {
      stop()
      stop = () => undefined
      const realFetch = globalThis.fetch
      let fetchCalls = 0
      globalThis.fetch = (...args) => {
        fetchCalls++
        return realFetch(...args)
      }
      try {
        expect(await svc.get("/users/7")).toMatchObject({ success: false, status: 418 })
      } finally {
        globalThis.fetch = realFetch
      }
      expect(fetchCalls).toBe(0)
      // the one request that was meant for the network
      expect(network.requests.splice(0).map((r) => r.path)).toEqual(["/api/users/7"])
    })
  })
}
