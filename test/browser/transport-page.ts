import { createSvc, type RequestOptions, type SvcConfig } from "../../src/v3/index.js"

/** An `ApiResponse` in a form that survives `page.evaluate`: bytes and blobs described. */
const serialise = async (response: Awaited<ReturnType<ReturnType<typeof createSvc>["get"]>>) => {
  const data = response.data
  if (data instanceof Uint8Array) return { ...response, data: { bytes: Array.from(data) } }
  if (data instanceof Blob) return { ...response, data: { blob: data.size } }
  return response
}

const transportPage = {
  request: async (
    method: "get" | "post",
    endpoint: string,
    body: unknown,
    options: RequestOptions,
    config: SvcConfig
  ) => {
    const svc = createSvc(location.origin, { retryAttempts: 0, ...config })
    const response =
      method === "get" ? await svc.get(endpoint, options) : await svc.post(endpoint, body, options)
    return serialise(response)
  },
  /** A `FormData` made in the page, posted to `/echo`. */
  postForm: async () => {
    const form = new FormData()
    form.append("name", "Ada")
    form.append("file", new Blob(["hello"], { type: "text/plain" }), "a.txt")
    return serialise(await createSvc(location.origin, { retryAttempts: 0 }).post("/echo", form))
  }
}
Object.assign(window, { transportPage })
