/**
 * Scaffolding shared by the HTTP-level Workers suites (tests/api/<capability>/…): requests through
 * the Worker (same-origin, a fresh client IP each), accounts (sign-up, optionally Professional),
 * JSON answers and error bodies, stored studies and row counts. Workers runtime only
 * (cloudflare:test); docs/architecture.md "Tests" describes the layout.
 */
import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { ApiReview } from "~/lib/reviews";

export const BASE = "https://metamind.test";

/** A fresh client address (10.x.y.z, random), so per-IP rate limits never couple tests. */
export function uniqueIp(): string {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/** Options of {@link call}. */
export interface CallOptions {
  /** Session cookie (`name=value`), sent as Cookie. */
  cookie?: string;
  /** JSON-encoded unless it is a string (sent as is); sets Content-Type to `type`. */
  body?: unknown;
  /** Multipart body; wins over `body` (the Content-Type is then the form's own). */
  form?: FormData;
  /** Content-Type of `body`; application/json unless given. */
  type?: string;
  /** Origin header; the app's own origin unless given (cross-site checks pass another). */
  origin?: string;
}

/**
 * A request to the Worker (SELF.fetch) at `${BASE}${path}` with Origin `origin` and a fresh
 * CF-Connecting-IP ({@link uniqueIp}).
 */
export function call(
  method: string,
  path: string,
  { cookie, body, form, type, origin = BASE }: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { Origin: origin, "CF-Connecting-IP": uniqueIp() };
  if (cookie) headers.Cookie = cookie;
  if (body !== undefined) headers["Content-Type"] = type ?? "application/json";
  return SELF.fetch(`${BASE}${path}`, {
    method,
    headers,
    body: form ?? (body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)),
  });
}

/** The answer's JSON body, after asserting its status (the body text is the assertion's message). */
export async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** The JSON error body `{error, message, …}` of a refused request. */
export async function errorOf(res: Response): Promise<{ error: string; message: string; [k: string]: unknown }> {
  return (await res.json()) as { error: string; message: string };
}

/**
 * A refused request's status with its error code, e.g. `{ status: 403, error: "FORBIDDEN" }`;
 * just `{ status }` when the body is not JSON.
 */
export async function statusAndError(res: Response): Promise<{ status: number; error?: string }> {
  const text = await res.text();
  try {
    return { status: res.status, error: (JSON.parse(text) as { error?: string }).error };
  } catch {
    return { status: res.status };
  }
}

/** A signed-up account: its session cookie, user id and e-mail address. */
export interface Account {
  cookie: string;
  userId: string;
  email: string;
}

/** The session cookie (`name=value`) a response sets. */
export function cookieOf(res: Response): string {
  return (res.headers.get("Set-Cookie") ?? "").split(";")[0]!;
}

/**
 * Registers a new account through POST /api/register (asserting 201) and, for `plan` "pro", makes
 * it Professional in D1. The address is `${prefix}-<uuid>@example.org` unless `email` is given;
 * the password "secret12" unless `password` is.
 */
export async function signUp(
  plan: "free" | "pro" = "free",
  {
    prefix = "user",
    email = `${prefix}-${crypto.randomUUID()}@example.org`,
    password = "secret12",
    firstName,
  }: { prefix?: string; email?: string; password?: string; firstName?: string } = {},
): Promise<Account> {
  const res = await call("POST", "/api/register", { body: { email, password, ...(firstName ? { firstName } : {}) } });
  expect(res.status).toBe(201);
  const cookie = cookieOf(res);
  const { user } = (await res.json()) as { user: { id: string } };
  if (plan === "pro") await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE id = ?").bind(user.id).run();
  return { cookie, userId: user.id, email };
}

/**
 * Signs in through POST /api/login (asserting 200), by default with the demo accounts' password
 * (free@metamind.local, pro@metamind.local); returns the new session's cookie and the user's id.
 */
export async function signIn(email: string, password = "metamind-demo"): Promise<{ cookie: string; userId: string }> {
  const res = await call("POST", "/api/login", { body: { email, password } });
  expect(res.status).toBe(200);
  const user = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: string }>();
  return { cookie: cookieOf(res), userId: user!.id };
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
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`)
    .bind(userId)
    .first<{ n: number }>();
  return row!.n;
}

/** A new review "Exercise for depression" (intervention: exercise) owned by the account of `cookie`. */
export async function newReview(cookie: string): Promise<ApiReview> {
  return (
    await json<{ review: ApiReview }>(
      await call("POST", "/api/reviews", {
        cookie,
        body: { title: "Exercise for depression", question: { intervention: "exercise" } },
      }),
      201,
    )
  ).review;
}
