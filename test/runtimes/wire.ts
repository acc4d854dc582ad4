/**
 * How a call of the conformance suite and its `ApiResponse` cross between the test (Node) and the
 * client in another runtime: JSON, with what JSON cannot carry tagged — `undefined` (a header set
 * to `undefined` must arrive as one, not as a missing key), bytes, `Blob`s, `FormData`. Functions
 * (`onError`) and an `AbortSignal` become markers the other side stands in for. Runs in every
 * runtime: web APIs only.
 */

/** A value as JSON carries it. */
export type Wire = null | boolean | number | string | ReadonlyArray<Wire> | { [key: string]: Wire }

const bytesOf = (bytes: Uint8Array): Wire => ({ $bytes: Array.from(bytes) })

/** `value` in its wire form: a `Blob`'s or a `FormData`'s content read first. */
export const encode = async (value: unknown): Promise<Wire> => {
  if (value === undefined) return { $undefined: true }
  if (value === null || typeof value !== "object") {
    if (typeof value === "function") return { $function: true }
    if (typeof value === "number" && !Number.isFinite(value)) return { $number: String(value) }
    return value as Wire
  }
  if (value instanceof Uint8Array) return bytesOf(value)
  if (value instanceof Blob) {
    return {
      $blob: bytesOf(new Uint8Array(await value.arrayBuffer())),
      type: value.type,
      name: value instanceof File ? value.name : null
    }
  }
  if (value instanceof FormData) {
    const entries: Array<Wire> = []
    for (const [name, entry] of value) entries.push([name, await encode(entry)])
    return { $form: entries }
  }
  if (value instanceof AbortSignal) return { $signal: true }
  if (Array.isArray(value)) return Promise.all(value.map(encode))
  const object: { [key: string]: Wire } = {}
  for (const [key, entry] of Object.entries(value)) object[key] = await encode(entry)
  return object
}

/** What `encode` gave, back; `stand` replaces the markers of functions and signals. */
export const decode = (
  wire: Wire,
  stand: { readonly function?: () => unknown; readonly signal?: () => unknown } = {}
): unknown => {
  if (wire === null || typeof wire !== "object") return wire
  if (Array.isArray(wire)) return wire.map((entry) => decode(entry, stand))
  const tagged = wire as { [key: string]: Wire }
  if (tagged.$undefined === true) return undefined
  if (tagged.$function === true) return stand.function?.()
  if (tagged.$signal === true) return stand.signal?.()
  if (typeof tagged.$number === "string") return Number(tagged.$number)
  if (Array.isArray(tagged.$bytes)) return Uint8Array.from(tagged.$bytes as Array<number>)
  if (tagged.$blob !== undefined) {
    const bytes = decode(tagged.$blob) as Uint8Array<ArrayBuffer>
    const type = tagged.type as string
    return typeof tagged.name === "string"
      ? new File([bytes], tagged.name, { type })
      : new Blob([bytes], { type })
  }
  if (Array.isArray(tagged.$form)) {
    const form = new FormData()
    for (const entry of tagged.$form as Array<[string, Wire]>) {
      const value = decode(entry[1])
      if (value instanceof File) form.append(entry[0], value, value.name)
      else form.append(entry[0], value as string | Blob)
    }
    return form
  }
  const object: { [key: string]: unknown } = {}
  for (const [key, entry] of Object.entries(tagged)) object[key] = decode(entry, stand)
  return object
}

/** One call of the suite's client, as the runtime receives it. */
export interface Call {
  /** Which client: the facade, or the Effect API over one of its layers. */
  readonly api: Api
  readonly baseUrl: string
  readonly config: Wire
  readonly method: "get" | "post" | "put"
  readonly endpoint: string
  readonly body: Wire
  readonly options: Wire
  /**
   * When the call's options carry a signal: a URL of the test's that answers `aborted` once the
   * test's signal aborts (and anything else when the call ended first).
   */
  readonly abortUrl: string | null
}

/** The clients each runtime runs the suite over. */
export const APIS = ["facade", "layerDefault", "layer(FetchHttpClient)"] as const
export type Api = (typeof APIS)[number]

/** An error the client gave `onError`, as its JSON form, its text and its stack show it. */
export interface SeenError {
  readonly name: string
  readonly message: string
  readonly json: string
  readonly text: string
  readonly stack: string
  readonly cause: string
}

/** What the runtime answers a call with. */
export interface Answer {
  readonly response: Wire
  readonly errors: ReadonlyArray<SeenError>
}
