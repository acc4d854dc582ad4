// Every optional option accepts `undefined` (`exactOptionalPropertyTypes`): a value that may be
// absent can be passed on as it is, and the runtime treats `undefined` as absent.
import type {
  CacheOptions,
  GuardOptions,
  HttpApiAuth,
  HttpValidatorOptions,
  PermissionOptions,
  RedisStoreOptions,
  SessionStoreOptions
} from "svc-sdk/Auth"
import { createSvc, type RequestOptions, type SvcConfig } from "svc-sdk/Client"
import type { ParseOptions } from "svc-sdk/Query"

/** The keys of `T` whose property is optional but does not accept `undefined`. */
type Refusing<T> = {
  [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K>
    ? { readonly [P in K]: undefined } extends Pick<T, K>
      ? never
      : K
    : never
}[keyof T]
/** Holds only when `T` is `never`; otherwise names the offending keys. */
const none = <T extends never>(..._: [T] extends [never] ? [] : [refusing: T]): void => {}

none<Refusing<SvcConfig>>()
none<Refusing<RequestOptions>>()
none<Refusing<GuardOptions>>()
none<Refusing<PermissionOptions>>()
none<Refusing<HttpApiAuth.SchemeOptions>>()
none<Refusing<HttpApiAuth.LayerOptions>>()
none<Refusing<CacheOptions>>()
none<Refusing<HttpValidatorOptions>>()
none<Refusing<SessionStoreOptions>>()
none<Refusing<RedisStoreOptions>>()
none<Refusing<ParseOptions>>()

declare const maybeNumber: number | undefined
declare const maybeString: string | undefined
declare const maybeSignal: AbortSignal | undefined

const config: SvcConfig = { sessionId: maybeString, timeout: maybeNumber }
export const svc = createSvc("http://127.0.0.1:1", config)
export const got = svc.get("/x", {
  timeout: maybeNumber,
  signal: maybeSignal,
  retryAttempts: maybeNumber
})
