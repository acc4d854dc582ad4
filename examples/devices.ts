/**
 * The demo's devices and refresh tokens, written once for both Effect lines' apps (`app.ts` on
 * Effect 4, `v3/app.ts` on Effect 3): each line's routes read the request and the user, then run
 * these programs over its two stores. Only what both Effects spell the same is used here
 * (`Effect.gen`, `Option`, `Redacted`).
 *
 * A device is one sign-in: a refresh token, kept in a store of its own (`RefreshTokens`, a second
 * `SessionStore`: its handle names the device and stays the same through `rotate`), and the session
 * id it currently has, in the `SessionStore` the guards read, whose data names the device
 * (`device`, the refresh token's handle). The session id is what requests carry; the refresh token
 * only ever goes to `POST /refresh`, which spends it (`rotate`: one winner however many present it
 * at once) for a new session id and the next token; a spent token presented again ends its device. Ending a device ends its refresh token first,
 * then its sessions, so that no refresh running meanwhile leaves it a way back: a refresh checks
 * that its token is still live after it made the new session, and ends that session otherwise.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  deviceEnded,
  devices,
  INVALID_REFRESH_TOKEN,
  othersEnded,
  refreshed,
  welcome
} from "./answers.js"
import { sessionOf, type User, userById } from "./users.js"

type Id = Redacted.Redacted<string>

/** What a session holds, as the demo reads it: its user and, for a device's session, the device. */
interface Stored {
  readonly user_id: string
  readonly device?: unknown
}

/** What the demo uses of a `SessionStore` (the service of `svc-sdk/Auth` and `svc-sdk/v3/Auth`). */
export interface Store<E> {
  readonly create: (session: ReturnType<typeof sessionOf> | Stored) => Effect.Effect<Id, E>
  readonly get: (id: Id) => Effect.Effect<Option.Option<Stored>, E>
  readonly revoke: (id: Id) => Effect.Effect<void, E>
  readonly revokeUser: (userId: string) => Effect.Effect<number, E>
  readonly rotate: (id: Id) => Effect.Effect<Option.Option<Id>, E>
  readonly handleOf: (id: Id) => Effect.Effect<Option.Option<string>, E>
  readonly list: (userId: string) => Effect.Effect<
    ReadonlyArray<{
      readonly handle: string
      readonly createdAt: Date
      readonly lastSeenAt: Date
      readonly expiresAt: Date
      readonly data: Stored
    }>,
    E
  >
  readonly revokeHandle: (userId: string, handle: string) => Effect.Effect<boolean, E>
  readonly revokeOthers: (id: Id) => Effect.Effect<number, E>
}

/** The sessions the guards read, and the devices' refresh tokens. */
export interface Stores<E> {
  readonly sessions: Store<E>
  readonly refreshTokens: Store<E>
}

/** How long a refresh token lives (the device stays signed in that long without a password). */
export const REFRESH_LIFETIMES = { ttl: "30 days" } as const

/** The device a session belongs to (none for a session stored before the demo had devices). */
export const deviceOf = (session: object): string | undefined => {
  const device = (session as { readonly device?: unknown }).device
  return typeof device === "string" ? device : undefined
}

/**
 * A refresh token as the client holds it: `<user>.<device>.<secret>`, the user's id in base64url,
 * the device (the stored token's handle) and the stored token itself. Only the secret is a
 * credential; the rest names the device, so that a spent token presented again ends the device it
 * was spent for (reuse detection: of the thief and the owner, whoever refreshes second ends both).
 */
const tokenOf = (userId: string, device: string, secret: Id): string =>
  `${Buffer.from(userId).toString("base64url")}.${device}.${Redacted.value(secret)}`

/** The parts of a refresh token, or `undefined` when it cannot be one. */
const partsOf = (token: string) => {
  const match = /^([A-Za-z0-9_-]{1,700})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (match === null) return undefined
  const [, user = "", device = "", secret = ""] = match
  return {
    userId: Buffer.from(user, "base64url").toString(),
    device,
    secret: Redacted.make(secret)
  }
}

/** Ends every session of the user's `device` (a refresh running meanwhile made at most one). */
const endSessionsOf = <E>(stores: Stores<E>, userId: string, device: string) =>
  Effect.gen(function* () {
    for (const info of yield* stores.sessions.list(userId)) {
      if (deviceOf(info.data) === device) yield* stores.sessions.revokeHandle(userId, info.handle)
    }
  })

/** Ends a device: its refresh token first, then its sessions. */
const endDevice = <E>(stores: Stores<E>, userId: string, device: string) =>
  Effect.gen(function* () {
    yield* stores.refreshTokens.revokeHandle(userId, device)
    yield* endSessionsOf(stores, userId, device)
  })

/**
 * The answer to a login that passed the password check, and the session id for the cookie. A
 * `presented` live session of the same user is rotated (a new id, the old one ended at once:
 * session fixation); it stays the same device, whose refresh token stays valid, so the answer
 * carries none. Otherwise a new device: a refresh token, then its first session.
 */
export const signIn = <E>(stores: Stores<E>, user: User, presented: Option.Option<Id>) =>
  Effect.gen(function* () {
    const rotated = Option.isSome(presented)
      ? yield* stores.sessions.rotate(presented.value)
      : Option.none<Id>()
    if (Option.isSome(rotated)) {
      return { id: rotated.value, answer: welcome(user, Redacted.value(rotated.value)) }
    }
    const token = yield* stores.refreshTokens.create({ user_id: user.user_id })
    const device = Option.getOrElse(yield* stores.refreshTokens.handleOf(token), () => "")
    const id = yield* stores.sessions.create({ ...sessionOf(user), device })
    return { id, answer: welcome(user, Redacted.value(id), tokenOf(user.user_id, device, token)) }
  })

/**
 * `POST /refresh`: spends a refresh token for a new session id of its device and the device's next
 * token; the device's older sessions end. A malformed, unknown, spent or ended token is refused
 * with one answer, and a spent one ends its device too (whoever presents it, the device's owner
 * or whoever stole it, only one of them may go on). `count` counts a refresh that succeeded and
 * answers how many there have been.
 */
export const refresh = <E>(stores: Stores<E>, token: string, count: Effect.Effect<number>) =>
  Effect.gen(function* () {
    const refused = { id: Option.none<Id>(), answer: INVALID_REFRESH_TOKEN }
    const parts = partsOf(token)
    if (parts === undefined) return refused
    // the one atomic step: of several requests presenting the token, one gets the next
    const next = yield* stores.refreshTokens.rotate(parts.secret)
    if (Option.isNone(next)) {
      // spent, ended or never issued. A device still live by that name: the token was one of its
      // spent ones (its name, a random handle, is only ever seen in its tokens), so whoever holds
      // it, the owner or a thief, the device ends
      const live = yield* stores.refreshTokens.list(parts.userId || "?")
      if (live.some((info) => info.handle === parts.device)) {
        yield* endDevice(stores, parts.userId, parts.device)
      }
      return refused
    }
    const [stored, device] = [
      yield* stores.refreshTokens.get(next.value),
      yield* stores.refreshTokens.handleOf(next.value)
    ]
    if (Option.isNone(stored) || Option.isNone(device)) return refused
    const user = userById(stored.value.user_id)
    if (user === undefined) {
      yield* stores.refreshTokens.revoke(next.value)
      return refused
    }
    // the user as they are now: a change of role since the last session shows in the new one
    const id = yield* stores.sessions.create({ ...sessionOf(user), device: device.value })
    if (Option.isNone(yield* stores.refreshTokens.get(next.value))) {
      // the device ended meanwhile (logout, "sign out other devices"): no way back
      yield* stores.sessions.revoke(id)
      return refused
    }
    const current = yield* stores.sessions.handleOf(id)
    for (const info of yield* stores.sessions.list(user.user_id)) {
      const older = info.handle !== Option.getOrUndefined(current)
      if (older && deviceOf(info.data) === device.value) {
        yield* stores.sessions.revokeHandle(user.user_id, info.handle)
      }
    }
    const refreshes = yield* count
    return {
      id: Option.some(id),
      answer: refreshed(
        Redacted.value(id),
        tokenOf(user.user_id, device.value, next.value),
        refreshes
      )
    }
  })

/** The signed-in user, as the guards give it to a handler. */
export interface Caller {
  readonly user_id: string
  readonly session: object
  readonly session_id: Id
}

/** `POST /logout`: ends this device (its refresh token too) and the session presented. */
export const signOut = <E>(stores: Stores<E>, caller: Caller) =>
  Effect.gen(function* () {
    const device = deviceOf(caller.session)
    if (device !== undefined) yield* endDevice(stores, caller.user_id, device)
    yield* stores.sessions.revoke(caller.session_id)
  })

/** `POST /logout/all`: every refresh token of the user, then every session; how many sessions. */
export const signOutEverywhere = <E>(stores: Stores<E>, userId: string) =>
  Effect.flatMap(stores.refreshTokens.revokeUser(userId), () => stores.sessions.revokeUser(userId))

/** `GET /sessions`: the user's devices, the caller's marked `current`. */
export const listDevices = <E>(stores: Stores<E>, caller: Caller) =>
  Effect.gen(function* () {
    const current = yield* stores.sessions.handleOf(caller.session_id)
    const listed = yield* stores.sessions.list(caller.user_id)
    return devices(listed, Option.getOrUndefined(current))
  })

/** `DELETE /sessions/:handle`: ends the device of one of the user's sessions; 404 for any other. */
export const endDeviceByHandle = <E>(stores: Stores<E>, userId: string, handle: string) =>
  Effect.gen(function* () {
    const listed = yield* stores.sessions.list(userId)
    const found = listed.find((info) => info.handle === handle)
    if (found === undefined) return deviceEnded(false)
    const device = deviceOf(found.data)
    if (device !== undefined) yield* endDevice(stores, userId, device)
    yield* stores.sessions.revokeHandle(userId, handle)
    return deviceEnded(true)
  })

/**
 * `POST /sessions/others`: ends every other device, their refresh tokens first (a device whose
 * session has already expired included), then every other session; answers how many sessions.
 */
export const endOtherDevices = <E>(stores: Stores<E>, caller: Caller) =>
  Effect.gen(function* () {
    const mine = deviceOf(caller.session)
    for (const info of yield* stores.refreshTokens.list(caller.user_id)) {
      if (info.handle !== mine)
        yield* stores.refreshTokens.revokeHandle(caller.user_id, info.handle)
    }
    return othersEnded(yield* stores.sessions.revokeOthers(caller.session_id))
  })
