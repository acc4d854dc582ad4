/** The client in Bun: `Bun.serve` on loopback, its port on the first line of stdout. */
import { handle } from "../client.js"

declare const Bun: {
  serve: (options: {
    hostname: string
    port: number
    fetch: (request: Request) => Promise<Response>
  }) => { port: number }
}

const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handle })
console.log(JSON.stringify({ port: server.port }))
