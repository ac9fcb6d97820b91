import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../../db/schema";
import type { Bindings } from "../env";

/**
 * The account's data as a whole: the JSON download of everything stored for a user and the
 * deletion of the account with all of it (SPEC §2 Settings, Data & Privacy).
 *
 * The user-owned tables are found in ONE place, {@link userOwnedTables}: every table of
 * db/schema.ts (and the per-area modules it re-exports) with a `user_id` column. A table another
 * area adds later is covered without touching this file, as long as it has `user_id`; a table
 * whose rows hang off a user-owned row by another key should reference it with ON DELETE CASCADE.
 */

/** Tables left out of the download: their rows are secrets (session ids, reset-token hashes), not the user's data. */
export const DOWNLOAD_EXCLUDED_TABLES: ReadonlySet<string> = new Set(["sessions", "password_reset_tokens"]);
/** Columns never included in the download. */
export const DOWNLOAD_EXCLUDED_COLUMNS: ReadonlySet<string> = new Set(["password_hash"]);
/** R2 prefix of a user's files (uploaded PDFs). */
export const userObjectPrefix = (userId: string) => `uploads/${userId}/`;

/**
 * Names of every table with a `user_id` column, ordered so that a table comes before the tables
 * its foreign keys point at (children first), so deleting in this order never trips a foreign key
 * between two user-owned tables.
 */
export function userOwnedTables(): string[] {
  const parents = new Map<string, Set<string>>();
  for (const value of Object.values(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    if (!config.columns.some((c) => c.name === "user_id")) continue;
    const targets = new Set(config.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name));
    parents.set(config.name, targets);
  }
  return childrenFirst(parents);
}

/**
 * Orders tables so each comes before the tables it references (`parents`: table → tables its
 * foreign keys point at). Cycles are broken at the first table met.
 */
export function childrenFirst(parents: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    // Every user-owned table that points at this one is deleted first.
    for (const [child, targets] of parents) if (child !== name && targets.has(name)) visit(child, path);
    path.delete(name);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of parents.keys()) visit(name, new Set());
  return ordered;
}

/**
 * Names of every table whose rows may belong to one user through an `owner_id` column (rows of
 * other owners, e.g. public full-text analyses with owner_id '', are shared and never touched):
 * ai_summaries holds the private full-text analyses a user made from URLs they supplied.
 */
export function ownerIdTables(): string[] {
  const names: string[] = [];
  for (const value of Object.values(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    if (config.columns.some((c) => c.name === "owner_id")) names.push(config.name);
  }
  return names;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function cleanRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (DOWNLOAD_EXCLUDED_COLUMNS.has(key)) continue;
    out[camel(key)] = value;
  }
  return out;
}

/** Every R2 object key under the prefix (all pages of the listing). */
async function listObjects(
  bucket: R2Bucket,
  prefix: string,
): Promise<{ key: string; size: number; uploaded: string }[]> {
  const out: { key: string; size: number; uploaded: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    for (const o of page.objects) out.push({ key: o.key, size: o.size, uploaded: o.uploaded.toISOString() });
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/** The JSON download of a user's data. */
export interface AccountExport {
  exportedAt: string;
  user: Record<string, unknown>;
  /** Rows of each user-owned table (camelCase columns), by table name. */
  tables: Record<string, Record<string, unknown>[]>;
  /** The user's stored files (keys and sizes; the files themselves are downloaded separately). */
  files: { key: string; size: number; uploaded: string }[];
}

/**
 * Everything stored for the user: the user row (no password hash), the rows of every
 * user-owned table except sessions, the user's rows of the owner_id tables (private full-text
 * analyses), and the list of their files in R2.
 */
export async function exportAccountData(
  bindings: Pick<Bindings, "DB" | "BUCKET">,
  { userId, now }: { userId: string; now: Date },
): Promise<AccountExport> {
  const tables = userOwnedTables().filter((t) => !DOWNLOAD_EXCLUDED_TABLES.has(t));
  const owned = ownerIdTables().filter((t) => !tables.includes(t));
  const statements = [
    bindings.DB.prepare("SELECT * FROM users WHERE id = ?").bind(userId),
    ...tables.map((t) => bindings.DB.prepare(`SELECT * FROM ${quoted(t)} WHERE user_id = ?`).bind(userId)),
    ...owned.map((t) => bindings.DB.prepare(`SELECT * FROM ${quoted(t)} WHERE owner_id = ?`).bind(userId)),
  ];
  const results = await bindings.DB.batch<Record<string, unknown>>(statements);
  const [userResult, ...tableResults] = results;
  const names = [...tables, ...owned];
  return {
    exportedAt: now.toISOString(),
    user: cleanRow(userResult.results[0] ?? {}),
    tables: Object.fromEntries(names.map((t, i) => [t, tableResults[i].results.map(cleanRow)])),
    files: await listObjects(bindings.BUCKET, userObjectPrefix(userId)),
  };
}

/**
 * Deletes the account and everything with it: the rows of every user-owned table, the user's
 * rows of the owner_id tables (private full-text analyses) and the user row in one D1 batch (a transaction: all or nothing), then every R2 object under
 * `uploads/{userId}/` (deleted in pages of 1000, retried up to 3 times).
 * @returns the rows deleted per table and the number of files deleted.
 * @throws Error when the D1 batch fails (nothing was deleted) or R2 keeps failing (the D1 data
 *   is gone; the remaining files are named in the log for cleanup).
 */
export async function deleteAccount(
  bindings: Pick<Bindings, "DB" | "BUCKET">,
  { userId }: { userId: string },
): Promise<{ rows: Record<string, number>; files: number }> {
  // Children first (see userOwnedTables); the batch is one transaction, so a row of another table
  // that would still point at a deleted one makes the whole deletion roll back.
  const tables = userOwnedTables();
  const owned = ownerIdTables().filter((t) => !tables.includes(t));
  const results = await bindings.DB.batch([
    ...tables.map((t) => bindings.DB.prepare(`DELETE FROM ${quoted(t)} WHERE user_id = ?`).bind(userId)),
    ...owned.map((t) => bindings.DB.prepare(`DELETE FROM ${quoted(t)} WHERE owner_id = ?`).bind(userId)),
    bindings.DB.prepare("DELETE FROM users WHERE id = ?").bind(userId),
  ]);
  const names = [...tables, ...owned];
  const rows = Object.fromEntries(names.map((t, i) => [t, results[i].meta.changes ?? 0]));
  rows.users = results[names.length].meta.changes ?? 0;
  const keys = (await listObjects(bindings.BUCKET, userObjectPrefix(userId))).map((o) => o.key);
  for (let i = 0; i < keys.length; i += 1000) {
    const page = keys.slice(i, i + 1000);
    for (let attempt = 1; ; attempt++) {
      try {
        await bindings.BUCKET.delete(page);
        break;
      } catch (error) {
        if (attempt >= 3) {
          console.error(`R2 cleanup failed for ${userObjectPrefix(userId)}: ${keys.length - i} files left`, error);
          throw error;
        }
      }
    }
  }
  return { rows, files: keys.length };
}
