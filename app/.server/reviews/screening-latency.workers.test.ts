/**
 * The decision's path at 20,000 records (issue 27, fourth round): the next-record queries answer
 * what sorting the whole stored order would answer (the candidate query tries the first
 * CANDIDATE_WINDOW positions, then the whole order; progress counts the decided range), and the
 * review's access and the record are read together with the same errors as before.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, signUp } from "../../../tests/api/helpers";
import { CANDIDATE_SQL, CANDIDATE_WINDOW, PROGRESS_SQL } from "./screening";

async function reviewWithRecords(n: number): Promise<{ cookie: string; reviewId: string }> {
  const { cookie } = await signUp("pro");
  const res = await call("POST", "/api/reviews", {
    cookie,
    body: { title: "Exercise for depression", question: { intervention: "aerobic exercise" } },
  });
  expect(res.status).toBe(201);
  const reviewId = ((await res.json()) as { review: { id: string } }).review.id;
  const rows = Array.from({ length: n }, (_, i) =>
    i % 4 === 0
      ? `"Aerobic exercise for depression, trial ${i}","Randomised trial of aerobic exercise in depression",10.5555/lat.${i},2020`
      : `"Soil nitrogen survey ${i}","Nitrogen in grassland soils, site ${i}",10.5555/lat.${i},2019`,
  );
  const form = new FormData();
  form.set("file", new File([`title,abstract,doi,year\n${rows.join("\n")}\n`], "refs.csv"));
  const imported = await SELF.fetch(`${BASE}/api/reviews/${reviewId}/import`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: BASE },
    body: form,
  });
  expect(imported.status, await imported.clone().text()).toBe(201);
  return { cookie, reviewId };
}

/** The stored order's record ids, once the review has a ranking. */
async function storedOrder(cookie: string, reviewId: string): Promise<number[]> {
  const next = await call("GET", `/api/reviews/${reviewId}/screening/next`, { cookie });
  expect(next.status).toBe(200);
  const row = await env.DB.prepare("SELECT ranked FROM review_rankings WHERE review_id = ?")
    .bind(reviewId)
    .first<{ ranked: string }>();
  return (JSON.parse(row!.ranked) as [number, number, string[]][]).map(([id]) => id);
}

/** What sorting every undecided record of the stored order by position gives (the former query). */
const SORTED_CANDIDATE_SQL = `WITH ranked AS MATERIALIZED (
   SELECT j.key AS position, json_extract(j.value, '$[0]') AS record_id,
          json_extract(j.value, '$[1]') AS score, json_extract(j.value, '$[2]') AS terms
   FROM review_rankings k, json_each(k.ranked) j WHERE k.review_id = ?1)
 SELECT ranked.record_id AS id, ranked.score, ranked.terms FROM ranked
 CROSS JOIN review_records x ON x.id = ranked.record_id
 WHERE x.review_id = ?1 AND x.duplicate_of IS NULL AND x.ta_decision IS NULL
 ORDER BY ranked.position LIMIT 1`;

/** The former progress query: one aggregate over every unique record's index entry. */
const AGGREGATE_PROGRESS_SQL = `WITH counts AS (
   SELECT count(*) AS total, count(ta_decision) AS screened, count(*) FILTER (WHERE ta_decision = 'include') AS included,
          coalesce(max(ta_decided_at) FILTER (WHERE ta_decision = 'include'), 0) AS last_include
   FROM review_records WHERE review_id = ?1 AND duplicate_of IS NULL)
 SELECT total, screened, included,
        (SELECT count(*) FROM review_records
         WHERE review_id = ?1 AND duplicate_of IS NULL AND ta_decision = 'exclude' AND ta_decided_at > counts.last_include) AS run
 FROM counts`;

describe("the next record's queries", () => {
  it("give the best-ranked undecided record and the progress whatever the number of decided records at the head of the order", async () => {
    const { cookie, reviewId } = await reviewWithRecords(120);
    const order = await storedOrder(cookie, reviewId);
    expect(order.length).toBeGreaterThan(CANDIDATE_WINDOW + 10);
    // Decide the first k records of the stored order (one include in seven) without re-ranking,
    // as when a reviewer outpaces the retraining by k decisions.
    for (const k of [0, 1, CANDIDATE_WINDOW - 1, CANDIDATE_WINDOW, CANDIDATE_WINDOW + 3, order.length]) {
      await env.DB.prepare("UPDATE review_records SET ta_decision = NULL, ta_decided_at = NULL WHERE review_id = ?")
        .bind(reviewId)
        .run();
      for (const [i, id] of order.slice(0, k).entries()) {
        await env.DB.prepare("UPDATE review_records SET ta_decision = ?, ta_decided_at = ? WHERE id = ?")
          .bind(i % 7 === 0 ? "include" : "exclude", 1_000 + i, id)
          .run();
      }
      const got = await env.DB.prepare(CANDIDATE_SQL)
        .bind(reviewId)
        .first<{ id: number; score: number; terms: string }>();
      const want = await env.DB.prepare(SORTED_CANDIDATE_SQL)
        .bind(reviewId)
        .first<{ id: number; score: number; terms: string }>();
      if (k === order.length) {
        expect(got, `k=${k}`).toBeNull();
        expect(want).toBeNull();
      } else {
        expect(got?.id, `k=${k}`).toBe(order[k]);
        expect({ id: got?.id, score: got?.score, terms: got?.terms }).toEqual(want);
      }
      const progress = await env.DB.prepare(PROGRESS_SQL).bind(reviewId).first();
      expect(progress, `k=${k}`).toEqual(await env.DB.prepare(AGGREGATE_PROGRESS_SQL).bind(reviewId).first());
      expect(progress).toMatchObject({ total: 120, screened: k });
    }
  });
});

describe("the decision reads the review's access and the record together", () => {
  it("keeps its errors: another review's record is 404 RECORD_NOT_FOUND, a malformed id too, a stranger gets 404 REVIEW_NOT_FOUND", async () => {
    const { cookie, reviewId } = await reviewWithRecords(6);
    const other = await reviewWithRecords(6);
    const [foreign] = await storedOrder(other.cookie, other.reviewId);
    const body = { stage: "title_abstract", decision: "include" };
    const decide = (who: string, review: string, record: string | number) =>
      call("POST", `/api/reviews/${review}/records/${record}/decision`, { cookie: who, body });
    const mismatched = await decide(cookie, reviewId, foreign!);
    expect(mismatched.status).toBe(404);
    expect(await mismatched.json()).toMatchObject({ error: "RECORD_NOT_FOUND" });
    const malformed = await decide(cookie, reviewId, "abc");
    expect(malformed.status).toBe(404);
    expect(await malformed.json()).toMatchObject({ error: "RECORD_NOT_FOUND" });
    const stranger = await decide(cookie, other.reviewId, foreign!);
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toMatchObject({ error: "REVIEW_NOT_FOUND" });
    // The owner's own decision still lands and answers with the next record.
    const ok = await decide(other.cookie, other.reviewId, foreign!);
    expect(ok.status).toBe(200);
    const answer = (await ok.json()) as { progress: { screened: number }; next: { record: { id: number } | null } };
    expect(answer.progress.screened).toBe(1);
    expect(answer.next.record?.id).not.toBe(foreign);
  });
});
