/**
 * Attack fuzz over every /api route (issue 11, "Proof"): a seeded, deterministic generator sends
 * malformed bodies, wrong types, huge and deeply nested values, prototype keys, junk content types,
 * wrong methods, junk path ids and another user's ids — as a guest and as a second signed-in user
 * who owns nothing. Every request is one that must be refused (or, for a read, change nothing), so
 * the suite asserts: 0 responses ≥ 500, every error is JSON, and 0 rows changed in any D1 table
 * (a checksum of every table before and after). Bounded: at most 5,000 requests.
 */
import { env, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { API_ROUTES, type ApiMethod, type ApiRoute } from "~/.server/http/api-routes";
import { mulberry32 } from "~/lib/random";

const BASE = "https://metamind.test";
const SEED = 0x11_2026;
const MAX_REQUESTS = 5000;
/** As many requests per route as the bound allows (at most 80), so new routes never break it. */
const REQUESTS_PER_ROUTE = Math.min(80, Math.floor(MAX_REQUESTS / API_ROUTES.length));
const CONCURRENCY = 8;
/** The suite's hard time bound (the issue allows 3 minutes; it takes well under one). */
const TIME_LIMIT_MS = 150_000;
const ALL_METHODS: ApiMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The route modules in app/routes, enumerated from the files themselves. */
const ROUTE_FILES = Object.keys(import.meta.glob("../../app/routes/api*.{ts,tsx}")).map((p) => p.split("/").pop()!);

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Short description for failure reports. */
  label: string;
}

interface Owned {
  reportId: number;
  savedSearchId: number;
  uploadId: number;
  jobId: string;
  studyId: number;
  /** The victim's review, and a pending invitation to it for another e-mail (issue 30). */
  reviewId: string;
  invitationToken: string;
}

const FIELD_NAMES = [
  "email",
  "password",
  "firstName",
  "name",
  "type",
  "studyIds",
  "reportData",
  "htmlContent",
  "studies",
  "studyId",
  "ids",
  "id",
  "query",
  "filters",
  "format",
  "priceId",
  "successUrl",
  "saveSearchHistory",
  "searchResultsPerPage",
  "defaultSearchProvider",
  "openAccessUrl",
  "text",
  "regenerate",
  "confirm",
  "uploadId",
  "userId",
  "plan",
  "title",
  "abstract",
  "includeAbstracts",
  "style",
  "studyType",
  "data",
  "kind",
  "outcome",
  "measure",
  "searchProviders",
];

const HUGE = "x".repeat(1_200_000);
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const deepArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

function generator(seed: number, owned: Owned, cookies: { attacker: string }) {
  const rand = mulberry32(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

  const wrongValues: (() => unknown)[] = [
    () => null,
    () => true,
    () => -1,
    () => 1e308,
    () => 0.5,
    () => "",
    () => " ",
    () => "x".repeat(20_000),
    () => "<svg><style><img src=x onerror=alert(1)></style></svg>",
    () => "' OR 1=1 --",
    () => "\u0000\uFFFF\uD800",
    () => [],
    () => [null, {}, []],
    () => Array.from({ length: 5000 }, (_, i) => i),
    () => ({}),
    () => ({ $ne: null }),
    () => String(owned.reportId),
    () => owned.uploadId,
    () => [owned.uploadId, owned.reportId],
    () => owned.jobId,
  ];

  const bodies: (() => { body: string; contentType: string; label: string })[] = [
    () => ({ body: "{", contentType: "application/json", label: "truncated JSON" }),
    () => ({ body: "{not json", contentType: "application/json", label: "malformed JSON" }),
    () => ({ body: "null", contentType: "application/json", label: "null" }),
    () => ({
      body: pick(["42", "true", '"text"', "[]", "[1,2,3]"]),
      contentType: "application/json",
      label: "non-object JSON",
    }),
    () => ({ body: deep(6000), contentType: "application/json", label: "6,000 levels deep" }),
    () => ({
      body: `{"name":"d","type":"export","reportData":${deep(65)}}`,
      contentType: "application/json",
      label: "65 levels deep",
    }),
    () => ({ body: deepArray(3000), contentType: "application/json", label: "3,000 nested arrays" }),
    () => ({
      body: JSON.stringify({ name: HUGE, text: "x" }),
      contentType: "application/json",
      label: "1.2 MB string",
    }),
    () => ({
      body: '{"__proto__":{"plan":"pro"},"constructor":{"prototype":{"isPro":true}}}',
      contentType: "application/json",
      label: "prototype keys",
    }),
    () => ({ body: "email=a&password=b&intent=login", contentType: "text/plain", label: "text/plain" }),
    () => ({
      body: '--x\r\nContent-Disposition: form-data; name="files"\r\n\r\nnot a pdf',
      contentType: "multipart/form-data; boundary=y",
      label: "broken multipart",
    }),
    () => ({ body: "\u0000\u0001\u0002", contentType: "application/octet-stream", label: "binary" }),
    () => {
      const fields = 1 + int(4);
      const value: Record<string, unknown> = {};
      for (let i = 0; i < fields; i++) value[pick(FIELD_NAMES)] = pick(wrongValues)();
      return {
        body: JSON.stringify(value),
        contentType: "application/json",
        label: `wrong types ${Object.keys(value).join(",")}`,
      };
    },
  ];

  const junkIds = [
    "0",
    "-1",
    "abc",
    "1.5",
    "1e3",
    "99999999999999999999",
    "%27%20OR%201%3D1",
    "..%2F..%2Fetc",
    "%00",
    "x".repeat(300),
    "NaN",
  ];
  const junkQueries = [
    "",
    "?q=",
    "?q=%20",
    `?q=${"a".repeat(5000)}`,
    "?q=x&page=0",
    "?q=x&page=-1",
    "?q=x&page=abc",
    "?q=x&page=1e9",
    "?q=x&limit=0",
    "?q=x&limit=abc",
    "?q=x&limit=100000",
    "?q=x&searchProviders=evil",
    "?q=x&searchProviders=pubmed,evil",
    "?q=x&searchProvider=evil",
    "?q=x&dateRange=bogus",
    "?q=x&studyType=%3Cscript%3E",
    "?limit=-5",
    "?format=exe&style=..%2F..",
    "?ids=1,2,abc",
    "?q[]=1&q[]=2",
    "?limit=501&cursor=cjEuMQ",
    "?cursor=%00&limit=5",
    "?cursor=cjEuLTE&source=%27&suggestion=evil",
  ];

  function concretePath(route: ApiRoute, asAttacker: boolean): string {
    return route.pattern.replace(/:([^/]+)/g, (_, name: string) => {
      if (asAttacker && rand() < 0.6) {
        if (name === "jobId") return owned.jobId;
        if (route.pattern.startsWith("/api/saved-reports")) return String(owned.reportId);
        if (route.pattern.startsWith("/api/saved-searches")) return String(owned.savedSearchId);
        if (route.pattern.startsWith("/api/uploaded-studies")) return String(owned.uploadId);
        if (route.pattern.startsWith("/api/reviews/") && name === "id") return owned.reviewId;
        if (name === "token") return owned.invitationToken;
      }
      if (name === "provider" && rand() < 0.5) return pick(["pubmed", "crossref", "doaj"]);
      if (route.pattern === "/api/studies/:id" && rand() < 0.3) return String(owned.studyId);
      return pick(junkIds);
    });
  }

  return function next(route: ApiRoute): FuzzRequest {
    // Signing out is the one action a junk body does not refuse: the signed-in user only sends it
    // with a wrong method, so the session the other requests use stays.
    const asAttacker = rand() < 0.5;
    const headers: Record<string, string> = { Origin: BASE, "CF-Connecting-IP": `10.99.${int(250)}.${int(250)}` };
    if (asAttacker) headers.Cookie = cookies.attacker;
    const wrongMethods = ALL_METHODS.filter((m) => !route.methods.includes(m));
    const useWrongMethod = wrongMethods.length > 0 && rand() < 0.2;
    const method =
      useWrongMethod || (asAttacker && route.pattern === "/api/logout") ? pick(wrongMethods) : pick(route.methods);
    const path = concretePath(route, asAttacker);
    const who = asAttacker ? "other user" : "guest";
    if (method === "GET") {
      // /api/search/{provider} ignores the provider-list parameters, so those would be valid searches.
      const queries =
        route.pattern === "/api/search/:provider"
          ? junkQueries.filter((q) => !q.includes("searchProvider"))
          : junkQueries;
      const query = pick(queries);
      return { method, path: path + query, headers, label: `${who} GET ${path}${query.slice(0, 60)}` };
    }
    const { body, contentType, label } = pick(bodies)();
    headers["Content-Type"] = contentType;
    return { method, path, headers, body, label: `${who} ${method} ${path.slice(0, 80)} [${label}]` };
  };
}

/** SHA-256 over every row of every D1 table (sorted by rowid), keyed by table name. */
async function tableChecksums(): Promise<Record<string, string>> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'd1_migrations' ORDER BY name",
  ).all<{ name: string }>();
  const sums: Record<string, string> = {};
  for (const { name } of tables) {
    const { results } = await env.DB.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all();
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(results)));
    sums[name] =
      `${results.length}:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  }
  return sums;
}

async function signUp(): Promise<{ cookie: string; userId: string }> {
  const res = await SELF.fetch(`${BASE}/api/register`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: BASE,
      "CF-Connecting-IP": `10.98.${Math.floor(Math.random() * 250)}.1`,
    },
    body: JSON.stringify({ email: `fuzz-${crypto.randomUUID()}@example.org`, password: "fuzz-secret" }),
  });
  expect(res.status).toBe(201);
  const { user } = (await res.json()) as { user: { id: string } };
  return { cookie: (res.headers.get("Set-Cookie") ?? "").split(";")[0]!, userId: user.id };
}

/** The victim's resources, created directly in D1 so the fuzz can aim at their ids. */
async function seedVictim(userId: string): Promise<Owned> {
  const study = await env.DB.prepare(
    `INSERT INTO studies (title_key, title, authors, source, source_id, study_type, publication_types)
     VALUES ('fuzz study', 'Fuzz study', '["A. Author"]', 'pubmed', ?, 'rct', '[]') RETURNING id`,
  )
    .bind(`fuzz-${crypto.randomUUID()}`)
    .first<{ id: number }>();
  const report = await env.DB.prepare(
    `INSERT INTO saved_reports (user_id, name, type, study_ids, report_data, html_content)
     VALUES (?, 'Victim report', 'export', '[]', '{"description":"private"}', '<p>private</p>') RETURNING id`,
  )
    .bind(userId)
    .first<{ id: number }>();
  const search = await env.DB.prepare(
    "INSERT INTO saved_searches (user_id, name, query, filters) VALUES (?, 'Victim search', 'private', '{}') RETURNING id",
  )
    .bind(userId)
    .first<{ id: number }>();
  const upload = await env.DB.prepare(
    "INSERT INTO uploaded_studies (user_id, file_name, file_size, status, title) VALUES (?, 'victim.pdf', 1024, 'complete', 'Victim upload') RETURNING id",
  )
    .bind(userId)
    .first<{ id: number }>();
  const jobId = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO meta_analysis_jobs (id, user_id, status, request) VALUES (?, ?, 'complete', '{}')")
    .bind(jobId, userId)
    .run();
  await env.DB.prepare("INSERT INTO bookmarks (user_id, study_id) VALUES (?, ?)").bind(userId, study!.id).run();
  await env.DB.prepare(
    "INSERT INTO search_history (user_id, query, filters, providers, result_count) VALUES (?, 'private', '{}', '[\"pubmed\"]', 1)",
  )
    .bind(userId)
    .run();
  const reviewId = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO reviews (id, user_id, title) VALUES (?, ?, 'Victim review')")
    .bind(reviewId, userId)
    .run();
  const invitationToken = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(invitationToken)));
  await env.DB.prepare(
    "INSERT INTO review_invitations (id, review_id, user_id, email, role, token_hash, expires_at) VALUES (?, ?, ?, 'invitee@fuzz.invalid', 'reviewer', ?, ?)",
  )
    .bind(
      crypto.randomUUID(),
      reviewId,
      userId,
      Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""),
      Date.now() + 86_400_000,
    )
    .run();
  return {
    reportId: report!.id,
    savedSearchId: search!.id,
    uploadId: upload!.id,
    jobId,
    studyId: study!.id,
    reviewId,
    invitationToken,
  };
}

describe("API fuzz (seeded, bounded)", () => {
  const failures: string[] = [];
  const nonJsonErrors: string[] = [];
  const statuses: Record<number, number> = {};
  let sent = 0;
  let before: Record<string, string>;
  let plan: FuzzRequest[] = [];
  let fetchSpy: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    // No upstream is reachable: a request that got past validation to a database or model call
    // would fail here instead of touching the network.
    fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => {
      throw new TypeError("network disabled in the API fuzz");
    });
    const victim = await signUp();
    const attacker = await signUp();
    const owned = await seedVictim(victim.userId);
    const next = generator(SEED, owned, { attacker: attacker.cookie });
    plan = API_ROUTES.flatMap((route) => Array.from({ length: REQUESTS_PER_ROUTE }, () => next(route)));
    before = await tableChecksums();
  });

  afterAll(() => fetchSpy.mockRestore());

  it("the route list covers exactly the /api route modules in app/routes", () => {
    expect(ROUTE_FILES.length).toBeGreaterThan(30);
    expect([...API_ROUTES.map((r) => r.file)].sort()).toEqual([...ROUTE_FILES].sort());
  });

  it(
    `sends at most ${MAX_REQUESTS} attack requests: 0 answers ≥ 500, every error JSON, 0 rows changed`,
    async () => {
      expect(plan.length).toBeLessThanOrEqual(MAX_REQUESTS);
      const started = Date.now();
      for (let i = 0; i < plan.length; i += CONCURRENCY) {
        await Promise.all(
          plan.slice(i, i + CONCURRENCY).map(async (req) => {
            const res = await SELF.fetch(`${BASE}${req.path}`, {
              method: req.method,
              headers: req.headers,
              body: req.body,
              redirect: "manual",
            });
            sent++;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (res.status >= 500) failures.push(`${res.status} ${req.label}: ${(await res.text()).slice(0, 200)}`);
            else if (res.status >= 400 && !(res.headers.get("Content-Type") ?? "").includes("application/json")) {
              nonJsonErrors.push(`${res.status} ${req.label}`);
              await res.arrayBuffer();
            } else await res.arrayBuffer();
          }),
        );
      }
      const seconds = (Date.now() - started) / 1000;
      const after = await tableChecksums();
      console.info(
        `API fuzz: ${sent} requests over ${API_ROUTES.length} routes in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(statuses)}; ` +
          `${failures.length} ≥ 500; ${Object.keys(before).length} tables checked`,
      );
      expect(failures).toEqual([]);
      expect(nonJsonErrors).toEqual([]);
      expect(after).toEqual(before);
      expect(sent).toBe(plan.length);
    },
    TIME_LIMIT_MS,
  );
});
