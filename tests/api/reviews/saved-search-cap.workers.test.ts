/**
 * The cap of MAX_SEARCHES_PER_UPDATE saved searches per review holds under concurrent creates
 * (issue 27): it is checked inside the write (the import's source INSERT, the mark's UPDATE), not
 * read before it, so requests racing past the early check cannot both land.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_SEARCHES_PER_UPDATE } from "~/.server/reviews/saved-search";
import { call, json, signUp, newReview } from "../helpers";

/** A one-record CSV export; with `search`, marked as a saved search at import. */
function exportForm(tag: string, search?: { searchDatabase: string; searchQuery: string }): FormData {
  const form = new FormData();
  form.set(
    "file",
    new File(
      [`title,abstract,doi,year\n"Exercise trial ${tag}","Aerobic exercise",10.5555/cap.${tag},2020\n`],
      "refs.csv",
    ),
  );
  if (search) for (const [k, v] of Object.entries(search)) form.set(k, v);
  return form;
}

/** Fills the review up to `n` re-runnable searches (MetaMind searches, inserted directly). */
async function addSearches(reviewId: string, n: number) {
  const owner = (await env.DB.prepare("SELECT user_id FROM reviews WHERE id = ?")
    .bind(reviewId)
    .first<{ user_id: string }>())!.user_id;
  const insert = env.DB.prepare(
    "INSERT INTO review_sources (id, review_id, user_id, kind, name, query, details, record_count) VALUES (?, ?, ?, 'search', 'PubMed', 'q', '{}', 0)",
  );
  await env.DB.batch(Array.from({ length: n }, () => insert.bind(crypto.randomUUID(), reviewId, owner)));
}

async function counts(reviewId: string) {
  return (await env.DB.prepare(
    `SELECT count(*) FILTER (WHERE kind = 'search' OR json_extract(details, '$.savedSearch.database') IS NOT NULL) AS rerunnable,
            count(*) FILTER (WHERE kind = 'file') AS files,
            (SELECT count(*) FROM review_records WHERE review_id = ?1) AS records,
            (SELECT count(*) FROM review_activity WHERE review_id = ?1 AND action = 'import') AS logged
     FROM review_sources WHERE review_id = ?1`,
  )
    .bind(reviewId)
    .first<{ rerunnable: number; files: number; records: number; logged: number }>())!;
}

describe("the saved-search cap under concurrent creates", () => {
  it("concurrent imports marked as saved searches: one fills the last place, the others are refused whole (no source, records or activity)", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    await addSearches(review.id, MAX_SEARCHES_PER_UPDATE - 1);
    const tries = 6;
    const answers = await Promise.all(
      Array.from({ length: tries }, (_, i) =>
        call("POST", `/api/reviews/${review.id}/import`, {
          cookie,
          form: exportForm(`i${i}`, { searchDatabase: "pubmed", searchQuery: `exercise ${i}` }),
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(tries - 1).fill(409)]);
    for (const r of answers.filter((a) => a.status === 409)) {
      expect(await r.json()).toMatchObject({ error: "TOO_MANY_SEARCHES" });
    }
    expect(await counts(review.id)).toEqual({
      rerunnable: MAX_SEARCHES_PER_UPDATE,
      files: 1,
      records: 1,
      logged: 1,
    });
    // A plain import (no saved search) is not capped.
    await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie, form: exportForm("plain") }), 201);
    expect((await counts(review.id)).files).toBe(2);
  });

  it("concurrent marks of imported files: one fills the last place, the others get 409 and stay unmarked", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    const files: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { sourceId } = await json<{ sourceId: string }>(
        await call("POST", `/api/reviews/${review.id}/import`, { cookie, form: exportForm(`m${i}`) }),
        201,
      );
      files.push(sourceId);
    }
    await addSearches(review.id, MAX_SEARCHES_PER_UPDATE - 1);
    const answers = await Promise.all(
      files.map((id, i) =>
        call("PATCH", `/api/reviews/${review.id}/sources/${id}`, {
          cookie,
          body: { savedSearch: { database: "pubmed", query: `exercise ${i}` } },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await counts(review.id)).rerunnable).toBe(MAX_SEARCHES_PER_UPDATE);
    // Re-marking the file that holds a place changes its query: it does not count against itself.
    const marked = files[answers.findIndex((r) => r.status === 200)]!;
    await json(
      await call("PATCH", `/api/reviews/${review.id}/sources/${marked}`, {
        cookie,
        body: { savedSearch: { database: "pubmed", query: "exercise changed" } },
      }),
      200,
    );
    // Unmarking frees the place.
    await json(
      await call("PATCH", `/api/reviews/${review.id}/sources/${marked}`, { cookie, body: { savedSearch: null } }),
      200,
    );
    expect((await counts(review.id)).rerunnable).toBe(MAX_SEARCHES_PER_UPDATE - 1);
  });
});
