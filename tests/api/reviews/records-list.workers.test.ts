/**
 * GET /api/reviews/{id}/records paged (issue 27): `limit` (default 100, at most 500) and `cursor`
 * → {records, nextCursor, total}, with search (`q`) and filters on the server, through the Worker.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ApiReviewRecord } from "~/lib/reviews";
import { BASE, call, errorOf, signUp } from "../helpers";
import { encodeRecordsCursor } from "~/.server/reviews/service";

interface Page {
  records: ApiReviewRecord[];
  nextCursor: string | null;
  total?: number;
}

async function newReview(cookie: string): Promise<string> {
  const res = await call("POST", "/api/reviews", { cookie, body: { title: "Paging review" } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { review: { id: string } }).review.id;
}

/** `n` records as CSV: every fifth an exercise trial, the rest alpine soil surveys; DOIs 10.5555/{prefix}.{i}. */
function csv(n: number, prefix: string): string {
  const rows = Array.from({ length: n }, (_, i) =>
    i % 5 === 0
      ? `"Aerobic Exercise for depression, trial ${prefix}${i}","Randomised trial of 100% supervised exercise",10.5555/${prefix}.${i},2020`
      : `"Alpine soil nitrogen survey ${prefix}${i}","Nitrogen mineralisation in grassland",10.5555/${prefix}.${i},2019`,
  );
  return `title,abstract,doi,year\n${rows.join("\n")}\n`;
}

async function importCsv(
  cookie: string,
  reviewId: string,
  text: string,
  name = "refs.csv",
): Promise<{ imported: number; sourceId: string }> {
  const form = new FormData();
  form.set("file", new File([text], name));
  const res = await SELF.fetch(`${BASE}/api/reviews/${reviewId}/import`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: BASE },
    body: form,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { imported: number; sourceId: string };
}

async function page(cookie: string, reviewId: string, query: Record<string, string | number> = {}): Promise<Page> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await call("GET", `/api/reviews/${reviewId}/records?${params}`, { cookie });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Page;
}

/** Follows nextCursor from the first page to the last; returns every page. */
async function allPages(
  cookie: string,
  reviewId: string,
  query: Record<string, string | number> = {},
): Promise<Page[]> {
  const pages = [await page(cookie, reviewId, query)];
  while (pages.at(-1)!.nextCursor)
    pages.push(await page(cookie, reviewId, { ...query, cursor: pages.at(-1)!.nextCursor! }));
  return pages;
}

async function storedIds(reviewId: string): Promise<number[]> {
  const { results } = await env.DB.prepare(
    "SELECT id FROM review_records WHERE review_id = ? AND duplicate_of IS NULL ORDER BY id",
  )
    .bind(reviewId)
    .all<{ id: number }>();
  return results.map((r) => r.id);
}

describe("GET /api/reviews/{id}/records, paged", () => {
  it("pages through 250 records: 100 by default, in import order, each once, then nextCursor null", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    await importCsv(cookie, reviewId, csv(250, "a"));
    const pages = await allPages(cookie, reviewId);
    expect(pages.map((p) => p.records.length)).toEqual([100, 100, 50]);
    expect(pages[0]!.total).toBe(250);
    expect(pages[1]!.total).toBeUndefined();
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(pages.flatMap((p) => p.records.map((r) => r.id))).toEqual(await storedIds(reviewId));
    expect(pages[0]!.records[0]).toMatchObject({
      title: "Aerobic Exercise for depression, trial a0",
      doi: "10.5555/a.0",
      stage: "title_abstract",
      decision: null,
    });

    const big = await allPages(cookie, reviewId, { limit: 500 });
    expect(big.map((p) => p.records.length)).toEqual([250]);
    expect(big[0]!.nextCursor).toBeNull();
    const small = await allPages(cookie, reviewId, { limit: 30 });
    expect(small.map((p) => p.records.length)).toEqual([...Array(8).fill(30), 10]);
    expect(small.flatMap((p) => p.records.map((r) => r.id))).toEqual(await storedIds(reviewId));
  }, 30_000);

  it("a cursor stays valid while records are decided and imported: no record repeats or is skipped", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    await importCsv(cookie, reviewId, csv(250, "b"));
    const before = await storedIds(reviewId);
    const first = await page(cookie, reviewId, { limit: 100 });
    const decided = await call("POST", `/api/reviews/${reviewId}/records/${first.records[0]!.id}/decision`, {
      cookie,
      body: { stage: "title_abstract", decision: "include" },
    });
    expect(decided.status).toBe(200);
    await importCsv(cookie, reviewId, csv(20, "c"), "more.csv");
    const rest: number[] = [];
    for (let cursor = first.nextCursor; cursor;) {
      const next = await page(cookie, reviewId, { limit: 100, cursor });
      rest.push(...next.records.map((r) => r.id));
      cursor = next.nextCursor;
    }
    const seen = [...first.records.map((r) => r.id), ...rest];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(await storedIds(reviewId));
    expect(seen.slice(0, 250)).toEqual(before);
    expect(seen).toHaveLength(270);
  });

  it("answers 400 for a limit out of 1–500 or a cursor it did not give, and 404 for another user's review", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    await importCsv(cookie, reviewId, csv(3, "d"));
    for (const limit of ["501", "0", "-1", "abc", "1.5", "1e3"]) {
      const res = await call("GET", `/api/reviews/${reviewId}/records?limit=${limit}`, { cookie });
      expect(res.status, `limit=${limit}`).toBe(400);
      expect((await errorOf(res)).error).toBe("INVALID_INPUT");
    }
    expect((await page(cookie, reviewId, { limit: 500 })).records).toHaveLength(3);
    for (const cursor of [
      "abc",
      "%00",
      encodeURIComponent(btoa("r1.-5")),
      encodeURIComponent(btoa("r1.0")),
      encodeURIComponent(btoa("other")),
      "x".repeat(65),
    ]) {
      const res = await call("GET", `/api/reviews/${reviewId}/records?cursor=${cursor}`, { cookie });
      expect(res.status, `cursor=${cursor}`).toBe(400);
      expect((await errorOf(res)).error).toMatch(/^INVALID_(CURSOR|INPUT)$/);
    }
    const other = await signUp("pro");
    const res = await call("GET", `/api/reviews/${reviewId}/records?limit=10&cursor=${encodeRecordsCursor(1)}`, {
      cookie: other.cookie,
    });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).error).toBe("REVIEW_NOT_FOUND");
  });

  it("searches and filters on the server, and pages the filtered list", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    const a = await importCsv(cookie, reviewId, csv(250, "e"), "embase.csv");
    const b = await importCsv(cookie, reviewId, csv(10, "f"), "medline.csv");

    // Words are matched case-insensitively in title, abstract, authors, journal, DOI and PMID, all of them.
    const exercise = await allPages(cookie, reviewId, { q: "aerobic EXERCISE", limit: 20 });
    expect(exercise.map((p) => p.records.length)).toEqual([20, 20, 12]);
    expect(exercise[0]!.total).toBe(52);
    expect(exercise.flatMap((p) => p.records).every((r) => r.title.startsWith("Aerobic Exercise"))).toBe(true);
    expect((await page(cookie, reviewId, { q: "exercise grassland" })).records).toHaveLength(0);
    expect((await page(cookie, reviewId, { q: "10.5555/f.3" })).records.map((r) => r.doi)).toEqual(["10.5555/f.3"]);
    // '%' and '_' are plain characters, not wildcards.
    expect((await page(cookie, reviewId, { q: "100%" })).total).toBe(52);
    expect((await page(cookie, reviewId, { q: "a_b" })).total).toBe(0);

    const fromB = await page(cookie, reviewId, { source: b.sourceId, limit: 500 });
    expect(fromB.records).toHaveLength(10);
    expect(fromB.records.every((r) => r.sourceId === b.sourceId)).toBe(true);
    expect((await page(cookie, reviewId, { source: a.sourceId })).total).toBe(250);

    const [one, two] = (await page(cookie, reviewId, { q: "alpine", limit: 2 })).records;
    for (const r of [one!, two!]) {
      const res = await call("POST", `/api/reviews/${reviewId}/records/${r.id}/decision`, {
        cookie,
        body: { stage: "title_abstract", decision: "include" },
      });
      expect(res.status).toBe(200);
    }
    const included = await page(cookie, reviewId, { stage: "title_abstract", decision: "include" });
    expect(included.records.map((r) => r.id)).toEqual([one!.id, two!.id]);
    expect((await page(cookie, reviewId, { stage: "title_abstract", decision: "undecided" })).total).toBe(258);
    expect(
      (
        await page(cookie, reviewId, {
          stage: "title_abstract",
          decision: "undecided",
          q: "alpine",
          source: a.sourceId,
        })
      ).total,
    ).toBe(198);
    // Without a stage, a record included at title/abstract is undecided at full text.
    expect((await page(cookie, reviewId, { decision: "undecided", q: "alpine", source: a.sourceId })).total).toBe(200);

    // The second screener disagrees on `one` (include → exclude) and agrees on `two`.
    await env.DB.prepare("UPDATE review_records SET suggestion = ? WHERE id = ?")
      .bind(JSON.stringify({ decision: "exclude", reasons: [] }), one!.id)
      .run();
    await env.DB.prepare("UPDATE review_records SET suggestion = ? WHERE id = ?")
      .bind(JSON.stringify({ decision: "include", reasons: [] }), two!.id)
      .run();
    expect((await page(cookie, reviewId, { suggestion: "disagrees" })).records.map((r) => r.id)).toEqual([one!.id]);
    expect((await call("GET", `/api/reviews/${reviewId}/records?suggestion=agrees`, { cookie })).status).toBe(400);
  }, 30_000);
});
