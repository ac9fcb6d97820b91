import type { AppEnv } from "../env";

/**
 * The address `wrangler dev` is bound to (`npm start` passes `--ip 127.0.0.1`), hence the socket
 * address of every local client.
 */
export const LOCAL_SOCKET_ADDRESS = "127.0.0.1";

/**
 * The client's IP address, for per-IP limits and guest counters.
 *
 * - production (deployed on Cloudflare): `CF-Connecting-IP`. Cloudflare's edge sets it on every
 *   request that reaches the Worker and overwrites any value the client sent, so it cannot be
 *   spoofed there. Missing (not possible behind Cloudflare) → "unknown", one shared bucket.
 * - development (`wrangler dev`): the header is NOT trusted — Miniflare fills it from the socket
 *   only when the client sent none, so a client could choose it. The Worker cannot see the socket
 *   otherwise; the dev server listens on loopback only, so every client's socket address is
 *   {@link LOCAL_SOCKET_ADDRESS} and that is what counts.
 * - test (the Workers vitest pool): requests come from `SELF.fetch` with no socket; the tests play
 *   Cloudflare's edge and set `CF-Connecting-IP` themselves (e.g. many addresses against one
 *   account), so it is read as in production.
 */
export function clientIp(request: Request, env: Pick<AppEnv, "ENVIRONMENT">): string {
  if (env.ENVIRONMENT === "development") return LOCAL_SOCKET_ADDRESS;
  const header = request.headers.get("CF-Connecting-IP")?.trim();
  return header ? header : "unknown";
}
