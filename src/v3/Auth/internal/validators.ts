import type * as Effect from "effect/Effect"
import * as validators from "../../../common/validators.js"
import {
  type CacheSettings,
  cacheSettings as checkCacheOptions,
  type MemorySessions,
  type SessionLookup
} from "../../../core/authService.js"
import type { CacheOptions, SessionValidatorService } from "../SessionValidator.js"
import { line } from "./line.js"

export type ValidatorService = SessionValidatorService

export const fromPromise = (lookup: SessionLookup): ValidatorService =>
  validators.fromPromise(line, lookup)

export const memory = (sessions: MemorySessions): ValidatorService =>
  validators.memory(line, sessions)

/** Checks the options at once, so that a bad `ttl` throws where `cached` is called. */
export const cacheSettings = (options: CacheOptions): CacheSettings =>
  checkCacheOptions(line.durationMillis, options)

export const cached = (
  underlying: ValidatorService,
  settings: CacheSettings
): Effect.Effect<ValidatorService> => validators.cached(line, underlying, settings)
