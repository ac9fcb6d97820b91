/**
 * GET /api/health: probes D1, KV and R2 with one cheap read each (no writes, so it can be polled
 * freely) and reports each probe's status and time. 200 when all pass; 503 naming each that failed.
 */

/** One probe's outcome. `ms` is wall time (in Workers the clock advances across I/O). */
export interface HealthCheck {
  status: "ok" | "fail";
  ms: number;
}

export type HealthTarget = "d1" | "kv" | "r2";

export interface HealthReport {
  status: "ok" | "fail";
  checks: Record<HealthTarget, HealthCheck>;
  /** The bindings that failed, in the order d1, kv, r2. */
  failed: HealthTarget[];
}

export interface HealthDeps {
  db: D1Database;
  kv: KVNamespace;
  bucket: R2Bucket;
  /** Per-probe time limit in ms (default 3000): a hung binding fails instead of hanging the check. */
  timeoutMs?: number;
  now?: () => number;
  /** Receives each failure's cause (console.warn as JSON by default; never sent to the client). */
  report?: (target: HealthTarget, cause: unknown) => void;
}

const BINDING_NAMES: Record<HealthTarget, string> = { d1: "D1 (DB)", kv: "KV (KV)", r2: "R2 (BUCKET)" };

async function probe(run: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the three probes concurrently: D1 `SELECT 1`, KV `get("health:probe")`, R2
 * `head("health/probe")` (a missing key or object is a pass: the binding answered).
 */
export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 3000;
  const report =
    deps.report ??
    ((target: HealthTarget, cause: unknown) =>
      console.warn(JSON.stringify({ level: "warn", event: "health", target, cause: String(cause).slice(0, 500) })));
  const probes: Record<HealthTarget, () => Promise<unknown>> = {
    d1: () => deps.db.prepare("SELECT 1 AS ok").first(),
    kv: () => deps.kv.get("health:probe"),
    r2: () => deps.bucket.head("health/probe"),
  };
  const targets = Object.keys(probes) as HealthTarget[];
  const results = await Promise.all(
    targets.map(async (target): Promise<HealthCheck> => {
      const started = now();
      try {
        await probe(probes[target], timeoutMs);
        return { status: "ok", ms: now() - started };
      } catch (cause) {
        report(target, cause);
        return { status: "fail", ms: now() - started };
      }
    }),
  );
  const checks = Object.fromEntries(targets.map((t, i) => [t, results[i]])) as Record<HealthTarget, HealthCheck>;
  const failed = targets.filter((t) => checks[t].status === "fail");
  return { status: failed.length ? "fail" : "ok", checks, failed };
}

/**
 * The HTTP answer: 200 `{status:"ok", checks}`, or 503
 * `{error:"UNHEALTHY", message:"Failing: KV (KV)", status:"fail", failed:["kv"], checks}`. Never cached.
 */
export function healthResponse(report: HealthReport): Response {
  const headers = { "Cache-Control": "no-store" };
  if (report.status === "ok") return Response.json({ status: "ok", checks: report.checks }, { headers });
  return Response.json(
    {
      error: "UNHEALTHY",
      message: `Failing: ${report.failed.map((t) => BINDING_NAMES[t]).join(", ")}`,
      status: "fail",
      failed: report.failed,
      checks: report.checks,
    },
    { status: 503, headers },
  );
}
