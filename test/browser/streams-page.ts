import { createSvc, type Progress, type SseEvent } from "../../src/v3/index.js"

/** `stream`, `sse` and progress in the page, over the browser's fetch; results survive `page.evaluate`. */
const streamsPage = {
  /**
   * Reads a `stream` download chunk by chunk, recording its progress calls; once the first chunk
   * is read, asks the server for the rest (`rest`).
   */
  download: async (endpoint: string, rest: string) => {
    const calls: Array<Progress> = []
    const svc = createSvc(location.origin, { retryAttempts: 0 })
    const response = await svc.stream(endpoint, {
      onDownloadProgress: (progress) => void calls.push(progress)
    })
    if (!response.success) return { status: response.status, bytes: 0, calls, ahead: false }
    const reader = response.data.getReader()
    let bytes = 0
    // whether a call ever told more than the page had read
    let ahead = false
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (bytes === 0) await fetch(rest)
      bytes += next.value.byteLength
      if ((calls.at(-1)?.loaded ?? 0) > bytes) ahead = true
    }
    return { status: response.status, bytes, calls, ahead }
  },
  /** A whole body and an upload, with their progress calls. */
  whole: async (endpoint: string, size: number) => {
    const downloads: Array<Progress> = []
    const uploads: Array<Progress> = []
    const svc = createSvc(location.origin, {
      retryAttempts: 0,
      onDownloadProgress: (progress) => void downloads.push(progress),
      onUploadProgress: (progress) => void uploads.push(progress)
    })
    const response = await svc.post(endpoint, new Uint8Array(size).fill(1), {
      responseType: "bytes"
    })
    return {
      status: response.status,
      bytes: response.data instanceof Uint8Array ? response.data.byteLength : -1,
      downloads,
      uploads
    }
  },
  /**
   * Reads `count` events of an `sse` stream (which reconnects), then closes it; tells the server
   * each event's id once it has it (`told`).
   */
  events: async (endpoint: string, count: number, told: string) => {
    const calls: Array<Progress> = []
    const svc = createSvc(location.origin, { retryAttempts: 0 })
    const response = await svc.sse(endpoint, {
      reconnect: { delay: 10 },
      onDownloadProgress: (progress) => void calls.push(progress)
    })
    if (!response.success) return { events: [], closed: response, lastEventId: "", calls }
    const events: Array<SseEvent<string>> = []
    for await (const event of response.data) {
      events.push(event)
      await fetch(`${told}?id=${event.id}`)
      if (events.length >= count) response.data.close()
    }
    const closed = await response.data.closed
    const seen = calls.length
    // nothing more is told once the stream is closed
    await new Promise((resolve) => setTimeout(resolve, 50))
    return {
      events,
      closed,
      lastEventId: response.data.lastEventId,
      calls,
      after: calls.length - seen
    }
  }
}
Object.assign(window, { streamsPage })
