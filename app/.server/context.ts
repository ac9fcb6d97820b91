import type { AppLoadContext } from "@remix-run/cloudflare";
import { createDb, type Database } from "./db/client";
import { parseEnv, type AppEnv, type Bindings } from "./env";
import type { RequestLog } from "./observability/request-log";

/** Per-request services handed to loaders and actions as `context.app`. */
export interface AppServices {
  env: AppEnv;
  bindings: Bindings;
  db: Database;
  fetch: typeof fetch;
  waitUntil: (promise: Promise<unknown>) => void;
  /** This request's structured log line (absent outside fetch: queue and cron handlers). */
  requestLog?: RequestLog;
}

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    app: AppServices;
  }
}

/**
 * Builds the load context from the Worker's env and execution context.
 * @throws Error when a var is invalid (see parseEnv).
 */
export function getLoadContext(
  rawEnv: Bindings & Record<string, unknown>,
  ctx: Pick<ExecutionContext, "waitUntil">,
  requestLog?: RequestLog,
): AppLoadContext {
  const env = parseEnv(rawEnv);
  return {
    app: {
      env,
      bindings: rawEnv,
      db: createDb(rawEnv.DB),
      fetch: (input, init) => fetch(input, init),
      waitUntil: (p) => ctx.waitUntil(p),
      requestLog,
    },
  };
}
