/**
 * An app's tests with msw (`setupServer` from `msw/node`): the facade's requests on Node reach
 * msw's handlers, even for a client made before msw started listening.
 */
import { HttpResponse, http } from "msw"
import { setupServer } from "msw/node"
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"

// nothing listens on port 1: a request msw did not intercept fails instead of going anywhere
const API = "http://127.0.0.1:1/api"
const svc = createSvc(API, { sessionId: "s-msw", retryAttempts: 0 })

const seen: Array<string | null> = []
const server = setupServer(
  http.get(`${API}/users/:id`, ({ params, request }) => {
    seen.push(request.headers.get("x-session-id"))
    return HttpResponse.json({ success: true, data: { id: params.id, name: "Ada" } })
  }),
  http.post(`${API}/users`, async ({ request }) =>
    HttpResponse.json({ created: await request.json() }, { status: 201 })
  ),
  http.get(`${API}/broken`, () => HttpResponse.json({ error: "Nope" }, { status: 500 })),
  http.get(`${API}/logo.png`, () =>
    HttpResponse.arrayBuffer(new Uint8Array([137, 80, 78, 71]).buffer, {
      headers: { "content-type": "image/png" }
    })
  )
)

beforeAll(() => server.listen({ onUnhandledRequest: "error" }))
afterAll(() => server.close())

describe("msw intercepts the facade on Node", () => {
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
})
