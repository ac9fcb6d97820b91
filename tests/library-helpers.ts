/**
 * Helpers for the library area's Workers tests: requests through the Worker (same-origin, a fresh
 * client IP each), account sign-up, plan changes and stored studies.
 */
import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";

export const BASE = "https://metamind.test";

function uniqueIp(): string {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/** A request to the Worker; `body` is JSON-encoded unless it is a string. */
export function call(
  method: string,
  path: string,
  { cookie, body, origin = BASE }: { cookie?: string; body?: unknown; origin?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Origin: origin, "CF-Connecting-IP": uniqueIp() };
  if (cookie) headers.Cookie = cookie;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return SELF.fetch(`${BASE}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Registers a new account (optionally Professional) and returns its cookie and id. */
export async function signUp(plan: "free" | "pro" = "free", firstName?: string): Promise<{ cookie: string; userId: string; email: string }> {
  const email = `lib-${crypto.randomUUID()}@example.org`;
  const res = await call("POST", "/api/register", { body: { email, password: "secret12", ...(firstName ? { firstName } : {}) } });
  expect(res.status).toBe(201);
  const cookie = (res.headers.get("Set-Cookie") ?? "").split(";")[0]!;
  const { user } = (await res.json()) as { user: { id: string } };
  if (plan === "pro") await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE id = ?").bind(user.id).run();
  return { cookie, userId: user.id, email };
}

/** Inserts a study row and returns its id. */
export async function insertStudy(fields: {
  title: string;
  authors: string[];
  journal?: string | null;
  publicationDate?: string | null;
  doi?: string | null;
  pmid?: string | null;
  abstract?: string | null;
  source?: string;
}): Promise<number> {
  const key = crypto.randomUUID();
  const row = await env.DB.prepare(
    `INSERT INTO studies (doi, pmid, title_key, title, abstract, authors, journal, publication_date, source, source_id, study_type, publication_types)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'Research Article', '[]') RETURNING id`,
  )
    .bind(
      fields.doi ?? null,
      fields.pmid ?? null,
      key,
      fields.title,
      fields.abstract ?? null,
      JSON.stringify(fields.authors),
      fields.journal ?? null,
      fields.publicationDate ?? null,
      fields.source ?? "pubmed",
      key,
    )
    .first<{ id: number }>();
  return row!.id;
}

/** Number of rows in a table for a user (table names come from the test, never from input). */
export async function countRows(table: string, userId: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`).bind(userId).first<{ n: number }>();
  return row!.n;
}

export async function errorOf(res: Response): Promise<{ error: string; message: string; [k: string]: unknown }> {
  return (await res.json()) as { error: string; message: string };
}
