/**
 * The tracing suite on the Effect 3 line, with a real OpenTelemetry SDK: `@effect/opentelemetry`'s
 * tracer over an in-memory span exporter, and its metric producer read by a metric reader; over
 * undici (`SvcClient.layerDefault`), fetch (`config.fetch`) and the `HttpClient` adapter over
 * `@effect/platform`'s undici and fetch clients.
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { MetricReader } from "@opentelemetry/sdk-metrics"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor
} from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { afterAll } from "vitest"
import {
  createSvc,
  type RequestInterceptor,
  SvcClient,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { type CallOutcome, type DurationPoint, tracingSuite } from "./tracing/suite.js"

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const exporter = new InMemorySpanExporter()
const reader = new TestReader()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const runtime = ManagedRuntime.make(
  Layer.mergeAll(
    OtelTracer.layer,
    OtelMetrics.layer(() => reader)
  ).pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, provider)),
    Layer.provide(Resource.layer({ serviceName: "svc-sdk-test" }))
  )
)
afterAll(() => runtime.dispose())

const layers: Record<string, (baseUrl: string, config: SvcConfig) => Layer.Layer<SvcClient>> = {
  "undici (SvcClient.layerDefault)": (baseUrl, config) => SvcClient.layerDefault(baseUrl, config),
  "fetch (config.fetch)": (baseUrl, config) =>
    SvcClient.layerDefault(baseUrl, { ...config, fetch: globalThis.fetch }),
  "HttpClient adapter over NodeHttpClient.layerUndici": (baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici)),
  "HttpClient adapter over FetchHttpClient.layer": (baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer))
}

tracingSuite({
  name: "Effect 3",
  spanName: (method) => `http.client ${method}`,
  transports: Object.keys(layers),
  get: (transport, baseUrl, config, endpoint, options = {}) => {
    const program = Effect.gen(function* () {
      const client = yield* SvcClient
      if (options.setSessionId !== undefined) yield* client.setSessionId(options.setSessionId)
      if (options.interceptor !== undefined) {
        yield* client.addRequestInterceptor(options.interceptor as unknown as RequestInterceptor)
      }
      return yield* client.get(endpoint)
    }).pipe(
      Effect.match({
        onSuccess: (response): CallOutcome => ({ success: true, status: response.status }),
        onFailure: (error): CallOutcome => ({
          success: false,
          code: error.code,
          status: "status" in error ? error.status : undefined
        })
      }),
      Effect.withSpan("caller"),
      Effect.provide(layers[transport]!(baseUrl, config as SvcConfig))
    )
    return runtime.runPromise(
      options.tracerEnabled === false ? Effect.withTracerEnabled(program, false) : program
    )
  },
  facadeGet: async (baseUrl, config, endpoint) => {
    const response = await createSvc(baseUrl, config as SvcConfig).get(endpoint)
    return response.success
      ? { success: true, status: response.status }
      : { success: false, status: response.status, code: response.code }
  },
  spans: () => exporter.getFinishedSpans(),
  resetSpans: () => exporter.reset(),
  durations: async () => {
    const { resourceMetrics } = await reader.collect()
    const points: Array<DurationPoint> = []
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.descriptor.name !== "http.client.request.duration") continue
        for (const point of metric.dataPoints) {
          points.push({
            attributes: point.attributes,
            count: (point.value as { count: number }).count
          })
        }
      }
    }
    return points
  }
})
