// A query builder's execution methods take the result's type as a client's methods do.

import * as Effect from "effect/Effect"
import { createSvc, SvcClient } from "svc-sdk"

interface User {
  readonly id: string
}

const svc = createSvc("http://127.0.0.1:1")

/** Exported, its type is named in the declarations. */
export const usersQuery = svc.query("/users").where("status", "active")

export const promise = async (): Promise<string | undefined> => {
  const direct = await svc.get<Array<User>>("/users")
  const built = await svc.query("/users").where("status", "active").page(2).get<Array<User>>()
  const posted = await svc.query("/users").post<User>({ name: "a" })
  const untyped = await svc.query("/users").get()
  const unknownData: unknown = untyped.success ? untyped.data : undefined
  void unknownData
  if (!direct.success || !built.success || !posted.success) return undefined
  const first: User | undefined = built.data[0]
  return first?.id ?? direct.data[0]?.id ?? posted.data.id
}

export const effect = Effect.gen(function* () {
  const client = yield* SvcClient
  const built = yield* client.query("/users").where("status", "active").get<Array<User>>()
  const id: string | undefined = built.data[0]?.id
  return id
})
