/**
 * An Effect 4 tracer that records every span attribute.
 */
import * as Tracer from "effect/Tracer"

export const recordingTracer = (attributes: Array<readonly [string, unknown]>): Tracer.Tracer =>
  Tracer.make({
    span: (options) =>
      ({
        _tag: "Span",
        name: options.name,
        spanId: "span",
        traceId: "trace",
        parent: options.parent,
        annotations: options.annotations,
        status: { _tag: "Started", startTime: options.startTime },
        attributes: new Map(),
        links: [...options.links],
        sampled: true,
        kind: options.kind,
        end: () => undefined,
        attribute: (key: string, value: unknown) => {
          attributes.push([key, value])
        },
        event: () => undefined,
        addLinks: () => undefined
      }) as unknown as Tracer.Span
  })
