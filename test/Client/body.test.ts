import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const last = () => server.requests[server.requests.length - 1]!

describe("request bodies and methods", () => {
  it.each(["post", "put", "patch"] as const)("%s sends objects as JSON", async (method) => {
    const svc = createSvc(server.origin)
    const response = await svc[method]("/users", { name: "Ada", tags: [1, 2] })
    expect(response.success).toBe(true)
    expect(last().method).toBe(method.toUpperCase())
    expect(last().headers["content-type"]).toBe("application/json")
    expect(JSON.parse(last().body)).toEqual({ name: "Ada", tags: [1, 2] })
  })

  it("sends arrays as JSON", async () => {
    await createSvc(server.origin).post("/bulk", [1, "two"])
    expect(JSON.parse(last().body)).toEqual([1, "two"])
  })

  it("get and delete send no body", async () => {
    const svc = createSvc(server.origin)
    await svc.get("/x")
    expect(last()).toMatchObject({ method: "GET", body: "" })
    await svc.delete("/x/1")
    expect(last()).toMatchObject({ method: "DELETE", path: "/x/1", body: "" })
  })

  it("sends strings as they are", async () => {
    await createSvc(server.origin).post("/t", "plain words")
    expect(last().body).toBe("plain words")
    expect(last().headers["content-type"]).toMatch(/^text\/plain/)
  })

  it("a per-request Content-Type wins over the body's", async () => {
    await createSvc(server.origin).post("/t", "<a/>", {
      headers: { "Content-Type": "application/xml" }
    })
    expect(last().headers["content-type"]).toBe("application/xml")
  })

  it("sends URLSearchParams form-encoded", async () => {
    await createSvc(server.origin).post("/f", new URLSearchParams({ a: "1", b: "x y" }))
    expect(last().body).toBe("a=1&b=x+y")
    expect(last().headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8")
  })

  it("sends FormData as multipart", async () => {
    const form = new FormData()
    form.append("field", "value")
    await createSvc(server.origin).post("/m", form)
    expect(last().headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/)
    expect(last().body).toContain('name="field"')
    expect(last().body).toContain("value")
  })

  it("sends Blob, ArrayBuffer and typed arrays as bytes", async () => {
    const svc = createSvc(server.origin)
    await svc.post("/b", new Blob(["blob-bytes"], { type: "application/x-test" }))
    expect(last()).toMatchObject({ body: "blob-bytes" })
    expect(last().headers["content-type"]).toBe("application/x-test")
    await svc.put("/b", new TextEncoder().encode("typed").buffer)
    expect(last().body).toBe("typed")
    const bytes = new TextEncoder().encode("xxslicexx")
    await svc.patch("/b", bytes.subarray(2, 7))
    expect(last().body).toBe("slice")
  })

  it("a body that cannot be JSON resolves to a failure, never a throw", async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const before = server.requests.length
    const response = await createSvc(server.origin).post("/c", cyclic)
    expect(response.success).toBe(false)
    expect(response.status).toBe(0)
    expect(response.error).toMatch(/JSON/)
    expect(server.requests.length).toBe(before)
  })
})
