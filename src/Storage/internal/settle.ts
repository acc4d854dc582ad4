/**
 * Runs a synchronous storage call so that what it throws becomes a rejection.
 */
export const settle = <A>(thunk: () => A | PromiseLike<A>): Promise<A> => {
  try {
    return Promise.resolve(thunk())
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Runs every task, then rejects with the first failure if there was one.
 */
export const allOrFirstFailure = async (tasks: ReadonlyArray<() => Promise<void>>) => {
  const outcomes = await Promise.allSettled(tasks.map((task) => settle(task).then(() => {})))
  const failure = outcomes.find((outcome) => outcome.status === "rejected")
  if (failure !== undefined) throw failure.reason
}

/** Whether `value` has a storage's three methods (Web Storage, AsyncStorage, an adapter). */
export const hasStorageMethods = <S extends object>(value: unknown): value is S =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Record<string, unknown>).getItem === "function" &&
  typeof (value as Record<string, unknown>).setItem === "function" &&
  typeof (value as Record<string, unknown>).removeItem === "function"
