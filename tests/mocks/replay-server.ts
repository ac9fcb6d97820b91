/**
 * HTTP replay of the six upstream APIs for offline runs:
 *   node tests/mocks/replay-server.ts
 * Serves http://127.0.0.1:$REPLAY_PORT/{pubmed,crossref,europepmc,core,semanticscholar,doaj}/…
 * (default port 8788) from ../shared/fixtures/providers via createReplayFetch; point each
 * provider's base URL at its prefix. Logs one line per request.
 *
 * Environment:
 * - REPLAY_PORT: listening port (default 8788; 0 picks a free port, printed on start).
 * - REPLAY_LATENCY_MS: artificial latency per provider, "pubmed=50,crossref=300"; a bare number
 *   ("200") or "*=200" applies to every provider.
 * - REPLAY_SLOW_MS: extra delay for requests whose URL contains "zzslow" (default 3000).
 * Erasable TypeScript and node: builtins only.
 */
import { createServer, type IncomingMessage } from "node:http";
import { pathToFileURL } from "node:url";
import { fixtureReader, hasSharedFixtures, MISSING_FIXTURES_MESSAGE, SHARED_FIXTURES_DIR } from "../fixtures.ts";
import { createReplayHandler, defaultReplayBaseUrls, SLOW_WORD } from "./index.ts";
import { createStripeHttpHandler } from "./stripe-server.ts";

const SKIPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "expect",
]);

/** Parses REPLAY_LATENCY_MS into provider → milliseconds ("*" = every provider). */
export function parseLatency(spec: string | undefined): Map<string, number> {
  const latency = new Map<string, number>();
  for (const part of (spec ?? "").split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const [name, value] = item.includes("=") ? item.split("=", 2) : ["*", item];
    const ms = Number(value);
    if (Number.isFinite(ms) && ms >= 0) latency.set(name.trim(), ms);
  }
  return latency;
}

async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return chunks.length > 0 ? new Uint8Array(Buffer.concat(chunks)) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function main(): void {
  if (!hasSharedFixtures()) {
    console.error(`replay-server: ${MISSING_FIXTURES_MESSAGE}`);
    process.exit(1);
  }
  const requestedPort = Number(process.env.REPLAY_PORT ?? 8788);
  if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
    console.error(`replay-server: invalid REPLAY_PORT ${process.env.REPLAY_PORT}`);
    process.exit(1);
  }
  const latency = parseLatency(process.env.REPLAY_LATENCY_MS);
  const slowMs = Number(process.env.REPLAY_SLOW_MS ?? 3000) || 0;
  let origin = `http://127.0.0.1:${requestedPort}`;
  let handle = createReplayHandler(fixtureReader, { baseUrls: defaultReplayBaseUrls(origin) });
  // The fake Stripe (STRIPE_FAKE_WEBHOOK_URL set by scripts/start-offline.mjs) shares this port.
  const stripe = process.env.STRIPE_FAKE_WEBHOOK_URL
    ? createStripeHttpHandler({
        secretKey: process.env.STRIPE_FAKE_SECRET_KEY ?? "sk_test_offline",
        webhookSecret: process.env.STRIPE_FAKE_WEBHOOK_SECRET ?? "whsec_offline",
        webhookUrl: process.env.STRIPE_FAKE_WEBHOOK_URL,
        publicBase: () => origin,
      })
    : null;

  const server = createServer(async (req, res) => {
    const started = Date.now();
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (SKIPPED_REQUEST_HEADERS.has(name) || value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const body = method === "GET" || method === "HEAD" ? undefined : await readBody(req);
      const stripeResponse = stripe ? await stripe(new Request(`${origin}${path}`, { method, headers, body })) : null;
      if (stripeResponse) {
        res.writeHead(stripeResponse.status, Object.fromEntries(stripeResponse.headers));
        res.end(Buffer.from(await stripeResponse.arrayBuffer()));
        console.log(`[replay] ${method} ${path} -> ${stripeResponse.status} stripe ${Date.now() - started}ms`);
        return;
      }
      const { provider, response } = handle(new Request(`${origin}${path}`, { method, headers, body }));
      const delay = (provider ? latency.get(provider) : undefined) ?? latency.get("*") ?? 0;
      let decodedPath = path;
      try {
        decodedPath = decodeURIComponent(path);
      } catch {
        // Keep the raw path.
      }
      const slow = decodedPath.toLowerCase().includes(SLOW_WORD) ? slowMs : 0;
      if (delay + slow > 0) await sleep(delay + slow);
      const payload = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(method === "HEAD" ? undefined : payload);
      const fixture = response.headers.get("x-replay-fixture") ?? "-";
      console.log(
        `[replay] ${method} ${path} -> ${response.status} ${provider ?? "-"} ${fixture} ${Date.now() - started}ms`,
      );
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`replay-server error: ${err instanceof Error ? err.message : String(err)}`);
      console.error(`[replay] ${method} ${path} -> 500 (${err instanceof Error ? err.message : String(err)})`);
    }
  });

  server.listen(requestedPort, "127.0.0.1", () => {
    const address = server.address();
    if (address !== null && typeof address === "object") {
      origin = `http://127.0.0.1:${address.port}`;
      handle = createReplayHandler(fixtureReader, { baseUrls: defaultReplayBaseUrls(origin) });
    }
    console.log(`[replay] listening on ${origin} (fixtures: ${SHARED_FIXTURES_DIR})`);
    if (latency.size > 0) console.log(`[replay] latency: ${[...latency].map(([k, v]) => `${k}=${v}ms`).join(", ")}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
