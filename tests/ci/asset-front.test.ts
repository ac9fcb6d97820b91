import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assetAnswer, freePort, loadAssets, startAssetFront } from "../../scripts/lib/asset-front.mjs";

/** ADR 0047: the local server's front answers the build's hashed assets and passes the rest to wrangler. */

const SCRIPT = "export const answer = 42;\n".repeat(50);

function tempAssets(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "asset-front-"));
  mkdirSync(path.join(dir, "assets"));
  writeFileSync(path.join(dir, "assets", "entry-AbC123.js"), SCRIPT);
  writeFileSync(path.join(dir, "assets", "tailwind-XyZ.css"), "body{color:red}");
  writeFileSync(path.join(dir, "assets", "notes.txt"), "not an asset type");
  return dir;
}

describe("assetAnswer", () => {
  const dir = tempAssets();
  const files = loadAssets(path.join(dir, "assets"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers a script with its type, wrangler's cache header and an ETag, gzip when accepted", () => {
    const plain = assetAnswer(files, "GET", "/assets/entry-AbC123.js");
    expect(plain?.status).toBe(200);
    expect(plain?.headers).toMatchObject({
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=0, must-revalidate",
    });
    expect(plain?.body.toString()).toBe(SCRIPT);
    const zipped = assetAnswer(files, "GET", "/assets/entry-AbC123.js", { acceptEncoding: "gzip, deflate, br" });
    expect(zipped?.headers["Content-Encoding"]).toBe("gzip");
    expect(gunzipSync(zipped!.body).toString()).toBe(SCRIPT);
    expect(zipped?.headers["Content-Length"]).toBe(zipped!.body.length);
    expect(zipped!.body.length).toBeLessThan(SCRIPT.length);
  });

  it("answers 304 to a matching If-None-Match and an empty body to HEAD", () => {
    const etag = assetAnswer(files, "GET", "/assets/tailwind-XyZ.css")!.headers.ETag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(assetAnswer(files, "GET", "/assets/tailwind-XyZ.css", { ifNoneMatch: `"other", ${etag}` })?.status).toBe(
      304,
    );
    const head = assetAnswer(files, "HEAD", "/assets/tailwind-XyZ.css");
    expect(head?.status).toBe(200);
    expect(head?.body.length).toBe(0);
    expect(head?.headers["Content-Length"]).toBe("body{color:red}".length);
  });

  it("leaves other methods, other paths and other file types to wrangler", () => {
    expect(assetAnswer(files, "POST", "/assets/entry-AbC123.js")).toBeNull();
    expect(assetAnswer(files, "GET", "/assets/missing-1.js")).toBeNull();
    expect(assetAnswer(files, "GET", "/assets/notes.txt")).toBeNull();
    expect(assetAnswer(files, "GET", "/sw.js")).toBeNull();
  });
});

describe("startAssetFront", () => {
  const dir = tempAssets();
  let upstream: http.Server;
  let front: http.Server;
  let base = "";
  const seen: { method: string; url: string; host: string; body: string }[] = [];
  let abandoned = false;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, host: req.headers.host!, body });
        if (req.url === "/stream") {
          res.writeHead(200, { "Content-Type": "application/x-ndjson" });
          res.write('{"first":true}\n');
          const timer = setTimeout(() => res.end('{"last":true}\n'), 400);
          res.on("close", () => {
            if (!res.writableFinished) {
              abandoned = true;
              clearTimeout(timer);
            }
          });
          return;
        }
        res.writeHead(201, [
          "Content-Type",
          "application/json",
          "Set-Cookie",
          "a=1; Path=/",
          "Set-Cookie",
          "b=2; Path=/",
        ]);
        res.end(JSON.stringify({ echoed: body }));
      });
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    const port = await freePort();
    front = await startAssetFront({
      port,
      upstreamPort: (upstream.address() as AddressInfo).port,
      assetsDir: path.join(dir, "assets"),
    });
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((done) => front.close(done));
    await new Promise((done) => upstream.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers an asset itself: the Worker never sees it", async () => {
    const res = await fetch(`${base}/assets/entry-AbC123.js`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(SCRIPT);
    expect(seen.some((r) => r.url.startsWith("/assets/entry"))).toBe(false);
  });

  it("passes a POST on with its body and Host, and every Set-Cookie back", async () => {
    const res = await fetch(`${base}/api/things?x=1`, { method: "POST", body: "hello" });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ echoed: "hello" });
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/api/things?x=1", host: new URL(base).host });
  });

  it("passes a missing asset on to the Worker", async () => {
    await fetch(`${base}/assets/missing-1.js`);
    expect(seen.at(-1)?.url).toBe("/assets/missing-1.js");
  });

  it("streams a response chunk by chunk and abandons it upstream when the client does", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const res = await fetch(`${base}/stream`, { signal: controller.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"first":true');
    expect(Date.now() - started).toBeLessThan(350);
    controller.abort();
    await expect.poll(() => abandoned, { timeout: 2_000 }).toBe(true);
  });

  it("answers 502 with a JSON error while the Worker is not listening", async () => {
    const port = await freePort();
    const lonely = await startAssetFront({ port, upstreamPort: await freePort(), assetsDir: path.join(dir, "assets") });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: string }).error).toBe("UPSTREAM_UNAVAILABLE");
    } finally {
      await new Promise((done) => lonely.close(done));
    }
  });
});
