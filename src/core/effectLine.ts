/**
 * Which Effect is installed, for the Effect 4 entry points (`svc-sdk`, `svc-sdk/Client`,
 * `svc-sdk/Auth`): with effect 3, they stop at once with an error that says what to do, before an
 * Effect 4 module that effect 3 lacks (`effect/References`) would fail with Node's
 * `ERR_PACKAGE_PATH_NOT_EXPORTED`.
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
