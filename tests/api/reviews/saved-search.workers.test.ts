/**
 * Imported files marked as saved searches (issue 31) in the Workers runtime: marking at import time
 * (multipart `searchDatabase` + `searchQuery`) and afterwards (PATCH /api/reviews/{id}/sources/
 * {sourceId}), the errors and roles, and the re-run of a marked PubMed export by a living update —
 * on demand and by the Cron Trigger — against recorded PubMed answers: de-duplicated against the
 * file's records, tagged with the update, recorded and digested.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { createReplayFetch } from "../../mocks/index.ts";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import type { ApiReviewSource } from "~/lib/reviews";
import { getLoadContext } from "~/.server/context";
import { parseEnv } from "~/.server/env";
import { runDueLivingReviews, type LivingUpdateResult } from "~/.server/reviews/living";
import { MAX_SEARCHES_PER_UPDATE } from "~/.server/reviews/saved-search";
import { call, json, newReview } from "../helpers";

async function signUp(): Promise<{ cookie: string; email: string }> {
  const email = `saved-${crypto.randomUUID()}@example.org`;
  const res = await call("POST", "/api/register", { body: { email, password: "secret12" } });
  expect(res.status).toBe(201);
  await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE email = ?").bind(email).run();
  return { cookie: (res.headers.get("Set-Cookie") ?? "").split(";")[0]!, email };
}

/**
 * A PubMed export (MEDLINE format): one of the two articles the recorded PubMed answer returns
 * (PMID 11748933) and a trial the database no longer returns.
 */
const NBIB = [
  "PMID- 11748933",
  "TI  - Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
  "DP  - 2001",
  "",
  "PMID- 99000001",
  "TI  - Supervised exercise for depression in older adults: a randomised trial",
  "DP  - 2020",
  "",
].join("\n");

function exportForm(fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.set("file", new File([NBIB], "pubmed-export.nbib", { type: "text/plain" }));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

async function sources(cookie: string, reviewId: string): Promise<ApiReviewSource[]> {
  return (
    await json<{ review: { sources: ApiReviewSource[] } }>(
      await call("GET", `/api/reviews/${reviewId}`, { cookie }),
      200,
    )
  ).review.sources;
}

async function addMember(reviewId: string, email: string, role: "reviewer" | "viewer") {
  await env.DB.prepare(
    "INSERT INTO review_members (review_id, user_id, role) SELECT ?, id, ? FROM users WHERE email = ?",
  )
    .bind(reviewId, role, email)
    .run();
}

const e = parseEnv(env as unknown as Record<string, unknown>);
const EMAIL_BASE = "http://127.0.0.1:9";

/** Recorded PubMed answers (PMIDs 11748933 and 11700088 for any query); e-mails are captured. */
function fakeUpstreams() {
  const replay = createReplayFetch(workerFixtureReader, { baseUrls: { pubmed: e.PUBMED_BASE_URL } });
  const emails: { to: string[]; subject: string }[] = [];
  const terms: string[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(`${EMAIL_BASE}/emails`)) {
      emails.push(
        JSON.parse(input instanceof Request ? await input.text() : String(init?.body)) as {
          to: string[];
          subject: string;
        },
      );
      return Response.json({ id: `email-${emails.length}` });
    }
    if (url.includes("esearch.fcgi")) terms.push(new URL(url).searchParams.get("term") ?? "");
    return (replay as typeof fetch)(input, init);
  };
  return { spy: vi.spyOn(globalThis, "fetch").mockImplementation(fake as typeof fetch), emails, terms };
}

function cronApp() {
  const raw = {
    ...(env as unknown as Record<string, unknown>),
    EMAIL_PROVIDER: "resend",
    EMAIL_API_KEY: "re_test",
    EMAIL_API_BASE: EMAIL_BASE,
    APP_URL: "https://app.metamind.test",
  };
  return getLoadContext(raw as never, { waitUntil: () => {} } as never).app;
}

describe("marking an imported file as a saved search", () => {
  it("at import time: the database and query are stored on the file's source; an incomplete or invalid mark imports nothing (400)", async () => {
    const { cookie } = await signUp();
    const review = await newReview(cookie);
    for (const [fields, message] of [
      [{ searchDatabase: "pubmed" }, /give both the database/],
      [{ searchQuery: "exercise AND depression" }, /give both the database/],
      [
        { searchDatabase: "embase", searchQuery: "exercise" },
        /database must be one of pubmed, crossref, europepmc, core, semanticscholar, doaj/,
      ],
      [{ searchDatabase: "pubmed", searchQuery: "x".repeat(501) }, /at most 500 characters/],
    ] as const) {
      const refused = await json<{ error: string; message: string }>(
        await call("POST", `/api/reviews/${review.id}/import`, { cookie, form: exportForm(fields) }),
        400,
      );
      expect(refused.error).toBe("INVALID_SAVED_SEARCH");
      expect(refused.message).toMatch(message);
    }
    expect(await sources(cookie, review.id)).toEqual([]);

    const imported = await json<{ imported: number; sourceId: string }>(
      await call("POST", `/api/reviews/${review.id}/import`, {
        cookie,
        form: exportForm({ searchDatabase: "PubMed", searchQuery: "  exercise   AND depression " }),
      }),
      201,
    );
    expect(imported.imported).toBe(2);
    const [file] = await sources(cookie, review.id);
    expect(file).toMatchObject({
      id: imported.sourceId,
      kind: "file",
      name: "pubmed-export.nbib",
      query: "exercise AND depression",
    });
    expect(file!.details.savedSearch).toEqual({
      database: "pubmed",
      markedAt: expect.any(String),
      markedBy: expect.any(String),
    });
    // The checklist's search strategy now states the file's query.
    const checklist = await json<{ items: { item: string; status: string; text: string }[] }>(
      await call("GET", `/api/reviews/${review.id}/prisma-checklist`, { cookie }),
      200,
    );
    expect(checklist.items.find((i) => i.item === "7")).toMatchObject({
      status: "reported",
      text: expect.stringContaining('pubmed-export.nbib: "exercise AND depression"'),
    });
  });

  it("afterwards by the owner (PATCH); members are refused (403), others do not see the review (404), bad input is 400, a search or a full list is 409", async () => {
    const owner = await signUp();
    const reviewer = await signUp();
    const viewer = await signUp();
    const stranger = await signUp();
    const review = await newReview(owner.cookie);
    await addMember(review.id, reviewer.email, "reviewer");
    await addMember(review.id, viewer.email, "viewer");
    const { sourceId } = await json<{ sourceId: string }>(
      await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form: exportForm() }),
      201,
    );
    const path = `/api/reviews/${review.id}/sources/${sourceId}`;
    const mark = { savedSearch: { database: "europepmc", query: "exercise depression" } };

    expect((await call("PATCH", path, { body: mark })).status).toBe(401);
    for (const member of [reviewer, viewer]) {
      expect(
        (await json<{ error: string }>(await call("PATCH", path, { cookie: member.cookie, body: mark }), 403)).error,
      ).toBe("FORBIDDEN_ROLE");
    }
    expect(
      (await json<{ error: string }>(await call("PATCH", path, { cookie: stranger.cookie, body: mark }), 404)).error,
    ).toBe("REVIEW_NOT_FOUND");
    expect(
      (
        await json<{ error: string }>(
          await call("PATCH", `/api/reviews/${review.id}/sources/no-such-source`, { cookie: owner.cookie, body: mark }),
          404,
        )
      ).error,
    ).toBe("SOURCE_NOT_FOUND");
    for (const bad of [
      { savedSearch: { database: "embase", query: "exercise" } },
      { savedSearch: { database: "pubmed", query: "   " } },
      { savedSearch: { database: "pubmed", query: "q".repeat(501) } },
      { savedSearch: { database: "pubmed", query: "exercise", filters: {} } },
      {},
    ]) {
      expect(
        (await json<{ error: string }>(await call("PATCH", path, { cookie: owner.cookie, body: bad }), 400)).error,
      ).toBe("INVALID_INPUT");
    }
    expect((await call("GET", path, { cookie: owner.cookie })).status).toBe(405);
    expect((await call("POST", path, { cookie: owner.cookie, body: mark })).status).toBe(405);
    // Nothing was marked by any refused request.
    expect((await sources(owner.cookie, review.id))[0]!.details).not.toHaveProperty("savedSearch");

    const { source } = await json<{ source: ApiReviewSource }>(
      await call("PATCH", path, { cookie: owner.cookie, body: mark }),
      200,
    );
    expect(source).toMatchObject({
      id: sourceId,
      kind: "file",
      query: "exercise depression",
      details: { fileName: "pubmed-export.nbib", savedSearch: { database: "europepmc" } },
    });
    const unmarked = (
      await json<{ source: ApiReviewSource }>(
        await call("PATCH", path, { cookie: owner.cookie, body: { savedSearch: null } }),
        200,
      )
    ).source;
    expect(unmarked.query).toBeNull();
    expect(unmarked.details).not.toHaveProperty("savedSearch");
    expect(unmarked.details.fileName).toBe("pubmed-export.nbib");
    expect(
      (
        await json<{ error: string }>(
          await call("POST", `/api/reviews/${review.id}/update`, { cookie: owner.cookie }),
          400,
        )
      ).error,
    ).toBe("NO_SEARCHES");

    // A search is already re-run: 409. So is a mark beyond the searches an update re-runs.
    const ownerId = (await env.DB.prepare("SELECT user_id FROM reviews WHERE id = ?")
      .bind(review.id)
      .first<{ user_id: string }>())!.user_id;
    const insertSearch = env.DB.prepare(
      "INSERT INTO review_sources (id, review_id, user_id, kind, name, query, details, record_count) VALUES (?, ?, ?, 'search', 'PubMed', 'q', ?, 0)",
    );
    const searchIds = Array.from({ length: MAX_SEARCHES_PER_UPDATE }, () => crypto.randomUUID());
    await env.DB.batch(
      searchIds.map((id) =>
        insertSearch.bind(
          id,
          review.id,
          ownerId,
          JSON.stringify({ providers: { pubmed: { status: "ok", records: 0 } } }),
        ),
      ),
    );
    const notFile = await json<{ error: string; message: string }>(
      await call("PATCH", `/api/reviews/${review.id}/sources/${searchIds[0]}`, { cookie: owner.cookie, body: mark }),
      409,
    );
    expect(notFile).toMatchObject({
      error: "NOT_A_FILE_IMPORT",
      message: expect.stringContaining("living updates already re-run it"),
    });
    const full = await json<{ error: string }>(await call("PATCH", path, { cookie: owner.cookie, body: mark }), 409);
    expect(full.error).toBe("TOO_MANY_SEARCHES");
    expect(
      (
        await json<{ error: string }>(
          await call("POST", `/api/reviews/${review.id}/import`, {
            cookie: owner.cookie,
            form: exportForm({ searchDatabase: "pubmed", searchQuery: "x" }),
          }),
          409,
        )
      ).error,
    ).toBe("TOO_MANY_SEARCHES");
    expect(await sources(owner.cookie, review.id)).toHaveLength(1 + MAX_SEARCHES_PER_UPDATE);
  });
});

describe.skipIf(!hasWorkerFixtures)("living updates re-run a marked file against recorded PubMed answers", () => {
  it("on demand: the file's database is asked with its query; what the file holds is a duplicate, the rest is new and tagged with the update", async () => {
    const { cookie } = await signUp();
    const review = await newReview(cookie);
    const { sourceId } = await json<{ sourceId: string }>(
      await call("POST", `/api/reviews/${review.id}/import`, {
        cookie,
        form: exportForm({ searchDatabase: "pubmed", searchQuery: "exercise AND depression" }),
      }),
      201,
    );
    const upstream = fakeUpstreams();
    let result: LivingUpdateResult;
    try {
      result = await json<LivingUpdateResult>(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 200);
    } finally {
      upstream.spy.mockRestore();
    }
    expect(upstream.terms.some((t) => t.startsWith("exercise AND depression"))).toBe(true);
    // PubMed answers PMIDs 11748933 (already in the file: merged by PMID) and 11700088 (new).
    expect(result).toMatchObject({ searchesRun: 1, newRecords: 1, duplicatesRemoved: 1, failed: [] });
    const all = await sources(cookie, review.id);
    expect(all).toHaveLength(2);
    const update = all[1]!;
    expect(update.name).toMatch(/^pubmed-export\.nbib \(update \d{4}-\d{2}-\d{2}\)$/);
    expect(update).toMatchObject({
      kind: "search",
      query: "exercise AND depression",
      details: { updateOf: sourceId, updateId: expect.any(String) },
    });
    const { results: rows } = await env.DB.prepare(
      "SELECT pmid, origin, duplicate_of, duplicate_reason FROM review_records WHERE source_id = ? ORDER BY pmid",
    )
      .bind(update.id)
      .all();
    expect(rows).toEqual([
      { pmid: "11700088", origin: "PubMed", duplicate_of: null, duplicate_reason: null },
      { pmid: "11748933", origin: "PubMed", duplicate_of: expect.any(Number), duplicate_reason: "pmid" },
    ]);
    const history = (
      await json<{ updates: { trigger: string; status: string; searchesRun: number; newRecords: number }[] }>(
        await call("GET", `/api/reviews/${review.id}/update`, { cookie }),
        200,
      )
    ).updates;
    expect(history.map((h) => [h.trigger, h.status, h.searchesRun, h.newRecords])).toEqual([["manual", "done", 1, 1]]);
    // The update's own source is never re-run: a second update re-runs the file alone and finds nothing new.
    const again = fakeUpstreams();
    try {
      expect(
        await json<LivingUpdateResult>(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 200),
      ).toMatchObject({ searchesRun: 1, newRecords: 0, duplicatesRemoved: 2 });
    } finally {
      again.spy.mockRestore();
    }
  });

  it("on the schedule: a file marked afterwards is re-run by the Cron Trigger, ranked and digested to the owner and members", async () => {
    const owner = await signUp();
    const reviewer = await signUp();
    const review = await newReview(owner.cookie);
    await addMember(review.id, reviewer.email, "reviewer");
    const { sourceId } = await json<{ sourceId: string }>(
      await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form: exportForm() }),
      201,
    );
    await json(
      await call("PATCH", `/api/reviews/${review.id}/sources/${sourceId}`, {
        cookie: owner.cookie,
        body: { savedSearch: { database: "pubmed", query: "exercise depression" } },
      }),
      200,
    );
    await json(
      await call("PATCH", `/api/reviews/${review.id}`, {
        cookie: owner.cookie,
        body: { living: { schedule: "monthly" } },
      }),
      200,
    );
    const now = Date.now();
    await env.DB.prepare("UPDATE reviews SET living_next_run_at = ? WHERE id = ?")
      .bind(now - 1000, review.id)
      .run();

    const upstream = fakeUpstreams();
    try {
      const run = await runDueLivingReviews(cronApp(), { now });
      expect(run).toMatchObject({ updated: 1, failed: 0 });
      expect(await runDueLivingReviews(cronApp(), { now })).toMatchObject({ updated: 0 });
      expect(upstream.emails.map((m) => m.to[0]).sort()).toEqual([owner.email, reviewer.email].sort());
      expect(new Set(upstream.emails.map((m) => m.subject))).toEqual(
        new Set(['1 new record in "Exercise for depression"']),
      );
    } finally {
      upstream.spy.mockRestore();
    }
    const row = await env.DB.prepare(
      "SELECT trigger, status, searches_run, new_records, duplicates_removed, digest_sent FROM review_updates WHERE review_id = ?",
    )
      .bind(review.id)
      .first();
    expect(row).toEqual({
      trigger: "schedule",
      status: "done",
      searches_run: 1,
      new_records: 1,
      duplicates_removed: 1,
      digest_sent: 1,
    });
    // The new record is in the screening queue, ranked with the others.
    const fresh = await env.DB.prepare(
      "SELECT r.id FROM review_records r JOIN review_sources s ON s.id = r.source_id WHERE r.review_id = ? AND r.duplicate_of IS NULL AND json_extract(s.details, '$.updateOf') = ?",
    )
      .bind(review.id, sourceId)
      .all<{ id: number }>();
    expect(fresh.results).toHaveLength(1);
    const { records } = await json<{ records: { id: number }[] }>(
      await call("GET", `/api/reviews/${review.id}/records?stage=title_abstract`, { cookie: owner.cookie }),
      200,
    );
    expect(records.map((r) => r.id)).toContain(fresh.results[0]!.id);
  });
});
if (!hasWorkerFixtures) describe.skip(MISSING_WORKER_FIXTURES, () => {});
