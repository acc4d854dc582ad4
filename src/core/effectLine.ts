/**
 * Which Effect is installed, for the entry points of each line: the Effect 4 ones (`svc-sdk`,
 * `svc-sdk/Client`, `svc-sdk/Auth`) with effect 3, and the Effect 3 ones (`svc-sdk/v3`, …) with
 * effect 4, stop at once with an error that says what to do, before a module the other Effect lacks
 * (`effect/References`, `effect/ConfigError`) would fail with Node's `ERR_PACKAGE_PATH_NOT_EXPORTED`
 * or `ERR_MODULE_NOT_FOUND`.
 */

/** The error of an Effect 4 entry point imported with effect 3 installed. */
export const EFFECT_3_INSTALLED =
  'svc-sdk: "svc-sdk", "svc-sdk/Client" and "svc-sdk/Auth" are the Effect 4 line and need effect 4, ' +
  'but effect 3 is installed. With effect 3 (and @effect/platform), import "svc-sdk/v3", ' +
  '"svc-sdk/v3/Client" and "svc-sdk/v3/Auth" instead; or install effect@4.'

/**
 * Throws {@link EFFECT_3_INSTALLED} unless `context`, the installed `effect/Context` (a module of
 * both Effects), is Effect 4's: Effect 4's has `Service`, Effect 3's has not.
 */
export const requireEffect4 = (context: object): void => {
  if (!("Service" in context)) throw new Error(EFFECT_3_INSTALLED)
}

/** The error of an Effect 3 entry point imported with effect 4 installed. */
export const EFFECT_4_INSTALLED =
  'svc-sdk: "svc-sdk/v3", "svc-sdk/v3/Client" and "svc-sdk/v3/Auth" are the Effect 3 line and need ' +
  'effect 3, but effect 4 is installed. With effect 4, import "svc-sdk", "svc-sdk/Client" and ' +
  '"svc-sdk/Auth" instead; or install effect@^3.22 and @effect/platform@^0.97.'

/** Throws {@link EFFECT_4_INSTALLED} unless `context`, the installed `effect/Context`, is Effect 3's. */
export const requireEffect3 = (context: object): void => {
  if ("Service" in context) throw new Error(EFFECT_4_INSTALLED)
}
