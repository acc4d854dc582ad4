import type { CombinedStorage, CombinedStorageTypeId } from "../CombinedStorage.js"
import type { StorageAdapter } from "../StorageAdapter.js"
import { allOrFirstFailure } from "./settle.js"

export const TypeId: CombinedStorageTypeId = Symbol.for(
  "svc-sdk/Storage/CombinedStorage"
) as CombinedStorageTypeId

export const isCombinedStorage = (value: unknown): value is CombinedStorage =>
  typeof value === "object" && value !== null && TypeId in value

type Found<A> = { readonly found: true; readonly value: A } | { readonly found: false }

/**
 * Asks each store in turn, skipping stores that fail, until one gives an answer that `accept`
 * takes. When none does and a store failed, rejects with the first failure.
 */
export const firstAccepted = async <A>(
  stores: ReadonlyArray<StorageAdapter>,
  ask: (store: StorageAdapter) => Promise<A>,
  accept: (value: A) => boolean
): Promise<Found<A>> => {
  let failure: { readonly reason: unknown } | undefined
  for (const store of stores) {
    try {
      const value = await ask(store)
      if (accept(value)) return { found: true, value }
    } catch (reason) {
      failure ??= { reason }
    }
  }
  if (failure !== undefined) throw failure.reason
  return { found: false }
}

const checked = (stores: ReadonlyArray<StorageAdapter>): ReadonlyArray<StorageAdapter> => {
  if (!Array.isArray(stores)) throw new TypeError("combinedStorage: stores must be an array")
  stores.forEach((store, index) => {
    if (
      typeof store !== "object" ||
      store === null ||
      typeof store.getItem !== "function" ||
      typeof store.setItem !== "function" ||
      typeof store.removeItem !== "function"
    ) {
      throw new TypeError(`combinedStorage: stores[${index}] is not a StorageAdapter`)
    }
  })
  return [...stores]
}

export const make = (input: ReadonlyArray<StorageAdapter>): CombinedStorage => {
  const stores = checked(input)
  return {
    [TypeId]: TypeId,
    stores,
    getItem: async (key) => {
      const result = await firstAccepted(
        stores,
        (store) => store.getItem(key),
        (v) => v !== null
      )
      return result.found ? result.value : null
    },
    setItem: async (key, value) => {
      if (stores.length === 0)
        throw new RangeError("combinedStorage: there is no store to write to")
      // the first store that takes it (each store that refuses is skipped; all refusing, the
      // first failure)
      const written = await firstAccepted(
        stores,
        (store) => store.setItem(key, value).then(() => stores.indexOf(store)),
        () => true
      )
      // the stores before it refused the write: what they hold under `key` goes, or a read,
      // which asks them first, would find it instead of this value. One that refuses this too
      // (blocked, as a read of it would be) does not fail the write, which was made.
      const index = written.found ? written.value : 0
      await Promise.allSettled(
        stores.slice(0, index).map(async (earlier) => earlier.removeItem(key))
      )
    },
    removeItem: (key) => allOrFirstFailure(stores.map((store) => () => store.removeItem(key)))
  }
}
