import { describe, expect, it } from "vitest"
import {
  clearSessionId,
  findSessionId,
  SESSION_KEYS,
  type StorageAdapter,
  saveSessionId
} from "../../src/Storage/index.js"

/**
 * What every `StorageAdapter` must do. `make` gives a fresh adapter and a way to open a second
 * adapter over the same backing store (a page reload, an app restart).
 */
export const storageContract = (
  name: string,
  make: () => { readonly adapter: StorageAdapter; readonly reopen: () => StorageAdapter }
) =>
  describe(`StorageAdapter contract: ${name}`, () => {
    it("gives null for a key never written", async () => {
      const { adapter } = make()
      await expect(adapter.getItem("svc_session_id")).resolves.toBeNull()
    })

    it("reads back what was written, and the last write wins", async () => {
      const { adapter } = make()
      await adapter.setItem("svc_session_id", "first")
      await adapter.setItem("svc_session_id", "sess-ü-✓")
      await expect(adapter.getItem("svc_session_id")).resolves.toBe("sess-ü-✓")
    })

    it("keeps keys apart", async () => {
      const { adapter } = make()
      await adapter.setItem("svc_session_id", "a")
      await adapter.setItem("sid", "b")
      await adapter.removeItem("sid")
      await expect(adapter.getItem("svc_session_id")).resolves.toBe("a")
      await expect(adapter.getItem("sid")).resolves.toBeNull()
    })

    it("resolves when removing a key never written", async () => {
      const { adapter } = make()
      await expect(adapter.removeItem("sessionId")).resolves.toBeUndefined()
    })

    it("returns promises from every method, even for odd keys", async () => {
      const { adapter } = make()
      expect(adapter.getItem("")).toBeInstanceOf(Promise)
      expect(adapter.setItem("x y", "1")).toBeInstanceOf(Promise)
      expect(adapter.removeItem("x y")).toBeInstanceOf(Promise)
    })

    it("keeps a saved session id for the next adapter over the same store", async () => {
      const { adapter, reopen } = make()
      await saveSessionId(adapter, "persisted-123")
      await expect(findSessionId(reopen())).resolves.toBe("persisted-123")
    })

    it("finds the session under each pinned key, and clearSessionId forgets all of them", async () => {
      for (const key of SESSION_KEYS) {
        const { adapter, reopen } = make()
        await adapter.setItem(key, `id-under-${key}`)
        await expect(findSessionId(adapter)).resolves.toBe(`id-under-${key}`)
        await clearSessionId(adapter)
        await expect(findSessionId(reopen())).resolves.toBeUndefined()
      }
    })
  })
