/** Writes one scenario's outcome into the page's table, for people and the screenshot. */
export const showOutcome = (scenario: string, expected: string, outcome: string): void => {
  const row = document.createElement("tr")
  row.className = expected === outcome ? "pass" : "fail"
  for (const text of [scenario, expected, outcome]) {
    const cell = document.createElement("td")
    cell.textContent = text
    row.append(cell)
  }
  document.getElementById("outcomes")?.append(row)
}

/** The value shown for "no session". */
export const NONE = "(none)"

/** What the storage page offers the test. */
export interface StoragePage {
  readonly detect: (
    scenario: string,
    expected: string
  ) => Promise<{
    readonly stores: number
    readonly id: string | null
  }>
  /** `saveSessionId` or `clearSessionId` on the detected storage; the error's name if it fails. */
  readonly save: (id: string) => Promise<string | null>
  readonly clear: () => Promise<string | null>
  readonly show: (scenario: string, expected: string, outcome: string) => void
}

/** What the client page offers the test. `config`/`options` are passed to `createSvc`/`get`. */
export interface ClientPage {
  readonly request: (
    scenario: string,
    expected: string,
    options?: { readonly includeSession?: boolean }
  ) => Promise<ClientOutcome>
  readonly requestWithNewClient: (
    scenario: string,
    expected: string,
    config: { readonly includeSession?: boolean }
  ) => Promise<ClientOutcome>
  readonly setSessionId: (id: string) => Promise<void>
  readonly clearSession: () => Promise<void>
}

export interface ClientOutcome {
  readonly success: boolean
  readonly session: string | null
  readonly errors: ReadonlyArray<string>
}
