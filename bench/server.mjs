// A plain node:http server for the client benchmark, run in its own process.
// Answers every request with a small JSON envelope and sends its port to the parent.
import { createServer } from "node:http"

const body = JSON.stringify({ success: true, data: { id: 1, name: "Ada", tags: ["a", "b"] } })

const server = createServer((_req, res) => {
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body)
  })
  res.end(body)
})
server.keepAliveTimeout = 60_000

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  if (process.send) process.send({ port })
  else console.log(`listening on http://127.0.0.1:${port}`)
})

process.on("disconnect", () => server.close(() => process.exit(0)))
