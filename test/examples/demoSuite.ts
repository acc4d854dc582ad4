/**
 * `npm run demo` end to end on one Effect line (`demo.test.ts` runs it on Effect 3,
 * `test/v4/examples/demo.test.ts` on Effect 4): both stories run, every step is printed and
 * checked, the process exits 0, and no session id is ever printed in full.
 */
import { describe, expect, it } from "vitest"
import { type Finished, type Line, runDemo } from "./processes.js"

const STEPS = [
  "Guest browses with filters",
  "Guest searches, page 2",
  "Malformed query is refused",
  "Guest asks who they are",
  "Login with a wrong password",
  "Bob (editor) logs in",
  "Bob asks who he is",
  "Bob deletes a product",
  "Bob opens admin stats",
  "Bob logs out",
  "Bob's old session is rejected",
  "Carol (viewer) logs in",
  "Carol deletes a product",
  "Bob signs in on his laptop",
  "Bob signs in on his phone",
  "Bob lists his devices",
  "Laptop signs in again: new id",
  "The laptop's old id is refused",
  "Bob ends his other devices",
  "The phone is signed out",
  "The phone cannot refresh",
  "5 wrong passwords for Dave",
  "The next try is locked out",
  "The laptop's session expires",
  "5 requests at once, 1 refresh",
  "The laptop signs out",
  "Its refresh token is ended too",
  "Alice (admin) logs in",
  "Alice opens admin stats",
  "Cross-site delete, her cookie",
  "Same-site delete, her cookie",
  "Slow answer times out (3 tries)",
  "503 twice, the retry succeeds",
  "Live feed resumes after a drop",
  "Streamed answer, token by token",
  "Download with a progress bar"
]

const count = (text: string, part: string) => text.split(part).length - 1

/** The line `npm run demo` starts with, naming the line it runs on. */
export const ANNOUNCED: Record<Line, RegExp> = {
  4: /^svc-sdk demo: Effect 4 line \(svc-sdk, examples\/demo\.ts\) on Node (\d+\.\d+\.\d+)/m,
  3: /^svc-sdk demo: Effect 3 line \(svc-sdk\/v3, examples\/v3\/demo\.ts\) on Node (\d+\.\d+\.\d+)/m
}

export const describeDemo = (line: Line) => {
  /** `npm run demo -- --line <line>`, run once for the tests that read its output. */
  let demo: Promise<Finished> | undefined
  const bothStories = () => {
    demo ??= runDemo(line)
    return demo
  }

  describe(`npm run demo on the Effect ${line} line`, () => {
    it("tells the story with the Promise facade and as an Effect program, and exits 0", async () => {
      const { code, stdout, stderr } = await bothStories()
      expect(stderr).not.toMatch(/went wrong/)
      expect(code).toBe(0)
      // on this Node: the tests run each line on the Node versions it supports
      expect(ANNOUNCED[line].exec(stdout)?.[1]).toBe(process.versions.node)
      expect(stdout).toContain('Promise facade: createSvc("http://127.0.0.1:')
      expect(stdout).toContain("Effect program: yield* SvcClient (http://127.0.0.1:")
      for (const step of STEPS) expect(count(stdout, step), step).toBe(2)
      expect(count(stdout, "TIMEOUT")).toBe(2)
      expect(count(stdout, "error: Cross-site request refused")).toBe(2)
      expect(count(stdout, '"attempts":3')).toBe(2)
      // the feed's events once each across the dropped connection, the answer whole, every byte
      expect(count(stdout, '"ids":"1 2 3 4 5","seqs":"1 2 3 4 5"')).toBe(2)
      expect(count(stdout, '{"answer":"Request sent in hope;')).toBe(2)
      expect(count(stdout, '"bar":"[########################] 100% 512 KiB of 512 KiB"')).toBe(2)
      expect(stdout).toContain("Every step answered as expected.")
      // 256-bit ids are 43 base64url characters; the demo shows 6 of them, or `<redacted>`.
      const tokens = (stdout.match(/[A-Za-z0-9_-]{40,}/g) ?? []).filter((run) =>
        /[A-Za-z0-9]/.test(run)
      )
      expect(tokens).toEqual([])
      expect(count(stdout, '"session_id":"<redacted>"')).toBe(12)
      expect(count(stdout, "refused as expected")).toBe(2 * 13)
      // Bob's devices: the laptop asks, the phone is the other; a burst of 5 refreshes once
      expect(count(stdout, "data: [this device, another device]")).toBe(2)
      expect(count(stdout, '{"requests":5,"succeeded":5,"refreshes":1}')).toBe(2)
      expect(count(stdout, "error: Too many attempts")).toBe(2)
      expect(count(stdout, "error: Invalid refresh token")).toBe(4)
      expect(stdout).not.toMatch(/✗|UNEXPECTED/)
    }, 180_000)

    it("tells the same story both ways: the two tables are the same, row for row", async () => {
      const { code, stdout } = await bothStories()
      expect(code).toBe(0)
      const tables = stdout
        .split(/^(?=Promise facade: |Effect program: )/m)
        .slice(1)
        .map((story) => {
          const url = /http:\/\/127\.0\.0\.1:\d+/.exec(story)?.[0] ?? "no URL"
          const [, ...rows] = story.replaceAll(url, "<server>").split("\n")
          return rows.join("\n").replace("\nEvery step answered as expected.", "").trim()
        })
      expect(tables).toHaveLength(2)
      expect(tables[0]?.split("\n").length).toBeGreaterThan(2 * STEPS.length)
      expect(tables[1]).toBe(tables[0])
    }, 180_000)

    it("runs one story on request: --effect", async () => {
      const { code, stdout } = await runDemo(line, ["--effect"])
      expect(code).toBe(0)
      expect(stdout).not.toContain("Promise facade")
      expect(stdout).toContain("Effect program")
      for (const step of STEPS) expect(count(stdout, step), step).toBe(1)
    }, 180_000)
  })
}
