/** The client in Deno: `Deno.serve` on loopback, its port on the first line of stdout. */
import { handle } from "../client.js"

declare const Deno: {
  serve: (
    options: { hostname: string; port: number; onListen: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>
  ) => unknown
}

Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port }))
  },
  handle
)
