// The local server's front (scripts/start-offline.mjs, so the Playwright suite and the benches): the
// build's hashed files under /assets/ are answered from memory, as Cloudflare's asset layer answers
// them in production without running any Worker code, and every other request goes unchanged to
// `wrangler dev`. Locally, workerd's asset emulation spends about 7 ms of CPU per file and answers
// in 40–100 ms when a page fetches 40 of them at once on a 2-core host, time taken from the browser
// being measured (docs/decisions/0047-local-asset-front.md; docs/performance.md, Lighthouse).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";

/** Content types of the files Vite writes to build/client/assets (others go to wrangler). */
const ASSET_TYPES = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** The cache header `wrangler dev` (4.164) and Cloudflare send with an asset when no _headers file sets one. */
const CACHE_CONTROL = "public, max-age=0, must-revalidate";

/**
 * Reads every file of `assetsDir` with a type in {@link ASSET_TYPES}. Returns a Map from its URL path
 * (`/assets/{name}`) to `{ body, gzip, type, etag }` (Buffers; etag a quoted MD5 hex, as wrangler's).
 */
export function loadAssets(assetsDir) {
  const files = new Map();
  for (const name of readdirSync(assetsDir)) {
    const type = ASSET_TYPES[path.extname(name)];
    if (!type) continue;
    const body = readFileSync(path.join(assetsDir, name));
    const etag = `"${createHash("md5").update(body).digest("hex")}"`;
    files.set(`/assets/${name}`, { body, gzip: gzipSync(body), type, etag });
  }
  return files;
}

/**
 * The answer for a GET or HEAD of a loaded asset: `{ status: 200 | 304, headers, body }` (body a
 * Buffer, empty for HEAD and 304; gzip when `acceptEncoding` allows it), or null when `pathname` is
 * not a loaded asset or the method is another (the request then goes to wrangler).
 * @returns {{ status: number, headers: Record<string, string | number>, body: Buffer } | null}
 */
export function assetAnswer(files, method, pathname, { acceptEncoding = "", ifNoneMatch = "" } = {}) {
  if (method !== "GET" && method !== "HEAD") return null;
  const file = files.get(pathname);
  if (!file) return null;
  const headers = { "Content-Type": file.type, "Cache-Control": CACHE_CONTROL, ETag: file.etag };
  if (ifNoneMatch.split(/\s*,\s*/).includes(file.etag)) return { status: 304, headers, body: Buffer.alloc(0) };
  const gzip = /\bgzip\b/i.test(acceptEncoding);
  const body = gzip ? file.gzip : file.body;
  return {
    status: 200,
    headers: {
      ...headers,
      ...(gzip ? { "Content-Encoding": "gzip", Vary: "Accept-Encoding" } : {}),
      "Content-Length": body.length,
    },
    body: method === "HEAD" ? Buffer.alloc(0) : body,
  };
}

/**
 * Starts the front on 127.0.0.1:`port`: assets of `assetsDir` from memory ({@link assetAnswer}),
 * everything else proxied to 127.0.0.1:`upstreamPort` with its method, path, headers (Host
 * included, so the Worker sees the front's origin) and body streamed both ways; a response is
 * passed on chunk by chunk (streamed searches and summaries stay streamed), and a request the
 * browser abandons is abandoned upstream too. 502 {error:'UPSTREAM_UNAVAILABLE'} while wrangler is
 * not answering. Resolves the listening `http.Server`.
 */
export function startAssetFront({ port, upstreamPort, assetsDir }) {
  const files = loadAssets(assetsDir);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const target = req.url ?? "/";
    const answer = assetAnswer(files, req.method, target.split("?", 1)[0], {
      acceptEncoding: req.headers["accept-encoding"] ?? "",
      ifNoneMatch: req.headers["if-none-match"] ?? "",
    });
    if (answer) {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    }
    const upstream = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: target, headers: req.headers, agent },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.statusMessage, reply.rawHeaders);
        reply.pipe(res);
        reply.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: "UPSTREAM_UNAVAILABLE", message: "The local Worker is not answering yet." }));
    });
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  // Streamed answers (searches, summaries) may stay open for minutes.
  server.requestTimeout = 0;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
