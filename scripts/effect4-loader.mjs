// `node --import ./scripts/effect4-loader.mjs …`: runs a program of this repo on the Effect 4 line.
// effect and its Effect 4 companions resolve from the Effect 4 toolchain (toolchains/effect4), as
// they would from an Effect 4 app's node_modules, wherever the importing file lives (the root's
// node_modules holds the Effect 3 toolchain). Needs Node ≥ 22.15 (module.registerHooks), which
// Effect 4 needs anyway.
import { registerHooks } from "node:module"

const toolchain = new URL("../toolchains/effect4/package.json", import.meta.url).href
// the OpenTelemetry packages too: @effect/opentelemetry needs the one copy it sees itself; and
// ioredis, at the major an Effect 4 app installs (the Effect 3 platform's peers hold the root's to 5)
const line =
  /^(effect|@effect\/(platform-node|platform-node-shared|vitest|opentelemetry)|@opentelemetry\/[^/]+|ioredis)(\/|$)/

registerHooks({
  resolve: (specifier, context, next) =>
    line.test(specifier)
      ? next(specifier, { ...context, parentURL: toolchain })
      : next(specifier, context)
})
