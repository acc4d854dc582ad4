import {
  clearSessionId,
  detectStorage,
  findSessionId,
  isCombinedStorage,
  type StorageAdapter,
  saveSessionId
} from "../../src/Storage/index.js"
import { NONE, type StoragePage, showOutcome } from "./outcomes.js"

const detect: StoragePage["detect"] = async (scenario, expected) => {
  const storage = await detectStorage()
  const stores = isCombinedStorage(storage) ? storage.stores.length : storage === undefined ? 0 : 1
  const id = storage === undefined ? undefined : await findSessionId(storage)
  showOutcome(scenario, expected, id ?? NONE)
  return { stores, id: id ?? null }
}

const onDetected = async (task: (storage: StorageAdapter) => Promise<void>) => {
  const storage = await detectStorage()
  if (storage === undefined) return "no storage"
  return task(storage).then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.name : String(error))
  )
}

const storagePage: StoragePage = {
  detect,
  save: (id) => onDetected((storage) => saveSessionId(storage, id)),
  clear: () => onDetected(clearSessionId),
  show: showOutcome
}
Object.assign(window, { storagePage })
