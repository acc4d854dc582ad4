// The response union narrows on `success`; the Effect API's success value is typed.

import * as Effect from "effect/Effect"
import { type ApiResponse, createSvc, SvcClient, type SvcError } from "svc-sdk"

const svc = createSvc("http://127.0.0.1:1", { retryAttempts: 0 })

export const read = async (): Promise<number> => {
  const res: ApiResponse<{ readonly count: number }> = await svc.get("/count")
  if (res.success) return res.data.count
  const message: string = res.error
  return message.length + res.status
}

export const program: Effect.Effect<number, SvcError, SvcClient> = Effect.gen(function* () {
  const client = yield* SvcClient
  const res = yield* client.get<{ readonly count: number }>("/count")
  return res.data.count
})
