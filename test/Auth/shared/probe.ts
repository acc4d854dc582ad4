/**
 * A counting validator over the known sessions (sessions.ts) and their failure modes, written
 * against the Effect API both lines share: each line's fixtures.ts provides it as its
 * `SessionValidator`.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { SessionValidatorServiceOf } from "../../../src/common/authServices.js"
import { SessionValidatorUnavailable } from "../../../src/common/SessionValidatorUnavailable.js"
import { BOOM, DOWN, SESSIONS, SLOW } from "./sessions.js"

/** Counts validator calls; `asked` resolves the first time the slow id is looked up. */
export interface Probe {
  calls: number
  readonly asked: Deferred.Deferred<void>
}

export const makeProbe = Effect.map(Deferred.make<void>(), (asked): Probe => ({ calls: 0, asked }))

/** The validator `probe` counts: `DOWN` fails, `BOOM` dies, `SLOW` never answers. */
export const probeService = <Session>(probe: Probe): SessionValidatorServiceOf<Session> => ({
  validate: (id) =>
    Effect.suspend(() => {
      probe.calls++
      const raw = Redacted.value(id)
      if (raw === DOWN) {
        return Effect.fail(new SessionValidatorUnavailable({ reason: "Failure" }))
      }
      if (raw === BOOM) return Effect.die(new Error("validator crashed"))
      if (raw === SLOW)
        return Effect.andThen(Deferred.succeed(probe.asked, undefined), Effect.never)
      return Effect.succeed(
        Object.hasOwn(SESSIONS, raw) ? Option.some(SESSIONS[raw] as Session) : Option.none()
      )
    })
})
