/**
 * How `npm run demo` runs its two stories, the same on both Effect lines (`demo.ts` on Effect 4,
 * `v3/demo.ts` on Effect 3): each chosen story against a fresh server; the first step that went
 * wrong ends the demo with exit code 1 and its name.
 *
 *   npm run demo                # both stories
 *   npm run demo -- --promise   # only the Promise facade
 *   npm run demo -- --effect    # only the Effect program
 */
import { parseArgs } from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { StepFailed } from "./steps.js"

export interface Stories {
  /** The story told with the Promise facade, against the server at the URL. */
  readonly promise: (baseUrl: string) => Promise<void>
  /** The same story as an Effect program. */
  readonly effect: (baseUrl: string) => Effect.Effect<void, StepFailed>
}

export interface Server {
  readonly url: string
  readonly close: () => Promise<void>
}

const runStory = async (stories: Stories, name: keyof Stories, baseUrl: string) => {
  if (name === "promise") return stories.promise(baseUrl)
  const exit = await Effect.runPromiseExit(stories.effect(baseUrl))
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
}

/** Runs the stories chosen on the command line (both by default), each against a fresh server. */
export const runStories = async (
  stories: Stories,
  startServer: () => Promise<Server>
): Promise<void> => {
  const { values } = parseArgs({
    options: { promise: { type: "boolean" }, effect: { type: "boolean" } }
  })
  const chosen =
    values.promise || values.effect
      ? (["promise", "effect"] as const).filter((name) => values[name])
      : (["promise", "effect"] as const)
  try {
    for (const name of chosen) {
      const server = await startServer()
      try {
        await runStory(stories, name, server.url)
      } finally {
        await server.close()
      }
    }
    console.log("\nEvery step answered as expected.")
  } catch (error) {
    console.error(`\n✗ ${error instanceof StepFailed ? error.message : String(error)}`)
    process.exitCode = 1
  }
}
