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
