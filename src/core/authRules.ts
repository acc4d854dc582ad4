/**
 * What the guards decide (SPEC 6.2, 6.3, 6.3a), the same on both Effect lines: where a request's
 * session id is and whether it may go to the validator, what the validator's answer makes of the
 * request, and which pinned answer a guard gives. The bindings run the validator and write the
 * responses.
 */

import type { GuardSettings } from "./authOptions.js"
import { ErrorText } from "./authTexts.js"
import { isSameSiteRequest, type ServerRequestHead } from "./crossSite.js"
import { describe } from "./describe.js"
import { readSessionId } from "./sessionId.js"

/**
 * The fields of a session the guards read; each line's `SessionData` has them.
 */
export interface SessionFields {
  readonly user_id: string
  readonly user_type?: string | undefined
  readonly permissions?: ReadonlyArray<string> | undefined
  readonly [key: string]: unknown
}

/**
 * What a validator built with `fromPromise` or `memory` may hand over: a `SessionData` without the
 * index signature, so that a user's own interface (with more fields) fits. It is decoded with
 * `SessionData`, extra fields kept.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionDataInput {
  readonly user_id: string
  readonly email?: string | undefined
  readonly name?: string | undefined
  readonly user_type?: string | undefined
  readonly permissions?: ReadonlyArray<string> | undefined
}

/**
 * A request made with a valid session. `SessionId` is the line's `Redacted<string>`: the id the
 * request presented, for a handler that logs out or rotates.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthenticatedUserOf<Session, SessionId = unknown> {
  readonly user_id: string
  readonly session: Session
  /** The session id the request presented (redacted: it never shows in logs, spans or JSON). */
  readonly session_id: SessionId
  readonly is_guest: false
}

/**
 * A request made without a valid session (only `optionalAuth` lets one through).
 *
 * @since 0.1.0
 * @category models
 */
export interface Guest {
  readonly is_guest: true
}

/**
 * The one guest value.
 *
 * @since 0.1.0
 * @category constants
 */
export const guest: Guest = Object.freeze({ is_guest: true })

/** The outcome of looking at a request's session: what every later guard on it reuses. */
export type Resolution<User = AuthenticatedUserOf<SessionFields>> =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Unavailable" }
  | { readonly _tag: "CrossSite" }
  | Authenticated<User>

export interface Authenticated<User> {
  readonly _tag: "Authenticated"
  readonly user: User
}

// every request shares these: frozen, so that no handler can rewrite another request's verdict
export const missing = Object.freeze({ _tag: "Missing" } as const)
export const malformed = Object.freeze({ _tag: "Malformed" } as const)
export const invalid = Object.freeze({ _tag: "Invalid" } as const)
export const unavailable = Object.freeze({ _tag: "Unavailable" } as const)
export const crossSite = Object.freeze({ _tag: "CrossSite" } as const)

/** What a request needs the validator for: nothing (a resolution already), or this id. */
export type RequestReading =
  | typeof missing
  | typeof malformed
  | typeof crossSite
  | { readonly _tag: "Found"; readonly id: string }

/**
 * The first id present (header, cookie, query), if well-formed, and the cross-site check: a
 * forged request is refused before the validator is asked, so it learns nothing and costs nothing.
 */
export const readRequest = (
  request: ServerRequestHead & {
    readonly cookies: Readonly<Record<string, string | undefined>>
    readonly url: string
  },
  settings: GuardSettings
): RequestReading => {
  const reading = readSessionId(request, settings.source)
  switch (reading._tag) {
    case "Missing":
      return missing
    case "Malformed":
      return malformed
    case "Found":
      return reading.ambient && !isSameSiteRequest(request, settings.crossSite)
        ? crossSite
        : { _tag: "Found", id: reading.id }
  }
}

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/** Whether a key may be one of a decoded session's own: never one that reaches a prototype. */
export const isSessionKey = (key: string): boolean => !PROTOTYPE_KEYS.has(key)

/** A session decoded, or where it failed to decode (the paths only: values may quote the id). */
export type Decoded<Session> =
  | { readonly _tag: "Session"; readonly session: Session }
  | { readonly _tag: "NotSession"; readonly paths: string; readonly message: string }

/** Returns its argument from `new`: a subclass's private field lands on that object. */
class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: how a private field marks an object of another class
    return target
  }
}

/**
 * A private brand: `stamp(target, value)` marks an object with a value, `has(value)` tells a
 * marked one and `read` reads its value. No copy carries the mark, and neither the mark nor the
 * class that sets it can be reached from a marked object (its `constructor` is `Object`'s), so no
 * code outside can forge one.
 */
export const privateBrand = <Value = true>() => {
  class Brand extends Stamp {
    readonly #value: Value
    constructor(target: object, value: Value) {
      super(target)
      this.#value = value
    }
    static has(value: unknown): value is Brand {
      return typeof value === "object" && value !== null && #value in value
    }
    static read(value: Brand): Value {
      return value.#value
    }
  }
  return {
    stamp: <T extends object>(target: T, value: Value): T => {
      new Brand(target, value)
      return target
    },
    has: Brand.has,
    /** The value a marked object carries; `fallback` for any other. */
    read: <F>(value: unknown, fallback: F): Value | F =>
      Brand.has(value) ? Brand.read(value) : fallback
  }
}

/** How deep a session may nest: one nested deeper is refused, never handed over in part unfrozen. */
const SESSION_DEPTH = 64

/**
 * A frozen copy of a session's value: plain objects and arrays, all the way down, each copied once
 * (`copies`: a part met twice, or a cycle an application's own objects make, stays one); any other
 * value (a `Date`, a `Set`, a class instance, held by an application's own validator) is kept as
 * it is. A `RangeError` past {@link SESSION_DEPTH}.
 */
const frozenCopy = (value: unknown, depth: number, copies: Map<object, object>): unknown => {
  if (typeof value !== "object" || value === null) return value
  const known = copies.get(value)
  if (known !== undefined) return known
  if (depth > SESSION_DEPTH)
    throw new RangeError(`a session nests deeper than ${SESSION_DEPTH} levels`)
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length)
    copies.set(value, copy)
    for (let i = 0; i < value.length; i++) copy[i] = frozenCopy(value[i], depth + 1, copies)
    return Object.freeze(copy)
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return value
  const copy: Record<string, unknown> = {}
  copies.set(value, copy)
  for (const key of Object.keys(value)) {
    const field = frozenCopy((value as Record<string, unknown>)[key], depth + 1, copies)
    // a nested `__proto__` key is data (`JSON.parse` makes one): kept as a field, never a prototype
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: field, enumerable: true, writable: true })
    else copy[key] = field
  }
  return Object.freeze(copy)
}

/** A copy of the session's own fields (never one that reaches a prototype), its values frozen. */
const frozenSession = <Session extends object>(session: Session): Session => {
  const copy: Record<string, unknown> = {}
  const copies = new Map<object, object>()
  for (const key of Object.keys(session)) {
    if (isSessionKey(key))
      copy[key] = frozenCopy((session as Record<string, unknown>)[key], 1, copies)
  }
  return copy as Session
}

const decodedSessions = privateBrand()

/**
 * A session a line decoded, as the validators and stores hold it and the guards hand it to
 * handlers: frozen all the way down (plain objects and arrays; see `frozenCopy`), and marked as the
 * library's own. A handler that writes to its session (pushes a permission, say) gets a `TypeError`
 * instead of changing what a validator or a store holds for every later request. Each line's
 * `decodeSession` answers with it; one nested past {@link SESSION_DEPTH} is not a session.
 */
export const sessionDecoded = <Session extends object>(session: Session): Decoded<Session> => {
  try {
    return {
      _tag: "Session",
      session: Object.freeze(decodedSessions.stamp(frozenSession(session), true))
    }
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : "a field could not be read"
    return { _tag: "NotSession", paths: "the root", message }
  }
}

/**
 * The session a guard hands its handler: a session a line decoded as it is, else (an
 * application's own validator) a frozen copy of it, made afresh each time, so that a change the
 * application makes to what it holds is seen by the next request; an inherited field is never
 * read as the user's. Throws what the copy throws (a getter's error, a `RangeError`).
 */
export const ownSession = <Session extends object>(session: Session): Session =>
  decodedSessions.has(session) ? session : Object.freeze(frozenSession(session))

/** Why a guard refuses a request: the pinned status and error text. */
export interface Rejection {
  readonly status: 401 | 403 | 500
  readonly text: string
}

const refuse = (status: Rejection["status"], text: string): Rejection =>
  Object.freeze({ status, text })
const rejections = {
  Missing: refuse(401, ErrorText.sessionIdRequired),
  Malformed: refuse(401, ErrorText.invalidSession),
  Invalid: refuse(401, ErrorText.invalidSession),
  Unavailable: refuse(500, ErrorText.unavailable),
  CrossSite: refuse(403, ErrorText.crossSite)
} as const
export const authenticationRequired = refuse(401, ErrorText.authenticationRequired)

/** `requireAuth`'s answer to a resolution that is not `Authenticated`. */
export const rejection = (resolution: { readonly _tag: keyof typeof rejections }): Rejection =>
  rejections[resolution._tag]

/** The users the guards check: any line's, with its session. */
type AnyUser = { readonly session: SessionFields }

/** What a guard checks once the resolution is there; `known` when an earlier guard made it. */
export type Check = (resolution: Resolution<AnyUser>, known: boolean) => Rejection | undefined

/** `requireAuth`'s check: `Authenticated` goes on. */
export const authenticatedOnly: Check = (resolution) =>
  resolution._tag === "Authenticated" ? undefined : rejection(resolution)

/**
 * An established guest is `Authentication required`; a fresh failure is `requireAuth`'s error, and
 * so is a cross-site request, however it was established.
 */
const rejectGuest = (
  resolution: Exclude<Resolution<AnyUser>, Authenticated<AnyUser>>,
  known: boolean
) => (known && resolution._tag !== "CrossSite" ? authenticationRequired : rejection(resolution))

/**
 * A field the session has itself: an inherited one (from a polluted prototype, say) never counts as
 * the user's type or permissions.
 */
const ownField = (session: SessionFields, key: "user_type" | "permissions"): unknown =>
  Object.hasOwn(session, key) ? session[key] : undefined

/** The default administrator test of `requirePermission`: `user_type === "admin"`. */
export const isAdministrator = (session: SessionFields): boolean =>
  ownField(session, "user_type") === "admin"

const hasPermission = (session: SessionFields, permission: string): boolean => {
  const permissions = ownField(session, "permissions")
  return Array.isArray(permissions) && permissions.includes(permission)
}

/** `requireUserType`'s check; bad types throw, naming `guard`. */
export const userTypeCheck = (
  guard: string,
  typeOrTypes: string | ReadonlyArray<string>
): Check => {
  const types = typeof typeOrTypes === "string" ? [typeOrTypes] : typeOrTypes
  if (!Array.isArray(types)) {
    throw new TypeError(
      `${guard}: types must be a string or an array of strings, got ${describe(typeOrTypes)}`
    )
  }
  if (types.length === 0) throw new RangeError(`${guard}: types must not be empty`)
  for (const type of types) {
    if (typeof type !== "string" || type.length === 0) {
      throw new TypeError(`${guard}: every type must be a non-empty string, got ${describe(type)}`)
    }
  }
  const allowed = new Set(types)
  const forbidden = refuse(403, ErrorText.userTypes([...types]))
  return (resolution, known) => {
    if (resolution._tag !== "Authenticated") return rejectGuest(resolution, known)
    const type = ownField(resolution.user.session, "user_type")
    return typeof type === "string" && allowed.has(type) ? undefined : forbidden
  }
}

/** `requirePermission`'s check; a bad permission or `isAdmin` throws, naming `guard`. */
export const permissionCheck = (
  guard: string,
  permission: string,
  options: { readonly isAdmin?: ((session: never) => boolean) | undefined } | undefined
): Check => {
  if (typeof permission !== "string") {
    throw new TypeError(`${guard}: permission must be a string, got ${describe(permission)}`)
  }
  if (permission.length === 0) throw new RangeError(`${guard}: permission must not be empty`)
  // `null` is no check at all, not the default one: refused like any other non-function
  const isAdmin = (options?.isAdmin === undefined ? isAdministrator : options.isAdmin) as (
    session: SessionFields
  ) => boolean
  if (typeof isAdmin !== "function") {
    throw new TypeError(
      `${guard}: options.isAdmin must be a function (\`() => false\` lets no one past as an admin), got ${describe(isAdmin)}`
    )
  }
  const forbidden = refuse(403, ErrorText.permission(permission))
  return (resolution, known) => {
    if (resolution._tag !== "Authenticated") return rejectGuest(resolution, known)
    const session = resolution.user.session
    return isAdmin(session) || hasPermission(session, permission) ? undefined : forbidden
  }
}

/**
 * The names a middleware of `HttpApi` reads the id from, in the order it tries them, as security
 * schemes: `false` leaves a place out.
 */
export const schemePlaces = (
  settings: GuardSettings,
  header: string
): ReadonlyArray<readonly ["header" | "cookie" | "query", string]> => {
  const places: Array<readonly ["header" | "cookie" | "query", string]> = [["header", header]]
  if (settings.source.cookie !== false) places.push(["cookie", settings.source.cookie])
  if (settings.source.query !== false) places.push(["query", settings.source.query])
  return places
}
