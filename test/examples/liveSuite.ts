/**
 * The demo server's streamed routes (`examples/live.ts`), called over loopback with fetch and read
 * as raw text: `GET /events` (ids, `retry:`, heartbeats, resuming after `Last-Event-ID`, a
 * dropped connection, 204 once every event is sent), `POST /chat` (tokens as JSON events, then
 * `done`), `GET /download` (the bytes asked for, with their `Content-Length`); the guards' 401 and
 * the 400s of bad input. Run inside `serverSuite.ts`'s describe, on its server, on both lines.
 */
import { expect, it } from "vitest"
import type { DemoServer } from "./processes.js"

/** One block of an event stream, its fields as sent (comments under `:`). */
type Block = Record<string, Array<string>>

/** The blocks of an event stream's text (the demo server ends lines with LF). */
const blocksOf = (text: string): Array<Block> =>
  text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const fields: Block = {}
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":")
        const name = line.slice(0, colon)
        fields[name] = [...(fields[name] ?? []), line.slice(colon + 1).replace(/^ /, "")]
      }
      return fields
    })

/** The ids of the blocks that are events. */
const idsOf = (blocks: ReadonlyArray<Block>) => blocks.flatMap((block) => block.id ?? [])

/** A body read to its end, or to the failure that cut it short. */
const readAll = async (response: Response) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += chunk.value
    }
    return { text, failed: false }
  } catch {
    return { text, failed: true }
  }
}

const loginAs = async (url: string, email: string, password: string): Promise<string> => {
  const response = await fetch(`${url}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password })
  })
  return ((await response.json()) as { data: { session_id: string } }).data.session_id
}

export const liveTests = (server: () => DemoServer) => {
  let session: Promise<string> | undefined
  const signedIn = () => {
    session ??= loginAs(server().url, "carol@example.com", "carol-secret")
    return session
  }
  const events = async (query: string, headers: Record<string, string> = {}) =>
    fetch(`${server().url}/events${query}`, {
      headers: { "x-session-id": await signedIn(), ...headers }
    })
  const chat = async (body: string, session?: string) =>
    fetch(`${server().url}/chat`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(session === undefined ? {} : { "x-session-id": session })
      },
      body
    })

  it("/events: a guarded event stream, every event with an id, a retry: field, never stored", async () => {
    const refused = await fetch(`${server().url}/events`)
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: "Session ID required" })

    const response = await events("?count=3&interval=0&retry=250")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    expect(response.headers.get("cache-control")).toBe("no-store")
    const { text, failed } = await readAll(response)
    expect(failed).toBe(false)
    const blocks = blocksOf(text)
    expect(blocks[0]?.retry).toEqual(["250"])
    expect(idsOf(blocks)).toEqual(["1", "2", "3"])
    const updates = blocks.filter((block) => block.id !== undefined)
    for (const [i, block] of updates.entries()) {
      expect(block.event).toEqual(["update"])
      expect(JSON.parse(block.data?.[0] ?? "")).toEqual({
        seq: i + 1,
        text: `Update ${i + 1} of 3`
      })
    }
  })

  it("/events: a comment after each heartbeat of silence, none while events come faster", async () => {
    const quiet = blocksOf(
      (await readAll(await events("?count=2&interval=250&heartbeat=100"))).text
    )
    // 250 ms between the two events: a comment at 100 and 200, the event at 250
    expect(quiet.map((block) => block.id?.[0] ?? block[""]?.[0])).toEqual([
      expect.stringMatching(/^2 events/),
      "1",
      "heartbeat",
      "heartbeat",
      "2"
    ])
    const busy = blocksOf((await readAll(await events("?count=3&interval=20&heartbeat=100"))).text)
    expect(busy.filter((block) => block[""]?.[0] === "heartbeat")).toEqual([])
  })

  it("/events: resumes after Last-Event-ID, and answers 204 once every event was sent", async () => {
    const resumed = await events("?count=5&interval=0", { "last-event-id": "3" })
    expect(resumed.status).toBe(200)
    expect(idsOf(blocksOf((await readAll(resumed)).text))).toEqual(["4", "5"])
    const empty = await events("?count=5&interval=0", { "last-event-id": "" })
    expect(idsOf(blocksOf((await readAll(empty)).text))).toEqual(["1", "2", "3", "4", "5"])
    const done = await events("?count=5", { "last-event-id": "5" })
    expect(done.status).toBe(204)
    expect(await done.text()).toBe("")
    for (const id of ["6", "x", "-1", "1.5", "0x2", "99999999999"]) {
      const bad = await events("?count=5", { "last-event-id": id })
      expect(bad.status, id).toBe(400)
      expect(await bad.json()).toEqual({
        error: "Last-Event-ID must be the id of an event of this feed"
      })
    }
  })

  it("/events?drop=N: the connection is cut after event N, mid-body; the resumed one runs to the end", async () => {
    const dropped = await readAll(await events("?count=4&interval=0&drop=2"))
    expect(dropped.failed).toBe(true)
    expect(idsOf(blocksOf(dropped.text))).toEqual(["1", "2"])
    const resumed = await readAll(
      await events("?count=4&interval=0&drop=2", { "last-event-id": "2" })
    )
    expect(resumed.failed).toBe(false)
    expect(idsOf(blocksOf(resumed.text))).toEqual(["3", "4"])
  })

  it.each([
    ["count=five", "count", "from 1 to 1000"],
    ["count=0", "count", "from 1 to 1000"],
    ["count=1001", "count", "from 1 to 1000"],
    ["count=1e2", "count", "from 1 to 1000"],
    ["count=", "count", "from 1 to 1000"],
    ["interval=-5", "interval", "from 0 to 60000"],
    ["heartbeat=1", "heartbeat", "from 10 to 60000"],
    ["retry=2.5", "retry", "from 0 to 60000"],
    ["drop=__proto__", "drop", "from 0 to 1000"]
  ])("/events?%s: 400 naming the parameter", async (query, name, range) => {
    const response = await events(`?${query}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: `Query parameter "${name}" must be a whole number ${range}`
    })
  })

  it("/chat: a guarded POST answered token by token as JSON events, then done", async () => {
    const prompt = JSON.stringify({ prompt: "A haiku about HTTP" })
    const refused = await chat(prompt)
    expect(refused.status).toBe(401)
    const response = await chat(prompt, await signedIn())
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/event-stream")
    const blocks = blocksOf((await readAll(response)).text)
    expect(idsOf(blocks)).toEqual([]) // an answer is not resumed
    const tokens = blocks.filter((block) => block.event?.[0] === "token")
    const data = tokens.map((block) => JSON.parse(block.data?.[0] ?? "") as { token: string })
    expect(data.map(({ token }) => token).join("")).toBe(
      "Request sent in hope;\nbytes arrive one by one, then\ntwo hundred, at last."
    )
    expect(blocks.at(-1)?.event).toEqual(["done"])
    expect(JSON.parse(blocks.at(-1)?.data?.[0] ?? "")).toEqual({
      token: "",
      finish: "stop",
      tokens: tokens.length
    })
  })

  it("/chat: 400 to a body without a prompt of 1 to 2000 characters", async () => {
    const session = await signedIn()
    for (const body of [
      "{}",
      '{"prompt": 42}',
      '{"prompt": "   "}',
      JSON.stringify({ prompt: "x".repeat(2_001) }),
      "not json"
    ]) {
      const response = await chat(body, session)
      expect(response.status, body).toBe(400)
      expect(await response.json()).toEqual({
        error: 'Expected a JSON body {"prompt"}: a prompt of 1 to 2000 characters'
      })
    }
  })

  it("/download?bytes=N: N bytes with their Content-Length, open to anyone; 400 past 16 MiB", async () => {
    for (const bytes of [0, 1, 100_000, 200_000]) {
      const response = await fetch(`${server().url}/download?bytes=${bytes}`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("application/octet-stream")
      expect(response.headers.get("content-length")).toBe(String(bytes))
      const body = new Uint8Array(await response.arrayBuffer())
      expect(body.byteLength).toBe(bytes)
      expect(new TextDecoder().decode(body.subarray(0, 8))).toBe("svc-sdk ".slice(0, bytes))
    }
    const byDefault = await fetch(`${server().url}/download`)
    expect(byDefault.headers.get("content-length")).toBe(String(1024 * 1024))
    await byDefault.body?.cancel()
    for (const query of ["bytes=16777217", "bytes=1e9", "bytes=-1", "bytes=lots"]) {
      const response = await fetch(`${server().url}/download?${query}`)
      expect(response.status, query).toBe(400)
      expect(await response.json()).toEqual({
        error: 'Query parameter "bytes" must be a whole number from 0 to 16777216'
      })
    }
  })
}
