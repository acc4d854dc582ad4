import { createSvc, type SvcConfig } from "../../src/v3/index.js"
import { type ClientOutcome, type ClientPage, NONE, showOutcome } from "./outcomes.js"

const api = new URL(location.href).searchParams.get("api") ?? ""
const errors: Array<string> = []
const onError = (error: Error) => {
  errors.push(error.message)
}
const svc = createSvc(api, { onError })
let requests = 0

const ask = async (
  client: ReturnType<typeof createSvc>,
  scenario: string,
  expected: string,
  options: { readonly includeSession?: boolean }
): Promise<ClientOutcome> => {
  requests += 1
  const response = await client.get("/whoami", {
    ...options,
    params: { tag: `${scenario}#${requests}` }
  })
  const session = (response.data as { session?: string | null } | undefined)?.session ?? null
  showOutcome(scenario, expected, response.success ? (session ?? NONE) : `error: ${response.error}`)
  return { success: response.success, session, errors: [...errors] }
}

const clientPage: ClientPage = {
  request: (scenario, expected, options = {}) => ask(svc, scenario, expected, options),
  requestWithNewClient: (scenario, expected, config) =>
    ask(createSvc(api, { ...config, onError } satisfies SvcConfig), scenario, expected, {}),
  setSessionId: (id) => svc.setSessionId(id),
  clearSession: () => svc.clearSession()
}
Object.assign(window, { clientPage })
