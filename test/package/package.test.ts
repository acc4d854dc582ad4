/**
 * The published package, as a user gets it, on each Effect line: `npm pack`, install the tarball into a
 * scratch project — alone (npm picks the `effect` peer: Effect 4, run on Node 24) or with
 * `effect@3 @effect/platform` (Effect 3, run on this Node) —, then import every entry point of that
 * line from ESM and from CommonJS and resolve its types, and compile users' programs against them
 * (test/types) with TypeScript 5.9 and the newest, which each app installs beside the package.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeBinary, OTHER_VERSIONS } from "../../scripts/node-versions.mjs"
import { EFFECT_3_INSTALLED, EFFECT_4_INSTALLED } from "../../src/core/effectLine.js"
import { REDIS_SERVER, startRedis } from "../support/redis.js"
import { exec, npmInstall, packedScratch, peerSpecs, root, versionOf } from "../support/tarball.js"
import { compileAll, programsOf, TYPESCRIPT_7 } from "../types/userPrograms.js"

const lines = [
  {
    line: "Effect 4",
    major: 4,
    /** a plain install: npm picks the peer */
    peers: (): Array<string> => [],
    effectMajor: "4",
    node: () => nodeBinary(OTHER_VERSIONS.find((version: string) => version.startsWith("24."))!),
    main: "svc-sdk",
    /** the major an app installs today: the Effect 4 toolchain's */
    ioredis: () => `ioredis@${versionOf("ioredis", join(root, "toolchains", "effect4"))}`,
    entries: ["svc-sdk", "svc-sdk/Client", "svc-sdk/Query", "svc-sdk/Auth", "svc-sdk/Storage"]
  },
  {
    line: "Effect 3",
    major: 3,
    peers: peerSpecs,
    effectMajor: "3",
    node: () => process.execPath,
    main: "svc-sdk/v3",
    /** the previous major: Effect 3's platform (@effect/experimental) holds its apps to it */
    ioredis: () => `ioredis@${versionOf("ioredis")}`,
    entries: [
      "svc-sdk/v3",
      "svc-sdk/v3/Client",
      "svc-sdk/Query",
      "svc-sdk/v3/Auth",
      "svc-sdk/Storage"
    ]
  }
] as const

describe.each(lines)(
  "the packed tarball, $line",
  ({ line, major, peers, effectMajor, node: nodeOf, main, ioredis, entries }) => {
    let scratch = ""
    let tarball = ""
    let node = ""
    const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
      exec(command === "node" ? node : command, args, { cwd })

    beforeAll(async () => {
      node = nodeOf()
      const packed = await packedScratch("svc-sdk-pack-", {
        name: "scratch",
        private: true,
        type: "commonjs"
      })
      scratch = packed.dir
      tarball = packed.tarball
      // ioredis beside it, as an app with a Redis layer has it: an optional peer npm must accept
      await npmInstall(scratch, [tarball, ...peers(), ioredis(), TYPESCRIPT_7])
    }, 180_000)

    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    })

    it("installs nothing beyond its peers but undici, with the line's effect", () => {
      const installed = JSON.parse(
        readFileSync(join(scratch, "node_modules", "svc-sdk", "package.json"), "utf8")
      ) as { dependencies?: Record<string, string> }
      expect(Object.keys(installed.dependencies ?? {})).toEqual(["undici"])
      const effect = JSON.parse(
        readFileSync(join(scratch, "node_modules", "effect", "package.json"), "utf8")
      ) as { version: string }
      expect(effect.version.split(".")[0]).toBe(effectMajor)
      expect(existsSync(join(scratch, "node_modules", "@effect", "platform"))).toBe(
        line === "Effect 3"
      )
      expect(existsSync(join(scratch, "node_modules", "@effect", "platform-node"))).toBe(false)
      expect(existsSync(join(scratch, "node_modules", "@parcel"))).toBe(false)
    })

    it("ships its MIT license", () => {
      const license = readFileSync(join(scratch, "node_modules", "svc-sdk", "LICENSE"), "utf8")
      expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 svc-sdk contributors\n/)
      expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND')
    })

    it("imports every entry point as ESM", async () => {
      const script = entries
        .map((entry, i) => `const m${i} = await import(${JSON.stringify(entry)});`)
        .concat(
          `console.log(JSON.stringify([${entries.map((_, i) => `Object.keys(m${i}).length`)}]))`
        )
        .join("\n")
      writeFileSync(join(scratch, "esm.mjs"), script)
      const counts = JSON.parse(await run("node", ["esm.mjs"], scratch)) as Array<number>
      expect(counts).toHaveLength(entries.length)
      for (const count of counts) expect(count).toBeGreaterThan(0)
    }, 120_000)

    it("requires every entry point as CommonJS", async () => {
      const script = `console.log(JSON.stringify(${JSON.stringify(entries)}.map((e) => Object.keys(require(e)).length)))`
      writeFileSync(join(scratch, "cjs.cjs"), script)
      const counts = JSON.parse(await run("node", ["cjs.cjs"], scratch)) as Array<number>
      for (const count of counts) expect(count).toBeGreaterThan(0)
    }, 120_000)

    it("gives ESM and CommonJS the same classes through every entry point", async () => {
      writeFileSync(
        join(scratch, "same.cjs"),
        `const a = require("${main}"); const c = require("${main}/Client");
       console.log(String(a.SvcClient === c.SvcClient && a.HttpError === c.HttpError))`
      )
      expect((await run("node", ["same.cjs"], scratch)).trim()).toBe("true")
    }, 120_000)

    it("importing the main entry loads none of what only some calls use (streams, refresh, validators, the adapter, undici, zlib)", async () => {
      // a loader hook (module.register: Node ≥ 20.6) notes each module loaded; a line marks the
      // end of the import, after which an sse call loads the stream programs
      writeFileSync(
        join(scratch, "hooks.mjs"),
        `import { appendFileSync } from "node:fs"
       export const load = (url, context, next) => {
         appendFileSync("loaded.txt", url + "\\n")
         return next(url, context)
       }`
      )
      writeFileSync(
        join(scratch, "loaded.mjs"),
        `import { appendFileSync } from "node:fs"
       import { register } from "node:module"
       register("./hooks.mjs", import.meta.url)
       const { createSvc } = await import(${JSON.stringify(main)})
       appendFileSync("loaded.txt", "imported\\n")
       await createSvc("http://127.0.0.1:1", { retryAttempts: 0 }).sse("/x", { reconnect: false })`
      )
      rmSync(join(scratch, "loaded.txt"), { force: true })
      await run("node", ["loaded.mjs"], scratch)
      const [atImport = "", later = ""] = readFileSync(join(scratch, "loaded.txt"), "utf8").split(
        "imported\n"
      )
      // which of the on-demand programs the modules loaded define (the build names chunks by hash)
      const onDemand = (urls: string) =>
        urls
          .split("\n")
          .filter((url) => url.includes("/svc-sdk/"))
          .flatMap((url) =>
            [
              ...readFileSync(new URL(url), "utf8").matchAll(
                /\b(?:var|const|let|function)\s+(makeStreams|makeRefresh|validateStandard)\b/g
              )
            ].map((match) => match[1])
          )
      expect(onDemand(atImport)).toEqual([])
      // the check can see them: the sse call loaded the stream programs
      expect(onDemand(later)).toContain("makeStreams")
      // zlib comes with the first encoded body (Node's transport), undici with the first request
      const builtins = atImport.split("\n").filter((url) => url.startsWith("node:"))
      expect(builtins).not.toContain("node:zlib")
      expect(builtins).not.toContain("node:util")
      expect(atImport).not.toMatch(/\/undici\//)
      // the check can see them: the transport's own builtin, and undici once a request is sent
      expect(builtins).toContain("node:buffer")
      expect(later).toMatch(/\/undici\//)
    }, 120_000)

    // where Debian's redis-server is absent, the Redis store suite says so (SessionStore.test.ts)
    if (existsSync(REDIS_SERVER))
      it("runs its Redis layers on the ioredis installed beside it, against a real redis-server", async () => {
        writeFileSync(
          join(scratch, "redis.mjs"),
          `import { Effect, Layer, Option } from "effect"
       import { LoginThrottle, SessionStore } from "${main}/Auth"
       const url = process.argv[2]
       const program = Effect.gen(function* () {
         const sessions = yield* SessionStore
         const id = yield* sessions.create({ user_id: "u1" })
         const live = yield* sessions.get(id)
         yield* sessions.revoke(id)
         const revoked = yield* sessions.get(id)
         const throttle = yield* LoginThrottle
         for (let i = 0; i < 2; i++) {
           yield* throttle.check("account:a")
           yield* throttle.failure("account:a")
         }
         const third = yield* throttle.check("account:a").pipe(
           Effect.as("passed"),
           Effect.catchTag("TooManyAttempts", (error) => Effect.succeed(error._tag))
         )
         return { user: Option.getOrThrow(live).user_id, revoked: Option.isNone(revoked), third }
       })
       const layers = Layer.mergeAll(
         SessionStore.layerRedis({ url }),
         LoginThrottle.layerRedis({ url, maxAttempts: 2 })
       )
       console.log(JSON.stringify(await Effect.runPromise(Effect.provide(program, layers))))`
        )
        const installed = JSON.parse(
          readFileSync(join(scratch, "node_modules", "ioredis", "package.json"), "utf8")
        ) as { version: string }
        expect(`ioredis@${installed.version}`).toBe(ioredis())
        const redis = await startRedis()
        try {
          // the process ends by itself: the layers close their connections with the program
          expect(JSON.parse(await run("node", ["redis.mjs", redis.url], scratch))).toEqual({
            user: "u1",
            revoked: true,
            third: "TooManyAttempts"
          })
        } finally {
          await redis.dispose()
        }
      }, 120_000)

    it("runs the facade from the tarball on Node (undici transport) and never rejects", async () => {
      writeFileSync(
        join(scratch, "facade.mjs"),
        `import { createSvc } from "${main}"
       const res = await createSvc("http://127.0.0.1:1/api", { retryAttempts: 0 }).get("/x")
       console.log(JSON.stringify(res))`
      )
      const res = JSON.parse(await run("node", ["facade.mjs"], scratch))
      expect(res).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
    }, 120_000)

    // the guards' router API differs between the lines: the Effect 4 line's run is in the guards' tests
    if (line === "Effect 3")
      it("holds the security fixes from the tarball (items 1–3, 5–8, 10 of the security issue)", async () => {
        writeFileSync(
          join(scratch, "security.mjs"),
          `import { createServer } from "node:http"
       import { HttpApp, HttpRouter, HttpServerResponse } from "@effect/platform"
       import { Effect } from "effect"
       import { createSvc } from "svc-sdk/v3"
       import { requireAuth, requireUserType, SessionValidator } from "svc-sdk/v3/Auth"
       const start = async (seen) => {
         const server = createServer((req, res) => {
           seen.push(req.headers)
           res.writeHead(200, { "content-type": "application/json" })
           res.end('{"ok":true}')
         })
         await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
         return { server, origin: "http://127.0.0.1:" + server.address().port }
       }
       const thrown = (f) => { try { f(); return "accepted" } catch (e) { return e.name } }
       const seen = [], elsewhere = []
       const base = await start(seen), other = await start(elsewhere)
       const out = {}
       out.onRequest = (await createSvc(base.origin, { onRequest: () => {} }).get("/x")).success
       out.timeout = thrown(() => createSvc(base.origin, { timeout: 2 ** 31 }))
       out.functionBody = (await createSvc(base.origin).post("/x", () => 1)).code
       const svc = createSvc(base.origin, { sessionId: "secret-id" })
       svc.addRequestInterceptor((c) => {
         const { "x-session-id": id, ...headers } = c.headers
         return { ...c, url: other.origin + "/moved", headers: { ...headers, "X-SESSION-ID": id } }
       })
       await svc.get("/s")
       out.leaked = JSON.stringify(elsewhere).includes("secret-id")
       out.c1 = thrown(() => createSvc(base.origin, { sessionId: "a\u0085b" }))
       out.userTypeString = thrown(() => requireUserType("admin"))
       const ok = HttpServerResponse.text("in")
       const router = HttpRouter.empty.pipe(
         HttpRouter.get("/admin", ok.pipe(requireUserType("admin"))),
         HttpRouter.post("/write", ok.pipe(requireAuth()))
       )
       const validator = SessionValidator.fromPromise(async () =>
         JSON.parse('{"user_id":"m","__proto__":{"user_type":"admin"}}'))
       const handler = HttpApp.toWebHandler(
         Effect.flatten(HttpRouter.toHttpApp(router)).pipe(Effect.provide(validator)))
       const ask = async (path, init) => (await handler(new Request("http://h" + path, init))).status
       out.escalation = await ask("/admin", { headers: { "x-session-id": "s" } })
       out.crossSite = await ask("/write", { method: "POST", headers: {
         cookie: "session_id=s", origin: "http://evil.example", "sec-fetch-site": "cross-site" } })
       base.server.close(); other.server.close()
       console.log(JSON.stringify(out))`
        )
        expect(JSON.parse(await run("node", ["security.mjs"], scratch))).toEqual({
          onRequest: true,
          timeout: "RangeError",
          functionBody: "INVALID_REQUEST",
          leaked: false,
          c1: "TypeError",
          userTypeString: "accepted",
          escalation: 403,
          crossSite: 403
        })
      }, 120_000)

    it("follows redirects, decompresses and keeps bytes from the tarball, the session on its origin", async () => {
      writeFileSync(
        join(scratch, "pipeline.mjs"),
        `import { createServer } from "node:http"
       import { gzipSync } from "node:zlib"
       import { createSvc } from "${main}"
       const listen = async (handler) => {
         const server = createServer(handler)
         await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
         return { server, origin: "http://127.0.0.1:" + server.address().port }
       }
       const elsewhere = []
       const other = await listen((req, res) => { elsewhere.push(req.headers); res.end("{}") })
       const api = await listen((req, res) => {
         if (req.url === "/moved") { res.writeHead(301, { location: "/gzip" }); return res.end() }
         if (req.url === "/away") { res.writeHead(302, { location: other.origin + "/x" }); return res.end() }
         if (req.url === "/gzip") {
           res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
           return res.end(gzipSync(JSON.stringify({ zipped: true })))
         }
         res.writeHead(200, { "content-type": "image/png", etag: "v1" })
         res.end(Buffer.from([137, 80, 78, 71]))
       })
       const svc = createSvc(api.origin, { sessionId: "secret-id", retryAttempts: 0 })
       const moved = await svc.get("/moved")
       const bytes = await svc.get("/png")
       await svc.get("/away")
       console.log(JSON.stringify({
         moved: moved.data,
         bytes: Array.from(bytes.data),
         etag: bytes.headers.etag,
         leaked: JSON.stringify(elsewhere).includes("secret-id"),
         reached: elsewhere.length
       }))
       api.server.close(); other.server.close()`
      )
      expect(JSON.parse(await run("node", ["pipeline.mjs"], scratch))).toEqual({
        moved: { zipped: true },
        bytes: [137, 80, 78, 71],
        etag: "v1",
        leaked: false,
        reached: 1
      })
    }, 120_000)

    it("compiles users' programs against its types, every entry point from ESM and CommonJS: each TypeScript, each module resolution, strictest options", async () => {
      // the programs import every entry point (entries.ts), so each mode resolves each one's types
      const imported = programsOf(major).flatMap(({ source }) =>
        [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1])
      )
      for (const entry of entries) expect(imported).toContain(entry)
      const compilations = await compileAll(scratch, major, node)
      expect(compilations.length).toBe(major === 3 ? 7 : 6)
      for (const { files } of compilations) expect(files).toBeGreaterThanOrEqual(6)
      const reports = compilations.map(({ compiler, mode, report }) => ({
        compilation: `${compiler.name}, ${mode.name}`,
        report
      }))
      expect(reports).toEqual(reports.map(({ compilation }) => ({ compilation, report: "" })))
      // what a hover over `HttpApiAuth.RequirePermission<Admin>()(…)` shows: a short, named type
      for (const { dir } of compilations.filter(({ mode }) => mode.name === "bundler")) {
        const declared = readFileSync(join(dir, "out", "auth.d.ts"), "utf8")
        expect(declared).toContain(
          'declare const Admin_base: HttpApiAuth.CheckTagClass<Admin, "Admin">;\n'
        )
        expect(declared).toContain(
          'declare const Staff_base: HttpApiAuth.CheckTagClass<Staff, "Staff">;\n'
        )
        expect(declared).toContain(
          'declare const Session_base: HttpApiAuth.TagClass<Session, "Session">;\n'
        )
      }
    }, 600_000)

    // the mistake of issue 31, both ways: the other line's entry points in an app with this
    // line's effect
    it("names the mistake when the other line's entry points are imported or required", async () => {
      const [others, message, advice] =
        line === "Effect 3"
          ? [
              ["svc-sdk", "svc-sdk/Client", "svc-sdk/Auth"],
              EFFECT_3_INSTALLED,
              'import "svc-sdk/v3"'
            ]
          : [
              ["svc-sdk/v3", "svc-sdk/v3/Client", "svc-sdk/v3/Auth"],
              EFFECT_4_INSTALLED,
              'import "svc-sdk"'
            ]
      writeFileSync(
        join(scratch, "wrong-line.mjs"),
        `const out = []
       for (const entry of ${JSON.stringify(others)}) {
         out.push(await import(entry).then(() => "loaded", (e) => e.message))
       }
       console.log(JSON.stringify(out))`
      )
      writeFileSync(
        join(scratch, "wrong-line.cjs"),
        `console.log(JSON.stringify(${JSON.stringify(others)}.map((entry) => {
         try { require(entry); return "loaded" } catch (e) { return e.message }
       })))`
      )
      const expected = others.map(() => message)
      expect(JSON.parse(await run("node", ["wrong-line.mjs"], scratch))).toEqual(expected)
      expect(JSON.parse(await run("node", ["wrong-line.cjs"], scratch))).toEqual(expected)
      expect(message).toContain(advice)
    }, 120_000)

    // one package for both lines: checked once
    if (line === "Effect 3")
      it("passes publint and arethetypeswrong", async () => {
        const publint = join(root, "node_modules/publint/src/cli.js")
        expect(await run("node", [publint, "run", tarball, "--strict"], root)).not.toMatch(
          /error|warning/i
        )
        const attw = join(root, "node_modules/@arethetypeswrong/cli/dist/index.js")
        expect(await run("node", [attw, tarball, "--format", "ascii"], root)).toMatch(
          /No problems found/
        )
      }, 120_000)
  }
)
