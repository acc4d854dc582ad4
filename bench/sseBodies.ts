/**
 * The server-sent event bodies the benchmarks read: the streamed answer of an AI API (many small
 * `data:` events of token JSON) in English and in French, and a feed of larger events. Generated
 * deterministically, so that every run and every process reads the same bytes.
 */

/** A small deterministic generator, so that every run cuts the same chunks. */
export const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

export const english = [
  "The",
  " answer",
  " is",
  " forty",
  "-two",
  ",",
  " of",
  " course",
  ".",
  "\\n"
]
export const french = [
  "La",
  " réponse",
  " est",
  " qua",
  "rante",
  "-deux",
  ",",
  " bien",
  " sûr",
  " 🙂",
  "\\n"
]

/** An OpenAI-style chat completion stream: one `data:` line of JSON per token, then `[DONE]`. */
export const aiAnswer = (tokens: number, words: ReadonlyArray<string>): string => {
  const next = random(7)
  const parts: Array<string> = []
  for (let i = 0; i < tokens; i++) {
    const token = words[Math.floor(next() * words.length)]!
    parts.push(
      `data: {"id":"chatcmpl-9x8Yb2","object":"chat.completion.chunk","created":1732600000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"${token}"},"finish_reason":null}]}\n\n`
    )
  }
  parts.push("data: [DONE]\n\n")
  return parts.join("")
}

/** A feed of updates: `id`, `event`, a JSON document of about `size` bytes, a heartbeat now and then. */
export const feed = (events: number, size: number): string => {
  const next = random(11)
  const parts: Array<string> = []
  for (let i = 0; i < events; i++) {
    const items: Array<string> = []
    let length = 0
    while (length < size) {
      const item = `{"sku":"A-${Math.floor(next() * 1e6)}","name":"Übergröße ${i}","price":${(next() * 100).toFixed(2)},"stock":${Math.floor(next() * 50)}}`
      items.push(item)
      length += item.length + 1
    }
    parts.push(`id: ${i}\nevent: update\ndata: {"seq":${i},"items":[${items.join(",")}]}\n\n`)
    if (i % 20 === 19) parts.push(": keep-alive\n\n")
  }
  return parts.join("")
}
