/**
 * Workers-project setup, run before each test file. The project runs its files one after another
 * in one workerd (vitest.config.ts `isolate: false`: the Worker and its modules are loaded once),
 * so this gives every file the state a fresh workerd used to give it:
 *
 * - D1 with every migration applied and no rows (the migrations run once per workerd; later files
 *   delete the rows of every table; AUTOINCREMENT counters keep counting, so ids never repeat
 *   across files and no per-isolate cache keyed by an id can see another file's row);
 * - the demo accounts, as the Worker seeds them in development and test (its once-per-isolate seed
 *   has run already, so their rows as first seeded are put back);
 * - empty KV and R2.
 *
 * The Cache API (caches.default) cannot be listed; it holds only share pages under random ids.
 */
import { applyD1Migrations, env } from "cloudflare:test";
import { ensureDemoAccounts, DEMO_ACCOUNTS } from "~/.server/auth/demo-accounts";
import { createDb } from "~/.server/db/client";
import { parseEnv } from "~/.server/env";

type Row = Record<string, unknown>;
const state = globalThis as typeof globalThis & { __freshStorage?: { demoUsers: Row[] } };

/** Every application table (not SQLite's, D1's or the migrations log). */
async function dataTables(): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  return results.map((r) => r.name);
}

async function emptyD1(): Promise<void> {
  const tables = await dataTables();
  // One batch is one transaction; foreign keys are checked at its end, when every table is empty.
  await env.DB.batch([
    env.DB.prepare("PRAGMA defer_foreign_keys = on"),
    ...tables.map((t) => env.DB.prepare(`DELETE FROM "${t}"`)),
  ]);
}

async function emptyKv(): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.KV.list({ cursor });
    await Promise.all(page.keys.map((k) => env.KV.delete(k.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

async function emptyR2(): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.BUCKET.list({ cursor, limit: 1000 });
    if (page.objects.length > 0) await env.BUCKET.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}

async function putBackDemoUsers(rows: Row[]): Promise<void> {
  await env.DB.batch(
    rows.map((row) => {
      const columns = Object.keys(row);
      return env.DB.prepare(
        `INSERT INTO users (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      ).bind(...columns.map((c) => row[c] ?? null));
    }),
  );
}

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
if (!state.__freshStorage) {
  // First file in this workerd: storage is new. Seed the demo accounts the way the Worker does
  // (this also settles its once-per-isolate seed) and keep their rows for the next files.
  await ensureDemoAccounts({ db: createDb(env.DB), env: parseEnv(env as unknown as Record<string, unknown>) });
  const emails = DEMO_ACCOUNTS.map((a) => a.email);
  const { results } = await env.DB.prepare(`SELECT * FROM users WHERE email IN (${emails.map(() => "?").join(", ")})`)
    .bind(...emails)
    .all<Row>();
  state.__freshStorage = { demoUsers: results };
} else {
  await Promise.all([emptyD1(), emptyKv(), emptyR2()]);
  await putBackDemoUsers(state.__freshStorage.demoUsers);
}
