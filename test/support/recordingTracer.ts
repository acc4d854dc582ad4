import * as Tracer from "effect/Tracer"

/** A tracer that records every span attribute. */
export const recordingTracer = (attributes: Array<readonly [string, unknown]>) =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) =>
      ({
        _tag: "Span",
        name,
        spanId: "span",
        traceId: "trace",
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: new Map(),
        links: [...links],
        sampled: true,
        kind,
        end: () => undefined,
        attribute: (key: string, value: unknown) => {
          attributes.push([key, value])
        },
        event: () => undefined,
        addLinks: () => undefined
      }) as unknown as Tracer.Span,
    context: (f) => f()
  })
