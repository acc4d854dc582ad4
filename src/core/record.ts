/**
 * A plain object that a request keeps until it ends, made by `new Object()` and filled field by
 * field rather than written as an object literal.
 *
 * V8 pretenures the objects of a literal when most of them outlive a young-generation
 * collection, as a request's records do under load. It keeps that decision for the life of the
 * process: every later object of that literal is made in the old generation, and keeps what it
 * points to (headers, bodies, closures) alive until a full collection. `new Object()` and `new` of
 * a class are never pretenured. Measured in docs/design.md; `npm run bench -- pretenuring`.
 *
 * Unlike a literal's, its type does not check that every required field is set: the caller sets
 * them all, on every path.
 */
export const record = <T extends object>(): { -readonly [K in keyof T]: T[K] } =>
  new Object() as { -readonly [K in keyof T]: T[K] }
