import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it, vi } from "vitest";
import { call, json, signUp } from "../helpers";
import { reviewRecords, reviewSources, uploadedStudies } from "../../../db/schema";
import { createReplayFetch } from "../../mocks/index.ts";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import type { ApiReview, ApiReviewRecord, ReviewPrisma, ScreeningNext } from "~/lib/reviews";
import { createDb } from "~/.server/db/client";
import { parseEnv } from "~/.server/env";

const db = () => createDb(env.DB);

async function newReview(cookie: string, body: Record<string, unknown> = {}): Promise<ApiReview> {
  const res = await call("POST", "/api/reviews", {
    cookie,
    body: {
      title: "Exercise for depression",
      question: { population: "adults with depression", intervention: "exercise" },
      criteria: ["randomised controlled trial", "depression outcome"],
      ...body,
    },
  });
  return (await json<{ review: ApiReview }>(res, 201)).review;
}

interface Ref {
  title: string;
  year?: number;
  doi?: string;
  abstract?: string;
  authors?: string[];
  journal?: string;
}

function ris(refs: Ref[]): string {
  return refs
    .map((r) =>
      [
        "TY  - JOUR",
        `TI  - ${r.title}`,
        ...(r.authors ?? ["Smith, John"]).map((a) => `AU  - ${a}`),
        r.year ? `PY  - ${r.year}` : "",
        r.journal ? `T2  - ${r.journal}` : "",
        r.doi ? `DO  - ${r.doi}` : "",
        r.abstract ? `AB  - ${r.abstract}` : "",
        "ER  - ",
      ]
        .filter(Boolean)
        .join("\n"),
    )
    .join("\n\n");
}

const topic = (i: number, relevant: boolean): Ref => ({
  title: relevant
    ? `Aerobic exercise for adults with major depression: randomised controlled trial number ${i}`
    : `Soil nitrogen cycling in alpine grassland ecosystems, site survey ${i}`,
  year: 2010 + (i % 10),
  doi: `10.1234/test.${i}`,
  abstract: relevant
    ? `Randomised controlled trial of supervised aerobic exercise in adults with depression; depressive symptoms improved (trial ${i}).`
    : `We measured nitrogen mineralisation in alpine soils across elevation gradients (survey ${i}).`,
});

async function importText(
  cookie: string,
  reviewId: string,
  name: string,
  text: string,
  extra: Record<string, string> = {},
) {
  const form = new FormData();
  form.set("file", new File([text], name));
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  return call("POST", `/api/reviews/${reviewId}/import`, { cookie, form });
}

async function records(cookie: string, reviewId: string, query = ""): Promise<ApiReviewRecord[]> {
  return (
    await json<{ records: ApiReviewRecord[] }>(
      await call("GET", `/api/reviews/${reviewId}/records${query}`, { cookie }),
      200,
    )
  ).records;
}

/** GET …/screening/next until the background re-ranking has stored an active-learning ranking. */
async function settledNext(cookie: string, reviewId: string): Promise<ScreeningNext> {
  for (let i = 0; ; i++) {
    const next = await json<ScreeningNext>(
      await call("GET", `/api/reviews/${reviewId}/screening/next`, { cookie }),
      200,
    );
    if (next.mode === "active" || i >= 50) return next;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function decide(cookie: string, reviewId: string, recordId: number, body: Record<string, unknown>) {
  return call("POST", `/api/reviews/${reviewId}/records/${recordId}/decision`, { cookie, body });
}

describe("review projects", () => {
  it("creates, lists, reads, updates and deletes a review; 401 signed out", async () => {
    const { cookie } = await signUp("pro");
    expect((await call("GET", "/api/reviews")).status).toBe(401);
    const review = await newReview(cookie, { criteria: { inclusion: "RCT\nAdults", exclusion: ["Animal studies"] } });
    expect(review).toMatchObject({
      title: "Exercise for depression",
      criteria: { inclusion: ["RCT", "Adults"], exclusion: ["Animal studies"] },
    });
    expect(review.exclusionReasons.length).toBeGreaterThan(3);
    const list = await json<{ reviews: ApiReview[] }>(await call("GET", "/api/reviews", { cookie }), 200);
    expect(list.reviews.map((r) => r.id)).toEqual([review.id]);
    const patched = await json<{ review: ApiReview }>(
      await call("PATCH", `/api/reviews/${review.id}`, {
        cookie,
        body: { title: "Renamed", exclusionReasons: ["Wrong population", "Wrong design"] },
      }),
      200,
    );
    expect(patched.review).toMatchObject({ title: "Renamed", exclusionReasons: ["Wrong population", "Wrong design"] });
    expect((await call("PATCH", `/api/reviews/${review.id}`, { cookie, body: { title: "" } })).status).toBe(400);
    expect((await json<{ ok: boolean }>(await call("DELETE", `/api/reviews/${review.id}`, { cookie }), 200)).ok).toBe(
      true,
    );
    expect((await call("GET", `/api/reviews/${review.id}`, { cookie })).status).toBe(404);
  });

  it("answers 404 for every route of another user's review and record", async () => {
    const owner = await signUp("pro");
    const other = await signUp("pro");
    const review = await newReview(owner.cookie);
    await json(await importText(owner.cookie, review.id, "refs.ris", ris([topic(1, true)])), 201);
    const [rec] = await records(owner.cookie, review.id);
    const paths: [string, string, unknown?][] = [
      ["GET", `/api/reviews/${review.id}`],
      ["PATCH", `/api/reviews/${review.id}`, { title: "x" }],
      ["DELETE", `/api/reviews/${review.id}`],
      ["GET", `/api/reviews/${review.id}/records`],
      ["GET", `/api/reviews/${review.id}/screening/next`],
      ["POST", `/api/reviews/${review.id}/screening/undo`, {}],
      [
        "POST",
        `/api/reviews/${review.id}/records/${rec!.id}/decision`,
        { stage: "title_abstract", decision: "include" },
      ],
      ["DELETE", `/api/reviews/${review.id}/records/${rec!.id}/decision?stage=title_abstract`],
      ["GET", `/api/reviews/${review.id}/prisma`],
      ["GET", `/api/reviews/${review.id}/duplicates`],
      ["DELETE", `/api/reviews/${review.id}/duplicates/${rec!.id}`],
      ["GET", `/api/reviews/${review.id}/export?format=csv`],
      ["GET", `/api/reviews/${review.id}/records/${rec!.id}/fulltext`],
      ["POST", `/api/reviews/${review.id}/records/${rec!.id}/suggestion`],
      ["POST", `/api/reviews/${review.id}/import-uploads`, { uploadIds: [1] }],
      ["POST", `/api/reviews/${review.id}/import-search`, { q: "exercise" }],
    ];
    for (const [method, path, body] of paths) {
      const res = await call(method, path, { cookie: other.cookie, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe("REVIEW_NOT_FOUND");
    }
    const form = new FormData();
    form.set("file", new File([ris([topic(2, true)])], "x.ris"));
    expect((await call("POST", `/api/reviews/${review.id}/import`, { cookie: other.cookie, form })).status).toBe(404);
    // The owner's record id under the other user's own review is not found either.
    const mine = await newReview(other.cookie);
    const res = await decide(other.cookie, mine.id, rec!.id, { stage: "title_abstract", decision: "include" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("RECORD_NOT_FOUND");
    expect((await records(owner.cookie, review.id))[0]!.decision).toBeNull();
  });

  it("Free plan: one review of at most 500 records (403 PRO_REQUIRED feature reviews)", async () => {
    const { cookie } = await signUp("free");
    const review = await newReview(cookie);
    const second = await call("POST", "/api/reviews", { cookie, body: { title: "Second" } });
    expect(await json(second, 403)).toMatchObject({ error: "PRO_REQUIRED", feature: "reviews" });
    const many = Array.from({ length: 501 }, (_, i) => topic(i, i % 2 === 0));
    const res = await importText(cookie, review.id, "many.ris", ris(many));
    expect(await json(res, 403)).toMatchObject({ error: "PRO_REQUIRED", feature: "reviews" });
    expect(await records(cookie, review.id)).toHaveLength(0);
    expect(await json(await importText(cookie, review.id, "ok.ris", ris(many.slice(0, 500))), 201)).toMatchObject({
      imported: 500,
      duplicatesRemoved: 0,
    });
  });
});

describe("imports and de-duplication", () => {
  it("a malformed file is a 400 naming the line, and nothing of it is imported", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    const good = ris([topic(1, true), topic(2, false)]);
    const broken = `${good}\n\nTY  - JOUR\nTI  - A third record\nthis line is not a tag\nTY  - JOUR\nTI  - fourth\nER  - \n`;
    const res = await importText(cookie, review.id, "broken.ris", broken);
    const body = await json<{ error: string; line: number; message: string }>(res, 400);
    expect(body.error).toBe("MALFORMED_FILE");
    expect(body.line).toBe(
      broken.split("\n").indexOf("TY  - JOUR", broken.split("\n").indexOf("this line is not a tag")) + 1,
    );
    expect(body.message).toMatch(/Line \d+/);
    expect(await records(cookie, review.id)).toHaveLength(0);
    expect(await db().select().from(reviewSources).where(eq(reviewSources.reviewId, review.id))).toHaveLength(0);

    const csv = 'title,abstract,doi,year\n"Good row",x,10.1/a,2020\n"Unclosed quote,y,10.1/b,2021\n';
    const csvRes = await json<{ error: string; line: number }>(await importText(cookie, review.id, "r.csv", csv), 400);
    expect(csvRes.error).toBe("MALFORMED_FILE");
    expect(csvRes.line).toBe(3);
    const nbib = "PMID- 1\nTI  - First title\nDP  - 2020\n\n      a continuation outside any record\n";
    expect(await json(await importText(cookie, review.id, "pubmed.nbib", nbib), 400)).toMatchObject({
      error: "MALFORMED_FILE",
      line: 5,
    });
    const bib = "@article{a,\n  title = {Fine},\n  year = {2020}\n}\n@article{b,\n  title = {Broken\n";
    expect(
      (await json<{ line: number }>(await importText(cookie, review.id, "refs.bib", bib), 400)).line,
    ).toBeGreaterThanOrEqual(5);
    expect((await importText(cookie, review.id, "refs.docx", "x")).status).toBe(415);
    expect(await records(cookie, review.id)).toHaveLength(0);
  });

  it("imports records without a title as '[No title]' with per-line warnings; they merge by DOI/PMID only, never by the empty title", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    const text = [
      ris([topic(1, true)]),
      "TY  - JOUR\nAU  - Untitled, One\nPY  - 2020\nDO  - 10.1234/untitled.doi\nER  - ",
      "TY  - JOUR\nAU  - Untitled, Two\nPY  - 2020\nER  - ",
      "TY  - JOUR\nAU  - Untitled, Three\nPY  - 2020\nER  - ",
    ].join("\n\n");
    const lines = text.split("\n");
    const startOf = (author: string) => lines.lastIndexOf("TY  - JOUR", lines.indexOf(`AU  - ${author}`)) + 1;
    const first = await json<{
      imported: number;
      duplicatesRemoved: number;
      warnings: { line: number; message: string }[];
    }>(await importText(cookie, review.id, "export.ris", text), 201);
    expect(first.imported).toBe(4);
    expect(first.duplicatesRemoved).toBe(0);
    expect(first.warnings.map((w) => w.line)).toEqual([
      startOf("Untitled, One"),
      startOf("Untitled, Two"),
      startOf("Untitled, Three"),
    ]);
    expect(first.warnings[0]!.message).toMatch(/no title; imported as '\[No title\]'/);
    const listed = await records(cookie, review.id);
    expect(listed.map((r) => r.title)).toEqual([topic(1, true).title, "[No title]", "[No title]", "[No title]"]);

    // A titled copy of the untitled record with the DOI merges into it; an untitled record without
    // identifiers merges with nothing.
    const second = await json<{ imported: number; duplicatesRemoved: number; warnings: unknown[] }>(
      await importText(
        cookie,
        review.id,
        "other.csv",
        'title,doi,year\n"Walking for mood in older adults",10.1234/UNTITLED.DOI,2020\n,,2020\n',
      ),
      201,
    );
    expect(second).toMatchObject({ imported: 1, duplicatesRemoved: 1 });
    expect(second.warnings).toEqual([{ line: 3, message: expect.stringMatching(/no title/) }]);
    const merges = await json<{ merges: { record: { title: string }; mergedInto: { id: number }; reason: string }[] }>(
      await call("GET", `/api/reviews/${review.id}/duplicates`, { cookie }),
      200,
    );
    expect(merges.merges).toHaveLength(1);
    expect(merges.merges[0]).toMatchObject({
      record: { title: "Walking for mood in older adults" },
      mergedInto: { id: listed[1]!.id },
      reason: "doi",
    });
    expect((await records(cookie, review.id)).filter((r) => r.title === "[No title]")).toHaveLength(4);
  });

  it("de-duplicates across sources (DOI → PMID → title + year), counts per source, and undoes and redoes a merge", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    const first = await json<{ imported: number; duplicatesRemoved: number; sourceId: string }>(
      await importText(
        cookie,
        review.id,
        "embase.ris",
        ris([
          topic(1, true),
          topic(2, true),
          topic(3, false),
          { ...topic(1, true), title: "Same DOI within the file" },
        ]),
        { database: "Embase" },
      ),
      201,
    );
    expect(first).toMatchObject({ imported: 3, duplicatesRemoved: 1 });
    const csv = [
      "Title,Abstract,DOI,Published Year,Authors,Journal",
      `"${topic(2, true).title}",,10.1234/TEST.2,2011,"Smith J; Doe A",J Affect Disord`,
      `"${topic(3, false).title.toUpperCase()}",,,2013,Lee K,Soil Biol`,
      `"A brand new record on exercise and mood in older adults",,,2020,Kim H,BMJ`,
    ].join("\n");
    const second = await json<{ imported: number; duplicatesRemoved: number }>(
      await importText(cookie, review.id, "covidence.csv", csv),
      201,
    );
    expect(second).toMatchObject({ imported: 1, duplicatesRemoved: 2 });

    const { merges } = await json<{ merges: { record: { id: number }; mergedInto: { id: number }; reason: string }[] }>(
      await call("GET", `/api/reviews/${review.id}/duplicates`, { cookie }),
      200,
    );
    expect(merges.map((m) => m.reason).sort()).toEqual(["doi", "doi", "title"]);
    const { review: full } = await json<{
      review: ApiReview & { sources: { name: string; recordCount: number; duplicatesRemoved: number }[] };
    }>(await call("GET", `/api/reviews/${review.id}`, { cookie }), 200);
    expect(full.sources.map((s) => [s.name, s.recordCount, s.duplicatesRemoved])).toEqual([
      ["Embase", 4, 1],
      ["covidence.csv", 3, 2],
    ]);
    expect(full.counts).toMatchObject({ records: 4, duplicates: 3 });
    const prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${review.id}/prisma`, { cookie }), 200);
    expect(prisma.identified).toEqual({ Embase: 4, "covidence.csv": 3 });
    expect(prisma.duplicatesRemoved).toBe(3);

    const titleMerge = merges.find((m) => m.reason === "title")!;
    expect(
      await json(await call("DELETE", `/api/reviews/${review.id}/duplicates/${titleMerge.record.id}`, { cookie }), 200),
    ).toEqual({ recordId: titleMerge.record.id });
    expect(await records(cookie, review.id)).toHaveLength(5);
    expect(
      (await call("DELETE", `/api/reviews/${review.id}/duplicates/${titleMerge.record.id}`, { cookie })).status,
    ).toBe(409);
    // An undone merge is not redone by the next import…
    await json(
      await importText(
        cookie,
        review.id,
        "again.ris",
        ris([{ title: "Unrelated record about running shoes and gait" }]),
      ),
      201,
    );
    expect(await records(cookie, review.id)).toHaveLength(6);
    // …but can be redone by hand.
    await json(
      await call("POST", `/api/reviews/${review.id}/duplicates`, {
        cookie,
        body: { recordId: titleMerge.record.id, intoId: titleMerge.mergedInto.id },
      }),
      200,
    );
    expect(await records(cookie, review.id)).toHaveLength(5);
  });

  it.skipIf(!hasWorkerFixtures)(
    "import-search brings in every record of each database with its PRISMA origin",
    async () => {
      const { cookie } = await signUp("pro");
      const review = await newReview(cookie);
      const e = parseEnv(env as unknown as Record<string, unknown>);
      const replay = createReplayFetch(workerFixtureReader, {
        baseUrls: { pubmed: e.PUBMED_BASE_URL, europepmc: e.EUROPEPMC_BASE_URL, crossref: e.CROSSREF_BASE_URL },
      });
      const spy = vi.spyOn(globalThis, "fetch").mockImplementation(replay as typeof fetch);
      try {
        const res = await call("POST", `/api/reviews/${review.id}/import-search`, {
          cookie,
          body: { q: "exercise depression", searchProviders: "pubmed,europepmc" },
        });
        const body = await json<{ imported: number; duplicatesRemoved: number; sourceId: string }>(res, 201);
        expect(body.imported).toBeGreaterThan(0);
        const prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${review.id}/prisma`, { cookie }), 200);
        expect(Object.keys(prisma.identified).sort()).toEqual(["Europe PMC", "PubMed"]);
        const brought = Object.values(prisma.identified).reduce((a, b) => a + b, 0);
        expect(brought - prisma.duplicatesRemoved).toBe(body.imported);
        expect(body.duplicatesRemoved).toBe(prisma.duplicatesRemoved);
        // Records, not each database's total hit count.
        expect(brought).toBeLessThanOrEqual(1000);
      } finally {
        spy.mockRestore();
      }
    },
  );
  if (!hasWorkerFixtures) it.skip(MISSING_WORKER_FIXTURES, () => {});
});

describe("screening, decisions and PRISMA", () => {
  it("ranks, records decisions with undo, runs full-text screening and computes PRISMA from the decisions", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie, { exclusionReasons: ["Wrong population", "Wrong outcome"] });
    const refs = Array.from({ length: 12 }, (_, i) => topic(i, i < 5));
    await json(await importText(cookie, review.id, "pubmed.ris", ris(refs), { database: "PubMed" }), 201);
    await json(await importText(cookie, review.id, "dupes.ris", ris([refs[0]!, refs[7]!])), 201);

    let next = await json<ScreeningNext>(
      await call("GET", `/api/reviews/${review.id}/screening/next`, { cookie }),
      200,
    );
    expect(next.progress).toEqual({ screened: 0, total: 12, included: 0 });
    expect(next.mode).toBe("prior");
    // Prior mode: similarity to the question and criteria puts a relevant record first.
    expect(next.record!.title).toMatch(/exercise/i);
    expect(next.record!.terms.length).toBeGreaterThan(0);

    const all = await records(cookie, review.id);
    const relevant = all.filter((r) => /exercise/i.test(r.title));
    const irrelevant = all.filter((r) => !/exercise/i.test(r.title));
    const ok = async (recordId: number, decision: string, reason?: string) =>
      json<{ progress: ScreeningNext["progress"]; next?: ScreeningNext }>(
        await decide(cookie, review.id, recordId, { stage: "title_abstract", decision, reason }),
        200,
      );
    await ok(relevant[0]!.id, "include");
    const afterExclude = await ok(irrelevant[0]!.id, "exclude", "Wrong population");
    expect(afterExclude.progress).toEqual({ screened: 2, total: 12, included: 1 });
    // Served at once from the stored ranking; the retrained one replaces it in the background.
    expect(afterExclude.next!.record!.id).not.toBe(irrelevant[0]!.id);
    expect(afterExclude.next!.consecutiveExclusions).toBe(1);
    const trained = await settledNext(cookie, review.id);
    expect(trained.record!.title).toMatch(/exercise/i);
    expect(trained.record!.terms.length).toBeGreaterThan(0);

    // u: the latest decision is undone, then redone.
    const undone = await json<{ progress: ScreeningNext["progress"]; recordId: number }>(
      await call("POST", `/api/reviews/${review.id}/screening/undo`, { cookie, body: {} }),
      200,
    );
    expect(undone).toMatchObject({ recordId: irrelevant[0]!.id, progress: { screened: 1, included: 1 } });
    await ok(irrelevant[0]!.id, "maybe");
    await ok(irrelevant[0]!.id, "exclude", "Wrong population");
    // DELETE undoes one record's latest decision: back to 'maybe', its previous one.
    await json(
      await call("DELETE", `/api/reviews/${review.id}/records/${irrelevant[0]!.id}/decision?stage=title_abstract`, {
        cookie,
      }),
      200,
    );
    expect((await records(cookie, review.id)).find((r) => r.id === irrelevant[0]!.id)!.decision).toBe("maybe");
    await ok(irrelevant[0]!.id, "exclude", "Wrong population");

    for (const r of relevant.slice(1)) await ok(r.id, "include");
    for (const r of irrelevant.slice(1, 5)) await ok(r.id, "exclude");
    await ok(irrelevant[5]!.id, "maybe");
    next = await settledNext(cookie, review.id);
    expect(next.progress).toEqual({ screened: 11, total: 12, included: 5 });
    expect(next.record!.id).toBe(irrelevant[6]!.id);
    expect(next.consecutiveExclusions).toBe(4);
    expect(typeof next.estimatedRelevantRemaining).toBe("number");
    // The stopping criterion reads the 10 include/exclude decisions ('maybe' counts as unscreened):
    // the last 4 exclusions of 6 records left, one of them relevant under H0, give p = 5/15.
    for (let i = 0; i < 50 && next.stopping?.screened !== 10; i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = await settledNext(cookie, review.id);
    }
    expect(next.stopping).toMatchObject({
      recallTarget: 0.95,
      confidence: 0.95,
      screened: 10,
      relevantFound: 5,
      reached: false,
      reachedAfter: null,
    });
    expect(next.stopping!.pValue).toBeCloseTo(1 / 3, 10);

    // Full text: only records included at title/abstract; exclusion needs a reason.
    const ft = (recordId: number, decision: string, reason?: string) =>
      decide(cookie, review.id, recordId, { stage: "full_text", decision, ...(reason ? { reason } : {}) });
    expect(await json(await ft(irrelevant[0]!.id, "include"), 409)).toMatchObject({ error: "NOT_AT_FULL_TEXT" });
    expect(await json(await ft(relevant[0]!.id, "exclude"), 400)).toMatchObject({ error: "REASON_REQUIRED" });
    expect((await json<{ progress: unknown }>(await ft(relevant[0]!.id, "include"), 200)).progress).toEqual({
      screened: 1,
      total: 5,
      included: 1,
    });
    await json(await ft(relevant[1]!.id, "include"), 200);
    await json(await ft(relevant[2]!.id, "exclude", "Wrong outcome"), 200);
    await json(await ft(relevant[3]!.id, "exclude", "Full text not retrievable"), 200);
    expect(await records(cookie, review.id, "?stage=full_text&decision=include")).toHaveLength(2);
    expect((await records(cookie, review.id, "?stage=title_abstract&decision=exclude")).length).toBe(5);
    expect(await records(cookie, review.id, "?decision=undecided")).toHaveLength(2);
    expect((await call("GET", `/api/reviews/${review.id}/records?stage=bogus`, { cookie })).status).toBe(400);

    const prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${review.id}/prisma`, { cookie }), 200);
    expect(prisma).toEqual({
      identified: { PubMed: 12, "dupes.ris": 2 },
      duplicatesRemoved: 2,
      screened: 11,
      excluded: 5,
      awaitingScreening: 1,
      maybe: 1,
      soughtForRetrieval: 5,
      notRetrieved: 1,
      assessed: 3,
      awaitingFullText: 1,
      fullTextMaybe: 0,
      excludedWithReasons: { "Wrong outcome": 1 },
      included: 2,
    });
    const identified = Object.values(prisma.identified).reduce((a, b) => a + b, 0);
    expect(identified - prisma.duplicatesRemoved).toBe(12);

    // Exports carry the decisions.
    const csv = await (await call("GET", `/api/reviews/${review.id}/export?format=csv`, { cookie })).text();
    expect(csv.split("\r\n")[0]).toContain('"title_abstract_decision"');
    expect(csv).toContain('"Wrong outcome"');
    const risOut = await call("GET", `/api/reviews/${review.id}/export?format=ris`, { cookie });
    expect(risOut.headers.get("Content-Disposition")).toMatch(/attachment; filename="metamind-review-.*\.ris"/);
    const risText = new TextDecoder().decode(await risOut.arrayBuffer());
    expect(risText.match(/^TY {2}- /gm)).toHaveLength(14);
    expect(risText).toContain("LB  - excluded: Wrong outcome");
    const svg = await (await call("GET", `/api/reviews/${review.id}/export?format=svg`, { cookie })).text();
    expect(svg).toContain("Records to screen (n = 12)");
    expect(svg).toContain("screened so far (n = 11)");
    expect(svg).toContain("Reports not retrieved (n = 1)");
    expect(svg).toContain("Studies included in review (n = 2)");
    const whole = JSON.parse(
      await (await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie })).text(),
    ) as {
      records: unknown[];
      decisions: unknown[];
      prisma: ReviewPrisma;
      merges: unknown[];
    };
    expect(whole.records).toHaveLength(14);
    expect(whole.prisma).toEqual(prisma);
    expect(whole.merges).toHaveLength(2);
    expect((await call("GET", `/api/reviews/${review.id}/export?format=docx`, { cookie })).status).toBe(400);
    // Its waits for the background retraining poll for up to 5 s each: more than vitest's default on a loaded machine.
  }, 30_000);

  it("PRISMA adds up at every moment: imported, de-duplicated, part-screened (include, exclude, maybe), at full text, and done", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie, { exclusionReasons: ["Wrong population", "Wrong outcome"] });
    /** Every box of the exported SVG as [label, n] pairs, in reading order. */
    const boxes = (svg: string): Record<string, [string, number][]> => {
      const out: Record<string, [string, number][]> = {};
      for (const m of svg.matchAll(/<g data-testid="(prisma-[a-z-]+)">([\s\S]*?)<\/g>/g)) {
        const text = m[2]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
        out[m[1]!] = [...text.matchAll(/([^()]*?)\s*\(n = ([\d,]+)\)/g)].map((x) => [
          x[1]!.replace(/^[\s:;,.]+/, "").trim(),
          Number(x[2]!.replace(/,/g, "")),
        ]);
      }
      return out;
    };
    const sum = (pairs: [string, number][]) => pairs.reduce((a, [, n]) => a + n, 0);
    /** Checks the JSON's identities and each SVG box against them; returns the JSON. */
    const reconciled = async (expected: Partial<ReviewPrisma>) => {
      const p = await json<ReviewPrisma>(await call("GET", `/api/reviews/${review.id}/prisma`, { cookie }), 200);
      expect(p).toMatchObject(expected);
      const unique = Object.values(p.identified).reduce((a, b) => a + b, 0) - p.duplicatesRemoved;
      expect(p.screened + p.awaitingScreening).toBe(unique);
      expect(p.excluded + p.maybe + p.soughtForRetrieval).toBe(p.screened);
      expect(p.notRetrieved + p.assessed + p.awaitingFullText).toBe(p.soughtForRetrieval);
      expect(sum(Object.entries(p.excludedWithReasons)) + p.fullTextMaybe + p.included).toBe(p.assessed);

      const b = boxes(await (await call("GET", `/api/reviews/${review.id}/export?format=svg`, { cookie })).text());
      const [identifiedTotal] = b["prisma-identified"]!;
      expect(identifiedTotal![1] - b["prisma-duplicates"]![0]![1]).toBe(unique);
      // Records to screen = excluded + not yet decided + sought.
      const [toScreen] = b["prisma-screened"]!;
      expect(toScreen![1]).toBe(unique);
      const side = b["prisma-excluded"]!;
      const undecided = side.find(([l]) => l.startsWith("Not yet decided"));
      expect(side[0]).toEqual(["Records excluded", p.excluded]);
      if (p.awaitingScreening + p.maybe > 0) {
        expect(b["prisma-screened"]![1]).toEqual(["screened so far", p.screened]);
        expect(side.slice(1)).toEqual([
          ["Not yet decided", p.awaitingScreening + p.maybe],
          ["awaiting a decision", p.awaitingScreening],
          ["marked maybe", p.maybe],
        ]);
      } else {
        expect(toScreen![0]).toBe("Records screened");
        expect(undecided).toBeUndefined();
      }
      const [sought] = b["prisma-sought"]!;
      expect(toScreen![1]).toBe(p.excluded + (undecided?.[1] ?? 0) + sought![1]);
      // Sought = not retrieved + reports to assess.
      const [toAssess] = b["prisma-assessed"]!;
      expect(sought![1]).toBe(b["prisma-not-retrieved"]![0]![1] + toAssess![1]);
      // Reports to assess = excluded with reasons + not yet decided + included.
      const reports = b["prisma-reports-excluded"]!;
      const ftUndecided = reports.findIndex(([l]) => l.startsWith("Not yet decided"));
      const reasons = ftUndecided < 0 ? reports : reports.slice(0, ftUndecided);
      const ftOpen = ftUndecided < 0 ? 0 : reports[ftUndecided]![1];
      expect(ftOpen).toBe(p.awaitingFullText + p.fullTextMaybe);
      expect(toAssess![1]).toBe(sum(reasons) + ftOpen + b["prisma-included"]![0]![1]);
      expect(b["prisma-included"]![0]).toEqual(["Studies included in review", p.included]);
      return p;
    };

    await reconciled({ identified: {}, duplicatesRemoved: 0, screened: 0, awaitingScreening: 0, included: 0 });
    const refs = Array.from({ length: 8 }, (_, i) => topic(i, i < 5));
    await json(await importText(cookie, review.id, "pubmed.ris", ris(refs), { database: "PubMed" }), 201);
    await reconciled({
      identified: { PubMed: 8 },
      duplicatesRemoved: 0,
      screened: 0,
      awaitingScreening: 8,
      maybe: 0,
      soughtForRetrieval: 0,
    });
    await json(await importText(cookie, review.id, "embase.ris", ris([refs[0]!, refs[6]!, topic(8, true)])), 201);
    await reconciled({
      identified: { PubMed: 8, "embase.ris": 3 },
      duplicatesRemoved: 2,
      screened: 0,
      awaitingScreening: 9,
    });

    const unique = (await records(cookie, review.id)).filter((r) => r.duplicateOf === null);
    expect(unique).toHaveLength(9);
    const relevant = unique.filter((r) => /exercise/i.test(r.title));
    const irrelevant = unique.filter((r) => !/exercise/i.test(r.title));
    const ta = async (r: ApiReviewRecord, decision: string, reason?: string) =>
      json(
        await decide(cookie, review.id, r.id, { stage: "title_abstract", decision, ...(reason ? { reason } : {}) }),
        200,
      );
    const ft = async (r: ApiReviewRecord, decision: string, reason?: string) =>
      json(await decide(cookie, review.id, r.id, { stage: "full_text", decision, ...(reason ? { reason } : {}) }), 200);

    // Part-screened: 2 included, 1 excluded, 1 maybe, 5 awaiting.
    await ta(relevant[0]!, "include");
    await ta(relevant[1]!, "include");
    await ta(irrelevant[0]!, "exclude", "Wrong population");
    await ta(irrelevant[1]!, "maybe");
    await reconciled({
      screened: 4,
      excluded: 1,
      maybe: 1,
      awaitingScreening: 5,
      soughtForRetrieval: 2,
      awaitingFullText: 2,
      assessed: 0,
    });

    // Title/abstract finished except one maybe; full text under way.
    for (const r of relevant.slice(2)) await ta(r, "include");
    await ta(irrelevant[2]!, "exclude", "Wrong population");
    await ft(relevant[0]!, "include");
    await ft(relevant[1]!, "exclude", "Wrong outcome");
    await ft(relevant[2]!, "exclude", "Full text not retrievable");
    await ft(relevant[3]!, "maybe");
    await reconciled({
      screened: 9,
      awaitingScreening: 0,
      maybe: 1,
      excluded: 2,
      soughtForRetrieval: 6,
      notRetrieved: 1,
      assessed: 3,
      awaitingFullText: 2,
      fullTextMaybe: 1,
      excludedWithReasons: { "Wrong outcome": 1 },
      included: 1,
    });

    // Every record decided: the diagram reads as the PRISMA 2020 template.
    await ta(irrelevant[1]!, "exclude", "Wrong population");
    await ft(relevant[3]!, "include");
    await ft(relevant[4]!, "include");
    await ft(relevant[5]!, "exclude", "Wrong outcome");
    await reconciled({
      screened: 9,
      awaitingScreening: 0,
      maybe: 0,
      excluded: 3,
      soughtForRetrieval: 6,
      notRetrieved: 1,
      assessed: 5,
      awaitingFullText: 0,
      fullTextMaybe: 0,
      excludedWithReasons: { "Wrong outcome": 2 },
      included: 3,
    });
  }, 30_000);

  it("a duplicate cannot be screened and an empty review has no next record", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    const empty = await json<ScreeningNext>(
      await call("GET", `/api/reviews/${review.id}/screening/next`, { cookie }),
      200,
    );
    expect(empty).toMatchObject({ record: null, progress: { screened: 0, total: 0, included: 0 } });
    expect(
      await json(await call("POST", `/api/reviews/${review.id}/screening/undo`, { cookie, body: {} }), 409),
    ).toMatchObject({ error: "NOTHING_TO_UNDO" });
    await json(await importText(cookie, review.id, "a.ris", ris([topic(1, true), topic(1, true)])), 201);
    const dupe = (await records(cookie, review.id, "?duplicates=only"))[0]!;
    expect(
      await json(await decide(cookie, review.id, dupe.id, { stage: "title_abstract", decision: "include" }), 409),
    ).toMatchObject({ error: "DUPLICATE_RECORD" });
    expect((await decide(cookie, review.id, dupe.id, { stage: "somewhere", decision: "include" })).status).toBe(400);
  });
});

describe("uploaded PDFs and the second screener", () => {
  it("adds the user's uploaded PDFs as records with their text; another user's upload is a 404", async () => {
    const owner = await signUp("pro");
    const other = await signUp("pro");
    const review = await newReview(owner.cookie);
    const insert = (userId: string, title: string) =>
      db()
        .insert(uploadedStudies)
        .values({
          userId,
          fileName: "p.pdf",
          fileSize: 10,
          status: "ready",
          title,
          doi: "10.9/up",
          fullTextContent: "Full text of the trial.",
        })
        .returning({ id: uploadedStudies.id });
    const [mine] = await insert(owner.userId, "An uploaded randomised trial of exercise");
    const [theirs] = await insert(other.userId, "Someone else's PDF");
    const denied = await call("POST", `/api/reviews/${review.id}/import-uploads`, {
      cookie: owner.cookie,
      body: { uploadIds: [mine!.id, theirs!.id] },
    });
    expect(await json(denied, 404)).toMatchObject({ error: "UPLOAD_NOT_FOUND" });
    expect(await records(owner.cookie, review.id)).toHaveLength(0);
    expect(
      await json(
        await call("POST", `/api/reviews/${review.id}/import-uploads`, {
          cookie: owner.cookie,
          body: { uploadIds: [mine!.id] },
        }),
        201,
      ),
    ).toMatchObject({ imported: 1, duplicatesRemoved: 0 });
    const [rec] = await records(owner.cookie, review.id);
    expect(rec).toMatchObject({
      title: "An uploaded randomised trial of exercise",
      origin: "Uploaded PDFs",
      doi: "10.9/up",
    });
    expect(rec!.fullText.attached).toBe(true);
    // Offline (no OPENAI_*), the second screener is not available: the ranking's terms explain instead.
    expect(
      await json(
        await call("POST", `/api/reviews/${review.id}/records/${rec!.id}/suggestion`, { cookie: owner.cookie }),
        409,
      ),
    ).toMatchObject({ error: "AI_NOT_CONFIGURED" });
  });
});

describe("full texts and the account", () => {
  it("attaches a PDF (stored under the user's prefix), downloads it as an attachment, and the account export and deletion include the review", async () => {
    const { cookie, userId } = await signUp("pro");
    const review = await newReview(cookie);
    await json(await importText(cookie, review.id, "a.ris", ris([topic(1, true)])), 201);
    const [rec] = await records(cookie, review.id);
    const pdf = await PDFDocument.create();
    const page = pdf.addPage();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 30; i++)
      page.drawText(`Methods: participants were randomised to aerobic exercise, line ${i}.`, {
        x: 20,
        y: 800 - i * 20,
        size: 10,
        font,
      });
    const form = new FormData();
    form.set(
      "file",
      new File([(await pdf.save()).slice().buffer as ArrayBuffer], "paper.pdf", { type: "application/pdf" }),
    );
    const attached = await json<{ attached: boolean; kind: string; characters: number }>(
      await call("POST", `/api/reviews/${review.id}/records/${rec!.id}/fulltext`, { cookie, form }),
      201,
    );
    expect(attached).toMatchObject({ attached: true, kind: "pdf" });
    expect(attached.characters).toBeGreaterThan(500);
    const notPdf = new FormData();
    notPdf.set("file", new File(["hello"], "x.pdf"));
    expect(
      (await call("POST", `/api/reviews/${review.id}/records/${rec!.id}/fulltext`, { cookie, form: notPdf })).status,
    ).toBe(415);
    const download = await call("GET", `/api/reviews/${review.id}/records/${rec!.id}/fulltext`, { cookie });
    expect(download.headers.get("Content-Type")).toBe("application/pdf");
    expect(download.headers.get("Content-Disposition")).toMatch(/^attachment;/);
    await download.arrayBuffer();
    expect((await env.BUCKET.list({ prefix: `uploads/${userId}/reviews/${review.id}/` })).objects).toHaveLength(1);
    expect((await records(cookie, review.id))[0]!.fullText.attached).toBe(true);

    const data = await json<{ tables: Record<string, unknown[]> }>(
      await call("GET", "/api/user/data", { cookie }),
      200,
    );
    expect(data.tables.reviews).toHaveLength(1);
    expect(data.tables.review_records).toHaveLength(1);
    expect(data.tables.review_sources).toHaveLength(1);

    expect((await call("POST", "/api/user/delete", { cookie, body: { confirm: "DELETE" } })).status).toBe(200);
    expect(await db().select().from(reviewRecords).where(eq(reviewRecords.userId, userId))).toHaveLength(0);
    expect((await env.BUCKET.list({ prefix: `uploads/${userId}/` })).objects).toHaveLength(0);
  }, 30_000);
});
