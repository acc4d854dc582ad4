/**
 * The demo's users. Passwords are never stored: each user keeps a random salt and the scrypt hash
 * of the password, and a login compares hashes in constant time. Unknown emails are hashed too,
 * so that the answer takes as long whether or not the email exists.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from "node:crypto"

export interface User {
  readonly user_id: string
  readonly email: string
  readonly name: string
  readonly user_type: string
  readonly permissions: ReadonlyArray<string>
}

interface Credentials {
  readonly user: User
  readonly salt: Buffer
  readonly hash: Buffer
}

const KEY_LENGTH = 32

/** The demo's passwords, printed by `npm run demo:server` so you can try them with curl. */
export const DEMO_PASSWORDS = {
  "alice@example.com": "alice-secret",
  "bob@example.com": "bob-secret",
  "carol@example.com": "carol-secret"
} as const

const USERS: ReadonlyArray<User> = [
  {
    user_id: "u-alice",
    email: "alice@example.com",
    name: "Alice",
    user_type: "admin",
    permissions: []
  },
  {
    user_id: "u-bob",
    email: "bob@example.com",
    name: "Bob",
    user_type: "editor",
    permissions: ["products:read", "products:create", "products:delete"]
  },
  {
    user_id: "u-carol",
    email: "carol@example.com",
    name: "Carol",
    user_type: "viewer",
    permissions: ["products:read"]
  }
]

const enrol = (user: User, password: string): Credentials => {
  const salt = randomBytes(16)
  return { user, salt, hash: scryptSync(password, salt, KEY_LENGTH) }
}

const CREDENTIALS: ReadonlyMap<string, Credentials> = new Map(
  USERS.map((user) => [
    user.email,
    enrol(user, DEMO_PASSWORDS[user.email as keyof typeof DEMO_PASSWORDS])
  ])
)

/** Compared against when the email is unknown; matches no password anyone can type. */
const NOBODY = enrol(USERS[0] as User, randomBytes(32).toString("hex"))

const hashOf = (password: string, salt: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, (error, key) => (error ? reject(error) : resolve(key)))
  )

/** The user whose email and password match, else `undefined` (one answer for both mistakes). */
export const authenticate = async (email: string, password: string): Promise<User | undefined> => {
  const known = CREDENTIALS.get(email.trim().toLowerCase())
  const credentials = known ?? NOBODY
  const hash = await hashOf(password, credentials.salt)
  return known !== undefined && timingSafeEqual(hash, credentials.hash) ? known.user : undefined
}

/** The user with this id, if there is one (a refresh finds its user again: roles may change). */
export const userById = (userId: string): User | undefined =>
  USERS.find((user) => user.user_id === userId)

/**
 * What the session store keeps for a logged-in user: what the guards check, nothing secret (a
 * `SessionDataInput` of `svc-sdk/Auth` and of `svc-sdk/v3/Auth` alike).
 */
export const sessionOf = (user: User) => ({
  user_id: user.user_id,
  email: user.email,
  name: user.name,
  user_type: user.user_type,
  permissions: user.permissions
})
