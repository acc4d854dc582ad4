import { detectStorage, findSessionId, isCombinedStorage } from "../../src/Storage/index.js"
import { NONE, type StoragePage, showOutcome } from "./outcomes.js"

const detect: StoragePage["detect"] = async (scenario, expected) => {
  const storage = await detectStorage()
  const stores = isCombinedStorage(storage) ? storage.stores.length : storage === undefined ? 0 : 1
  const id = storage === undefined ? undefined : await findSessionId(storage)
  showOutcome(scenario, expected, id ?? NONE)
  return { stores, id: id ?? null }
}

const storagePage: StoragePage = { detect, show: showOutcome }
Object.assign(window, { storagePage })
