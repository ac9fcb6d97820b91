/**
 * Screening at the size of real reviews (issue 27): term counts stored at import and the corpus
 * assembled from them, the ranking made in the import's background, one retraining at a time per
 * ranking (lease), and the next-record queries' plans (indexes, never a scan of the wide rows).
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildScreeningCorpus } from "~/lib/screening";
import { featuresSignature } from "~/lib/screening/term-counts";
import { BASE, call, signUp } from "../../../tests/api/helpers";
import { getLoadContext } from "../context";
import { CANDIDATE_SQL, PROGRESS_SQL, withRankingLease } from "./screening";
import { loadCorpus, termCountsPrefix } from "./screening-corpus";

const app = () => getLoadContext(env as never, { waitUntil: () => {} } as never).app;

async function newReview(cookie: string): Promise<string> {
  const res = await call("POST", "/api/reviews", {
    cookie,
    body: { title: "Exercise for depression", question: { intervention: "aerobic exercise" } },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { review: { id: string } }).review.id;
}

/** `n` records as CSV: every fifth an exercise trial, the rest soil surveys; DOIs 10.5555/{prefix}.{i}. */
function csv(n: number, prefix: string, from = 0): string {
  const rows = Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return i % 5 === 0
      ? `"Aerobic exercise for depression, trial ${prefix}${i}","Randomised trial of supervised aerobic exercise in adults with depression",10.5555/${prefix}.${i},2020`
      : `"Alpine soil nitrogen survey ${prefix}${i}","Nitrogen mineralisation in grassland soils, site ${i}",10.5555/${prefix}.${i},2019`;
  });
  return `title,abstract,doi,year\n${rows.join("\n")}\n`;
}

async function importCsv(
  cookie: string,
  reviewId: string,
  text: string,
): Promise<{ imported: number; duplicatesRemoved: number }> {
  const form = new FormData();
  form.set("file", new File([text], "refs.csv"));
  const res = await SELF.fetch(`${BASE}/api/reviews/${reviewId}/import`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: BASE },
    body: form,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { imported: number; duplicatesRemoved: number };
}

async function uniqueTexts(reviewId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, title, abstract, keywords FROM review_records WHERE review_id = ? AND duplicate_of IS NULL ORDER BY id",
  )
    .bind(reviewId)
    .all<{ id: number; title: string; abstract: string | null; keywords: string | null }>();
  return results;
}

async function until<T>(probe: () => Promise<T | null | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("screening corpus from stored term counts", () => {
  it("stores every import's term counts; the corpus assembled from them is the one built from the texts; lost counts are rebuilt; deleting the review removes them", async () => {
    const { cookie, userId } = await signUp("pro");
    const reviewId = await newReview(cookie);
    await importCsv(cookie, reviewId, csv(30, "a"));
    // 10 records repeat DOIs of the first file (duplicates, counted but not in the corpus), 15 are new.
    expect(
      await importCsv(cookie, reviewId, csv(10, "a") + csv(15, "b").split("\n").slice(1).join("\n")),
    ).toMatchObject({ imported: 15, duplicatesRemoved: 10 });

    const prefix = termCountsPrefix(userId, reviewId);
    const stored = (await env.BUCKET.list({ prefix, include: ["customMetadata"] })).objects;
    expect(stored).toHaveLength(2);
    expect(stored.map((o) => o.customMetadata?.features)).toEqual([featuresSignature(), featuresSignature()]);
    expect(stored.map((o) => Number(o.customMetadata?.records))).toEqual([30, 25]);

    const texts = await uniqueTexts(reviewId);
    expect(texts).toHaveLength(45);
    const expected = buildScreeningCorpus(texts.map((r) => ({ ...r, id: String(r.id) })));
    const review = { id: reviewId, userId };
    const fromCounts = await loadCorpus(
      app(),
      review,
      texts.map((r) => r.id),
    );
    expect(fromCounts.source).toBe("stored");
    expect(fromCounts.corpus.ids).toEqual(expected.ids);
    expect(fromCounts.corpus.vocab).toEqual(expected.vocab);
    expect([...fromCounts.corpus.vals]).toEqual([...expected.vals]);

    // A lost chunk (or records imported before term counts existed): rebuilt once from D1.
    await env.BUCKET.delete(stored[0]!.key);
    const rebuilt = await loadCorpus(
      app(),
      review,
      texts.map((r) => r.id),
    );
    expect(rebuilt.source).toBe("rebuilt");
    expect(rebuilt.corpus.ids).toEqual(expected.ids);
    expect([...rebuilt.corpus.vals]).toEqual([...expected.vals]);
    expect(
      (
        await loadCorpus(
          app(),
          review,
          texts.map((r) => r.id),
        )
      ).source,
    ).toBe("stored");

    // The imports' background ranking (it pauses between its steps) ends before the review is deleted.
    await until(async () => {
      const state = await env.DB.prepare(
        "SELECT (SELECT count(*) FROM review_ranking_leases WHERE review_id = ?1) AS leases, (SELECT version FROM review_rankings WHERE review_id = ?1) AS ranked, (SELECT version FROM reviews WHERE id = ?1) AS current",
      )
        .bind(reviewId)
        .first<{ leases: number; ranked: number | null; current: number }>();
      return state!.leases === 0 && state!.ranked === state!.current ? true : null;
    }, "the imports' ranking to end");
    expect((await call("DELETE", `/api/reviews/${reviewId}`, { cookie })).status).toBe(200);
    expect((await env.BUCKET.list({ prefix })).objects).toHaveLength(0);
  });

  it("ranks in the import's background, so the first next reads a stored ranking", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    await importCsv(cookie, reviewId, csv(40, "c"));
    // No `next` was asked for: the import itself ranked the review after answering.
    const ranking = await until(
      () =>
        env.DB.prepare("SELECT mode, json_array_length(ranked) AS n FROM review_rankings WHERE review_id = ?")
          .bind(reviewId)
          .first<{ mode: string; n: number }>(),
      "the import's ranking",
    );
    expect(ranking).toEqual({ mode: "prior", n: 40 });
    const next = (await (await call("GET", `/api/reviews/${reviewId}/screening/next`, { cookie })).json()) as {
      record: { title: string };
      progress: { total: number };
    };
    expect(next.progress.total).toBe(40);
    expect(next.record.title).toMatch(/aerobic exercise/i);
    // The background run (which pauses between its steps) ends before the test's storage is reset.
    await until(async () => {
      const lease = await env.DB.prepare("SELECT count(*) AS n FROM review_ranking_leases WHERE review_id = ?")
        .bind(reviewId)
        .first<{ n: number }>();
      return lease!.n === 0 ? true : null;
    }, "the import's retraining to end");
  });
});

describe("one retraining at a time per ranking", () => {
  it("a second holder is refused while the lease is held, gets it once released or expired", async () => {
    const { cookie } = await signUp("pro");
    const reviewId = await newReview(cookie);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const runs: string[] = [];
    const first = withRankingLease(app(), reviewId, "", async () => {
      runs.push("first");
      await held;
    });
    await until(
      () => env.DB.prepare("SELECT holder FROM review_ranking_leases WHERE review_id = ?").bind(reviewId).first(),
      "the first lease",
    );
    expect(await withRankingLease(app(), reviewId, "", async () => void runs.push("second"))).toBe(false);
    // Another ranking of the same review (a reviewer's own, dual screening) has its own lease.
    expect(await withRankingLease(app(), reviewId, "member-1", async () => void runs.push("member"))).toBe(true);
    release();
    expect(await first).toBe(true);
    expect(await withRankingLease(app(), reviewId, "", async () => void runs.push("third"))).toBe(true);
    expect(runs).toEqual(["first", "member", "third"]);
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM review_ranking_leases WHERE review_id = ?")
        .bind(reviewId)
        .first<{ n: number }>())!.n,
    ).toBe(0);

    // A lease left by a crashed holder is taken over once it has expired, never before.
    await env.DB.prepare(
      "INSERT INTO review_ranking_leases (review_id, ranking, holder, expires_at) VALUES (?, '', 'crashed', ?)",
    )
      .bind(reviewId, Date.now() + 60_000)
      .run();
    expect(await withRankingLease(app(), reviewId, "", async () => void runs.push("too early"))).toBe(false);
    await env.DB.prepare("UPDATE review_ranking_leases SET expires_at = ? WHERE review_id = ?")
      .bind(Date.now() - 1, reviewId)
      .run();
    expect(await withRankingLease(app(), reviewId, "", async () => void runs.push("after expiry"))).toBe(true);
    expect(runs.at(-1)).toBe("after expiry");
  });
});

describe("the next record's queries", () => {
  it("count progress from the covering index and walk the stored order by primary key (EXPLAIN QUERY PLAN)", async () => {
    const plan = async (sql: string) =>
      (await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind("any-review").all<{ detail: string }>()).results.map(
        (r) => r.detail,
      );
    const progress = await plan(PROGRESS_SQL);
    expect(progress.filter((d) => /review_records/.test(d)).sort()).toEqual([
      "SEARCH review_records USING COVERING INDEX review_records_screening_idx (review_id=? AND duplicate_of=? AND ta_decision=? AND ta_decided_at>?)",
      "SEARCH review_records USING COVERING INDEX review_records_screening_idx (review_id=? AND duplicate_of=? AND ta_decision>?)",
      "SEARCH review_records USING COVERING INDEX review_records_screening_idx (review_id=? AND duplicate_of=?)",
    ]);
    const candidate = await plan(CANDIDATE_SQL);
    // Both arms walk the stored order (json_each) outside and look records up by primary key.
    expect(candidate.filter((d) => d.startsWith("SCAN j VIRTUAL TABLE"))).toHaveLength(2);
    expect(candidate.filter((d) => d === "SEARCH x USING INTEGER PRIMARY KEY (rowid=?)")).toHaveLength(2);
    expect(candidate).toContain("SEARCH r USING INTEGER PRIMARY KEY (rowid=?)");
    expect(candidate.findIndex((d) => d.startsWith("SCAN j VIRTUAL TABLE"))).toBeLessThan(
      candidate.indexOf("SEARCH x USING INTEGER PRIMARY KEY (rowid=?)"),
    );
    expect(candidate.some((d) => /SCAN (review_records|x|r)\b/.test(d))).toBe(false);
  });
});
