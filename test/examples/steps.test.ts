/**
 * The demo's step table: a step that gets what it expected prints and passes; any mismatch
 * throws a `StepFailed` naming the step; session ids are never printed in full.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest"
import { asApiResponse, dataHas, makeStory, StepFailed, totalIs } from "../../examples/steps.js"
import { HttpError, ResponseTooLargeError, TimeoutError } from "../../src/v3/Client/SvcError.js"

const ID = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde"

describe("makeStory", () => {
  let log: MockInstance<typeof console.log>
  beforeEach(() => {
    log = vi.spyOn(console, "log").mockImplementation(() => undefined)
  })
  afterEach(() => log.mockRestore())
  const printed = () => log.mock.calls.map((args) => args.join(" ")).join("\n")

  it("prints a row per step and hands the response back when it matches", () => {
    const { step } = makeStory("A story")
    const response = {
      success: true as const,
      status: 200,
      data: { user_id: "u1", session_id: ID }
    }
    expect(
      step(
        { name: "Log in", request: "POST /login", status: 200, check: dataHas("user_id", "u1") },
        response
      )
    ).toBe(response)
    const failure = {
      success: false,
      status: 401,
      error: "Session ID required",
      code: "HTTP_ERROR"
    } as const
    step({ name: "Ask who", request: "GET /nobody", status: 401 }, failure, "GET /me")
    const output = printed()
    expect(output).toContain("A story")
    expect(output).toMatch(/1\s+Log in\s+200\s+ok\s+POST \/login/)
    expect(output).toMatch(/2\s+Ask who\s+401\s+refused as expected HTTP_ERROR\s+GET \/me/)
    step(
      { name: "Wait", request: "GET /slow", status: 0, code: "TIMEOUT" },
      { success: false, status: 0, error: "late", code: "TIMEOUT" }
    )
    expect(printed()).toMatch(/3\s+Wait\s+0\s+failed as expected\s+TIMEOUT\s+GET \/slow/)
    expect(printed()).not.toMatch(/[✗✓]/)
    expect(output).toContain("error: Session ID required")
    expect(output).toContain(`"session_id":"${ID.slice(0, 6)}…"`)
    expect(output).not.toContain(ID)
  })

  it.each([
    [
      { success: true, status: 200, data: undefined },
      { status: 403 },
      "expected status 403, got 200"
    ],
    [
      { success: false, status: 0, code: "NETWORK_ERROR", error: "down" },
      { status: 0, code: "TIMEOUT" },
      "expected code TIMEOUT, got 0 NETWORK_ERROR"
    ],
    [
      { success: true, status: 200, data: undefined, meta: { total: 2 } },
      { status: 200, check: totalIs(3) },
      "expected 3 products, got 2"
    ],
    [
      { success: true, status: 200, data: { attempts: 1 } },
      { status: 200, check: dataHas("attempts", 3) },
      "expected data.attempts = 3, got 1"
    ]
  ] as const)("throws StepFailed naming the step: %j", (response, expected, reason) => {
    const { step } = makeStory("A story")
    step({ name: "First", request: "GET /", status: 200 }, { success: true, status: 200 })
    const failed = (() => {
      try {
        step({ name: "Second", request: "GET /x", ...expected }, response)
      } catch (error) {
        return error
      }
    })()
    expect(failed).toBeInstanceOf(StepFailed)
    expect((failed as StepFailed).message).toBe(`Step 2 "Second" went wrong: ${reason}`)
    expect(printed()).toMatch(/2\s+Second\s+\d+\s+UNEXPECTED\s/)
  })
})

describe("asApiResponse", () => {
  it("shows an Effect API failure as the Promise facade would", () => {
    const headers = { "retry-after": "60" }
    const http = new HttpError({ status: 429, error: "Too many attempts", body: {}, headers })
    // with the response's headers, as the facade's failures have them
    expect(asApiResponse(http)).toEqual({
      success: false,
      status: 429,
      error: "Too many attempts",
      code: "HTTP_ERROR",
      headers
    })
    expect(asApiResponse(new TimeoutError({ timeoutMillis: 200 }))).toEqual({
      success: false,
      status: 0,
      error: "Request timed out after 200 ms",
      code: "TIMEOUT"
    })
    // the facade keeps the status of a response that came, as with RESPONSE_TOO_LARGE
    const tooLarge = new ResponseTooLargeError({ maxResponseBytes: 10, status: 200 })
    expect(asApiResponse(tooLarge)).toMatchObject({ status: 200, code: "RESPONSE_TOO_LARGE" })
  })
})
