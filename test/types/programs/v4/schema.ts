// An explicit type argument naming a transforming schema's decoded type, as with a Standard Schema.
import * as Schema from "effect/Schema"
import { createSvc, type StandardSchemaV1 } from "svc-sdk"

const svc = createSvc("http://127.0.0.1:1")
declare const standard: StandardSchemaV1<Date>

export const dates = async (): Promise<number> => {
  const decoded = await svc.get<Date>("/now", { schema: Schema.DateFromString })
  const inferred = await svc.get("/now", { schema: Schema.DateFromString })
  const viaStandard = await svc.get<Date>("/now", { schema: standard })
  if (!decoded.success || !inferred.success || !viaStandard.success) return 0
  return decoded.data.getTime() + inferred.data.getTime() + viaStandard.data.getTime()
}
