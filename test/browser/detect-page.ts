import { createSvc } from "../../src/v3/index.js"

/** A client made now asks the API who it is, as a page's first request does. */
const whoami = async (api: string, timeout: number, pause: number) => {
  const errors: Array<string> = []
  const svc = createSvc(api, {
    timeout,
    retryAttempts: 0,
    onError: (error) => errors.push(error.message)
  })
  const first = await svc.get("/whoami", { params: { tag: "first" } })
  await new Promise((resolve) => setTimeout(resolve, pause))
  const second = await svc.get("/whoami", { params: { tag: "second" } })
  const session = (response: typeof first) =>
    response.success
      ? ((response.data as { session?: string | null }).session ?? null)
      : response.code
  return { first: session(first), second: session(second), errors }
}

Object.assign(window, { whoami })
