/**
 * The validators: `fromPromise`, `memory`, and `cached` over a counting validator with TestClock.
 * Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  requireAuth,
  type SessionDataInput,
  SessionValidator,
  type SessionValidatorService,
  SessionValidatorUnavailable
} from "../../src/v3/Auth/index.js"
import { fork, HttpServerRequest, requestOf, TestClock, text, yieldNow } from "./lineKit.js"

const validate = (id: string) =>
  Effect.flatMap(SessionValidator, (validator) => validator.validate(Redacted.make(id)))

const user: SessionDataInput & { team: string } = { user_id: "u1", email: "a@b.c", team: "core" }

describe("SessionValidator.fromPromise", () => {
  it.effect("resolves to the decoded session, extra fields kept; null/undefined → None", () =>
    Effect.gen(function* () {
      const seen: Array<[string, boolean]> = []
      const layer = SessionValidator.fromPromise(async (id, signal) => {
        seen.push([id, signal instanceof AbortSignal])
        return id === "s-1" ? user : id === "s-null" ? null : undefined
      })
      const found = yield* validate("s-1").pipe(Effect.provide(layer))
      expect(found).toEqual(Option.some({ user_id: "u1", email: "a@b.c", team: "core" }))
      expect(yield* validate("s-null").pipe(Effect.provide(layer))).toEqual(Option.none())
      expect(yield* validate("s-undefined").pipe(Effect.provide(layer))).toEqual(Option.none())
      expect(seen).toEqual([
        ["s-1", true],
        ["s-null", true],
        ["s-undefined", true]
      ])
    })
  )

  it.effect("accepts a plain (non-promise) answer", () =>
    Effect.gen(function* () {
      const layer = SessionValidator.fromPromise((id) => (id === "s-1" ? user : null))
      expect(Option.isSome(yield* validate("s-1").pipe(Effect.provide(layer)))).toBe(true)
    })
  )

  const failures: ReadonlyArray<{
    name: string
    lookup: (id: string) => unknown
    reason: SessionValidatorUnavailable["reason"]
  }> = [
    {
      name: "a rejection",
      lookup: async () => Promise.reject(new Error("db down")),
      reason: "Failure"
    },
    {
      name: "a synchronous throw",
      lookup: () => {
        throw new Error("bug")
      },
      reason: "Failure"
    },
    {
      name: "an answer without user_id",
      lookup: async () => ({ email: "x" }),
      reason: "InvalidResponse"
    },
    { name: "a string answer", lookup: async () => "yes", reason: "InvalidResponse" },
    {
      name: "permissions that are not strings",
      lookup: async () => ({ user_id: "u", permissions: [1] }),
      reason: "InvalidResponse"
    }
  ]

  it.effect.each(failures)("$name is unavailable ($reason), without the id", ({ lookup, reason }) =>
    Effect.gen(function* () {
      const layer = SessionValidator.fromPromise(lookup as never)
      const exit = yield* validate("secret-id-123").pipe(Effect.provide(layer), Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* validate("secret-id-123").pipe(Effect.provide(layer), Effect.flip)
      expect(error).toBeInstanceOf(SessionValidatorUnavailable)
      expect(error._tag).toBe("SessionValidatorUnavailable")
      expect(error.reason).toBe(reason)
      expect(error.message).not.toContain("secret-id-123")
    })
  )
})

describe("SessionValidator.memory", () => {
  it.effect("looks ids up in a Map or a record", () =>
    Effect.gen(function* () {
      for (const layer of [
        SessionValidator.memory(new Map([["s-1", user]])),
        SessionValidator.memory({ "s-1": user })
      ]) {
        expect(yield* validate("s-1").pipe(Effect.provide(layer))).toEqual(
          Option.some({ user_id: "u1", email: "a@b.c", team: "core" })
        )
        expect(yield* validate("s-2").pipe(Effect.provide(layer))).toEqual(Option.none())
        expect(yield* validate("toString").pipe(Effect.provide(layer))).toEqual(Option.none())
      }
    })
  )
})

/** A validator that counts its calls; `mode` decides its answer. */
const counting = () => {
  const state = { calls: 0, mode: "valid" as "valid" | "invalid" | "down" }
  const layer = Layer.succeed(SessionValidator, {
    validate: () =>
      Effect.suspend(() => {
        state.calls++
        if (state.mode === "down") {
          return Effect.fail(new SessionValidatorUnavailable({ reason: "Failure" }))
        }
        return Effect.succeed(
          state.mode === "valid" ? Option.some({ user_id: "u1" }) : Option.none()
        )
      })
  })
  return { state, layer }
}

describe("SessionValidator.cached", () => {
  it.effect("a hot session costs one call per ttl", () =>
    Effect.gen(function* () {
      const { state, layer } = counting()
      const cached = layer.pipe(
        SessionValidator.cached({ ttl: "1 minute", negativeTtl: "5 seconds" })
      )
      yield* Effect.gen(function* () {
        for (let i = 0; i < 10; i++) expect(Option.isSome(yield* validate("s-1"))).toBe(true)
        expect(state.calls).toBe(1)
        yield* TestClock.adjust("59 seconds")
        yield* validate("s-1")
        expect(state.calls).toBe(1)
        yield* TestClock.adjust("2 seconds")
        yield* validate("s-1")
        yield* validate("s-1")
        expect(state.calls).toBe(2)
        yield* validate("s-2")
        expect(state.calls).toBe(3)
      }).pipe(Effect.provide(cached))
    })
  )

  it.effect("invalid ids are remembered for negativeTtl", () =>
    Effect.gen(function* () {
      const { state, layer } = counting()
      state.mode = "invalid"
      const cached = SessionValidator.cached(layer, { ttl: "1 minute", negativeTtl: "5 seconds" })
      yield* Effect.gen(function* () {
        expect(yield* validate("s-1")).toEqual(Option.none())
        expect(yield* validate("s-1")).toEqual(Option.none())
        expect(state.calls).toBe(1)
        yield* TestClock.adjust("6 seconds")
        state.mode = "valid"
        expect(Option.isSome(yield* validate("s-1"))).toBe(true)
        expect(state.calls).toBe(2)
      }).pipe(Effect.provide(cached))
    })
  )

  it.effect("negativeTtl defaults to ttl", () =>
    Effect.gen(function* () {
      const { state, layer } = counting()
      state.mode = "invalid"
      yield* Effect.gen(function* () {
        yield* validate("s-1")
        yield* TestClock.adjust("59 seconds")
        yield* validate("s-1")
        expect(state.calls).toBe(1)
      }).pipe(Effect.provide(SessionValidator.cached(layer, { ttl: "1 minute" })))
    })
  )

  it.effect("unavailable answers are never cached", () =>
    Effect.gen(function* () {
      const { state, layer } = counting()
      state.mode = "down"
      yield* Effect.gen(function* () {
        const first = yield* Effect.flip(validate("s-1"))
        expect(first.reason).toBe("Failure")
        yield* Effect.flip(validate("s-1"))
        expect(state.calls).toBe(2)
        state.mode = "valid"
        expect(Option.isSome(yield* validate("s-1"))).toBe(true)
        yield* validate("s-1")
        expect(state.calls).toBe(3)
      }).pipe(Effect.provide(SessionValidator.cached(layer, { ttl: "1 minute" })))
    })
  )

  it.effect(
    "a hit is an answer already settled (an Exit); concurrent misses share one lookup",
    () =>
      Effect.gen(function* () {
        let calls = 0
        const gate = yield* Deferred.make<void>()
        const slow = Layer.succeed(SessionValidator, {
          validate: () =>
            Effect.andThen(
              Effect.sync(() => calls++),
              Effect.as(Deferred.await(gate), Option.some({ user_id: "u1" }))
            )
        })
        yield* Effect.gen(function* () {
          const validator = yield* SessionValidator
          const id = Redacted.make("s-1")
          const waiting = yield* fork(
            Effect.all([validator.validate(id), validator.validate(id), validator.validate(id)], {
              concurrency: "unbounded"
            })
          )
          yield* yieldNow
          yield* Deferred.succeed(gate, undefined)
          const answers = yield* Fiber.join(waiting)
          expect(answers.every(Option.isSome)).toBe(true)
          expect(calls).toBe(1)
          const hit = validator.validate(id)
          expect(Exit.isExit(hit)).toBe(true)
          expect(yield* hit).toEqual(Option.some({ user_id: "u1" }))
          yield* TestClock.adjust("61 seconds")
          expect(Exit.isExit(validator.validate(id))).toBe(false)
        }).pipe(Effect.provide(SessionValidator.cached(slow, { ttl: "1 minute" })))
      })
  )

  it.effect("capacity bounds how many ids are remembered", () =>
    Effect.gen(function* () {
      const { state, layer } = counting()
      yield* Effect.gen(function* () {
        yield* validate("a")
        yield* validate("b")
        yield* validate("c")
        yield* validate("a")
        expect(state.calls).toBe(4)
      }).pipe(Effect.provide(SessionValidator.cached(layer, { ttl: "1 minute", capacity: 2 })))
    })
  )
})

describe("the known capability", () => {
  /** A guard in front of a handler, asked with `id` in the header. */
  const guarded = (validator: SessionValidatorService, id: string) =>
    text("ok").pipe(
      requireAuth(),
      Effect.provideService(SessionValidator, validator),
      Effect.provideService(
        HttpServerRequest.HttpServerRequest,
        requestOf(new Request("http://localhost/", { headers: { "x-session-id": id } }))
      ),
      Effect.map((response) => response.status)
    )

  it.effect("the guards answer from known without running validate; None falls back to it", () =>
    Effect.gen(function* () {
      const calls = { validate: 0, known: 0 }
      const validator: SessionValidatorService = {
        validate: () =>
          Effect.sync(() => {
            calls.validate++
            return Option.some({ user_id: "late" })
          }),
        known: (id) => {
          calls.known++
          const raw = Redacted.value(id)
          return raw === "hot"
            ? Option.some(Option.some({ user_id: "u1" }))
            : raw === "gone"
              ? Option.some(Option.none())
              : Option.none()
        }
      }
      expect(yield* guarded(validator, "hot")).toBe(200)
      expect(yield* guarded(validator, "gone")).toBe(401)
      expect(calls).toEqual({ validate: 0, known: 2 })
      expect(yield* guarded(validator, "cold")).toBe(200)
      expect(calls).toEqual({ validate: 1, known: 3 })
    })
  )

  it.effect("a known that throws is unavailable: 500", () =>
    Effect.gen(function* () {
      const validator: SessionValidatorService = {
        validate: () => Effect.succeed(Option.some({ user_id: "u1" })),
        known: () => {
          throw new Error("broken table")
        }
      }
      expect(yield* guarded(validator, "any")).toBe(500)
    })
  )

  it.effect("memory and cached know their answers; cached only after a lookup settled", () =>
    Effect.gen(function* () {
      const memory = yield* Effect.provide(
        SessionValidator,
        SessionValidator.memory({ "s-1": user })
      )
      expect(memory.known?.(Redacted.make("s-1"))).toEqual(Option.some(Option.some(user)))
      expect(memory.known?.(Redacted.make("s-2"))).toEqual(Option.some(Option.none()))
      const { layer } = counting()
      const cached = yield* Effect.provide(
        SessionValidator,
        layer.pipe(SessionValidator.cached({ ttl: "1 minute" }))
      )
      const id = Redacted.make("s-1")
      expect(cached.known?.(id)).toEqual(Option.none())
      yield* cached.validate(id)
      expect(cached.known?.(id)).toEqual(Option.some(Option.some({ user_id: "u1" })))
      yield* TestClock.adjust("1 minute")
      expect(cached.known?.(id)).toEqual(Option.none())
    })
  )
})
