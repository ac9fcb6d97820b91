import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { call, json, signUp } from "../helpers";
import { reviewMembers, reviewRecords, reviewStudyData } from "../../../db/schema";
import type { ExtractedStudyData } from "~/lib/meta-analysis/types";
import { poolReviewOutcome, type ReviewOutcome, type ReviewOutcomeExtraction } from "~/lib/review-extraction";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";
import { createDb } from "~/.server/db/client";
import { buildStudyDataCsv } from "~/.server/meta-analysis/export-csv";
import { runMetaAnalysis } from "~/.server/meta-analysis/run";
import type { ImportPreview } from "~/.server/reviews/outcome-import";

const db = () => createDb(env.DB);

/** Invented trials: title, first author, year, DOI. The last title is over 60 characters (exports shorten it). */
const TRIALS = [
  ["Alpha trial of zelmoxan in sepsis", "Smith, John", 2011, "10.5555/alpha"],
  ["Beta trial of zelmoxan in septic shock", "Jones, Ann", 2014, "10.5555/beta"],
  [
    "Gamma trial of zelmoxan in older adults with sepsis admitted to intensive care units in Zurich",
    "Smith, Peter",
    2019,
    "10.5555/gamma",
  ],
  ["Delta trial of zelmoxan", "Lee, Kim", 2020, "10.5555/delta"],
] as const;

/** A review whose four trials are included at full text (their abstracts report nothing). */
async function reviewWithTrials(owner: { cookie: string }) {
  const { review } = await json<{ review: ApiReview }>(
    await call("POST", "/api/reviews", {
      cookie: owner.cookie,
      body: { title: "Zelmoxan", question: { intervention: "zelmoxan", comparator: "placebo" } },
    }),
    201,
  );
  const ris = TRIALS.map(
    ([title, author, year, doi]) => `TY  - JOUR\nTI  - ${title}\nAU  - ${author}\nPY  - ${year}\nDO  - ${doi}\nER  - `,
  ).join("\n\n");
  const form = new FormData();
  form.set("file", new File([ris], "trials.ris", { type: "application/x-research-info-systems" }));
  await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
  const { records } = await json<{ records: ApiReviewRecord[] }>(
    await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
    200,
  );
  await db()
    .update(reviewRecords)
    .set({ taDecision: "include", ftDecision: "include" })
    .where(eq(reviewRecords.reviewId, review.id));
  const outcome = async (name: string) =>
    (
      await json<{ outcome: ReviewOutcome }>(
        await call("POST", `/api/reviews/${review.id}/outcomes`, { cookie: owner.cookie, body: { name } }),
        201,
      )
    ).outcome;
  const recordId = (title: string) => records.find((r) => r.title === title)!.id;
  return { review, records, outcome, recordId };
}

const importPath = (reviewId: string, dryRun = false) =>
  `/api/reviews/${reviewId}/outcomes/import${dryRun ? "?dryRun=1" : ""}`;

async function storedRows(outcomeId: number) {
  return db().select().from(reviewStudyData).where(eq(reviewStudyData.outcomeId, outcomeId));
}

const REVMAN = [
  "Study,Year,Experimental events,Experimental total,Control events,Control total",
  "Smith 2011,,12,100,20,98",
  "Jones et al. 2014,,0,40,4,41",
  "Smith,2019,30,200,35,190",
].join("\n");

describe("importing study-level data into a review outcome from CSV", () => {
  it("previews a RevMan-style file (matched by author-year, nothing written), then imports it in one go", async () => {
    const owner = await signUp("pro");
    const { review, outcome, recordId } = await reviewWithTrials(owner);
    const mortality = await outcome("mortality");

    const preview = await json<ImportPreview>(
      await call("POST", importPath(review.id, true), {
        cookie: owner.cookie,
        body: { outcomeId: mortality.id, csv: REVMAN, fileName: "revman.csv" },
      }),
      200,
    );
    expect(preview.errors).toEqual([]);
    expect(preview.mapping).toMatchObject({
      study: "Study",
      year: "Year",
      interventionEvents: "Experimental events",
      interventionN: "Experimental total",
      comparatorEvents: "Control events",
      comparatorN: "Control total",
    });
    expect(preview.rows.map((r) => [r.line, r.recordId, r.study])).toEqual([
      [2, recordId(TRIALS[0][0]), "Smith 2011"],
      [3, recordId(TRIALS[1][0]), "Jones 2014"],
      [4, recordId(TRIALS[2][0]), "Smith 2019"],
    ]);
    expect(preview.rows[0]!.data).toEqual({ kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 });
    expect(preview.imported).toBe(0);
    expect(await storedRows(mortality.id)).toHaveLength(0);

    const done = await json<ImportPreview>(
      await call("POST", importPath(review.id), {
        cookie: owner.cookie,
        body: { outcomeId: mortality.id, csv: REVMAN, fileName: "revman.csv" },
      }),
      200,
    );
    expect(done.imported).toBe(3);
    expect(await storedRows(mortality.id)).toHaveLength(3);

    const extraction = await json<ReviewOutcomeExtraction>(
      await call("GET", `/api/reviews/${review.id}/outcomes/${mortality.id}`, { cookie: owner.cookie }),
      200,
    );
    const alpha = extraction.studies.find((s) => s.recordId === recordId(TRIALS[0][0]))!;
    expect(alpha.source.kind).toBe("import");
    expect(alpha.source.note).toContain("revman.csv, line 2");
    expect(alpha.result).toMatchObject({
      outcomeType: "binary",
      intervention: { events: 12, groupSize: 100 },
      comparator: { events: 20, groupSize: 98 },
      extractor: "import",
    });
    const delta = extraction.studies.find((s) => s.recordId === recordId(TRIALS[3][0]))!;
    expect(delta.source.kind).not.toBe("import");
    const pooled = poolReviewOutcome(extraction.studies, {
      type: "binary",
      measure: "RR",
      method: "REML",
      test: "knha",
    });
    expect(pooled.pooled?.k).toBe(3);

    // Importing the same study again replaces its row; the preview says so.
    const again = await json<ImportPreview>(
      await call("POST", importPath(review.id, true), {
        cookie: owner.cookie,
        body: {
          outcomeId: mortality.id,
          csv: "Study,Experimental events,Experimental N,Control events,Control N\nSmith 2011,13,100,20,98",
        },
      }),
      200,
    );
    expect(again.rows[0]).toMatchObject({ recordId: recordId(TRIALS[0][0]), replaces: true });
  });

  it("reads Covidence's export (Study ID, Intervention/Comparator columns, an Outcome column) and matches by DOI", async () => {
    const owner = await signUp("pro");
    const { review, outcome, recordId } = await reviewWithTrials(owner);
    const pain = await outcome("pain");
    const csv = [
      "Covidence #,Study ID,Title,DOI,Outcome,Intervention Mean,Intervention SD,Intervention Total,Comparator Mean,Comparator SD,Comparator Total",
      "#101,Lee 2020,Delta,https://doi.org/10.5555/DELTA,Pain,3.1,1.2,50,3.9,1.4,48",
      "#102,Anon,Beta,10.5555/beta,Pain,-0.5,0.9,30,0.1,1.1,31",
      "#102,Anon,Beta,10.5555/beta,Nausea,1,1,30,1,1,31",
    ].join("\r\n");
    const needsChoice = await json<ImportPreview>(
      await call("POST", importPath(review.id, true), { cookie: owner.cookie, body: { outcomeId: pain.id, csv } }),
      200,
    );
    expect(needsChoice.outcomeValues).toEqual(["Pain", "Nausea"]);
    expect(needsChoice.errors[0]!.message).toMatch(/2 outcomes/);
    const preview = await json<ImportPreview>(
      await call("POST", importPath(review.id, true), {
        cookie: owner.cookie,
        body: { outcomeId: pain.id, csv, outcomeValue: "Pain" },
      }),
      200,
    );
    expect(preview.errors).toEqual([]);
    expect(preview.rows.map((r) => r.recordId)).toEqual([recordId(TRIALS[3][0]), recordId(TRIALS[1][0])]);
    expect(preview.rows[1]!.data).toEqual({
      kind: "means",
      mean1: -0.5,
      sd1: 0.9,
      n1: 30,
      mean2: 0.1,
      sd2: 1.1,
      n2: 31,
    });
  });

  it("refuses a file with any bad line and writes nothing: missing columns, non-numeric cells, events > N, unknown and duplicate studies", async () => {
    const owner = await signUp("pro");
    const { review, outcome } = await reviewWithTrials(owner);
    const mortality = await outcome("mortality");
    const post = (csv: string, dryRun = false) =>
      call("POST", importPath(review.id, dryRun), { cookie: owner.cookie, body: { outcomeId: mortality.id, csv } });

    const missing = await json<{ error: string; errors: { line: number; message: string }[] }>(
      await post("Study,Experimental events,Control events\nSmith 2011,12,20"),
      400,
    );
    expect(missing.error).toBe("IMPORT_INVALID");
    expect(missing.errors).toEqual([{ line: 1, message: expect.stringMatching(/Map the data columns/) }]);

    const bad = [
      "Study,Experimental cases,Experimental N,Control cases,Control N",
      "Smith 2011,12,100,20,98",
      "Jones 2014,twelve,40,4,41",
      "Smith 2019,230,200,35,190",
      "Nobody 1999,1,10,2,10",
      "Smith 2011,12,100,20,98",
      "Lee 2020,5,50,,50",
    ].join("\n");
    const preview = await json<ImportPreview>(await post(bad, true), 200);
    expect(preview.errors.map((e) => [e.line, e.message])).toEqual([
      [3, expect.stringMatching(/Intervention events: "twelve" is not a number/)],
      [4, expect.stringMatching(/Intervention events \(230\) exceed the intervention N \(200\)/)],
      [5, expect.stringMatching(/"Nobody 1999" is not one of the review's 4 studies/)],
      [6, expect.stringMatching(/Duplicate: line 2 already gives data for Smith 2011/)],
      [7, expect.stringMatching(/Incomplete events\/N: missing Comparator events/)],
    ]);
    expect(preview.errors[0]!.column).toBe("Experimental cases");
    expect(preview.unmatched).toEqual([{ line: 5, study: "Nobody 1999" }]);
    expect(preview.rows).toHaveLength(1);

    const refused = await json<{ error: string; message: string; errors: unknown[] }>(await post(bad), 400);
    expect(refused.error).toBe("IMPORT_INVALID");
    expect(refused.message).toMatch(/5 problems.*nothing was imported/);
    expect(await storedRows(mortality.id)).toHaveLength(0);

    // A generic estimate needs its measure and a CI around it.
    const generic = await json<ImportPreview>(
      await post(
        "Study,Effect measure,Mean,CI start,CI end\nSmith 2011,Hazard Ratio,0.8,0.6,1.1\nJones 2014,,0.9,0.7,1.2\nLee 2020,HR,1.5,0.6,1.1",
        true,
      ),
      200,
    );
    expect(generic.rows.map((r) => r.data)).toEqual([
      { kind: "estimate-ci", measure: "HR", estimate: 0.8, lower: 0.6, upper: 1.1 },
    ]);
    expect(generic.errors.map((e) => e.line)).toEqual([3, 4]);
  });

  it("answers 415 for a non-JSON body, 413 for an oversized one, 403 for a viewer, 404 for another user's review or outcome", async () => {
    const owner = await signUp("pro");
    const other = await signUp("pro");
    const viewer = await signUp("pro");
    const { review, outcome } = await reviewWithTrials(owner);
    const mortality = await outcome("mortality");
    await db().insert(reviewMembers).values({ reviewId: review.id, userId: viewer.userId, role: "viewer" });
    const body = { outcomeId: mortality.id, csv: REVMAN };
    expect(
      (await call("POST", importPath(review.id), { cookie: owner.cookie, body: REVMAN, type: "text/csv" })).status,
    ).toBe(415);
    expect(
      (
        await call("POST", importPath(review.id), {
          cookie: owner.cookie,
          body: { ...body, csv: "x".repeat(1_200_000) },
        })
      ).status,
    ).toBe(413);
    expect(
      (
        await call("POST", importPath(review.id), {
          cookie: owner.cookie,
          body: { ...body, csv: "x".repeat(600 * 1024) },
        })
      ).status,
    ).toBe(400);
    expect(
      (await json<{ error: string }>(await call("POST", importPath(review.id), { cookie: viewer.cookie, body }), 403))
        .error,
    ).toBe("FORBIDDEN_ROLE");
    expect(
      (await json<{ error: string }>(await call("POST", importPath(review.id), { cookie: other.cookie, body }), 404))
        .error,
    ).toBe("REVIEW_NOT_FOUND");
    expect(
      (
        await json<{ error: string }>(
          await call("POST", importPath(review.id), { cookie: owner.cookie, body: { ...body, outcomeId: 999999 } }),
          404,
        )
      ).error,
    ).toBe("OUTCOME_NOT_FOUND");
    expect((await call("GET", importPath(review.id), { cookie: owner.cookie })).status).toBe(405);
    expect(await storedRows(mortality.id)).toHaveLength(0);
    expect(
      await db()
        .select()
        .from(reviewStudyData)
        .where(and(eq(reviewStudyData.reviewId, review.id))),
    ).toHaveLength(0);
  });

  it("round-trips the per-analysis CSV export: each analysis imported into an empty outcome pools to the same numbers", async () => {
    const owner = await signUp("pro");
    const { review, outcome, recordId } = await reviewWithTrials(owner);
    const row = (
      i: number,
      outcomeName: string,
      measure: ExtractedStudyData["measure"],
      data: ExtractedStudyData["data"],
    ): ExtractedStudyData => ({
      studyId: `s${i}`,
      title: TRIALS[i]![0],
      outcome: outcomeName,
      measure,
      data,
      quotes: [],
      extractedBy: "user",
      design: "RCT",
      totalN: null,
    });
    const rows: ExtractedStudyData[] = [
      row(0, "mortality", "RR", { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 }),
      row(1, "mortality", "RR", { kind: "counts", events1: 0, n1: 40, events2: 4, n2: 41 }),
      row(2, "mortality", "RR", { kind: "counts", events1: 30, n1: 200, events2: 35, n2: 190 }),
      row(0, "pain score", "SMD", { kind: "means", mean1: 3.1, sd1: 1.2, n1: 50, mean2: 3.9, sd2: 1.4, n2: 48 }),
      row(2, "pain score", "SMD", { kind: "means", mean1: 4.0, sd1: 2.0, n1: 80, mean2: 5.2, sd2: 2.1, n2: 79 }),
      row(3, "pain score", "SMD", { kind: "means", mean1: -1.5, sd1: 0.9, n1: 30, mean2: -1.4, sd2: 1.1, n2: 31 }),
      {
        ...row(1, "progression", "RR", { kind: "estimate-ci", estimate: 0.72, lower: 0.55, upper: 0.94 }),
        reportedMeasure: "HR",
      },
      {
        ...row(3, "progression", "RR", { kind: "estimate-ci", estimate: 0.91, lower: 0.7, upper: 1.18 }),
        reportedMeasure: "HR",
      },
    ];
    const job = runMetaAnalysis(
      { studyCount: 4, extracted: rows, excluded: [], model: "offline" },
      { method: "REML", test: "knha" },
    );
    const csv = buildStudyDataCsv(job);
    expect(Papa.parse<string[]>(csv).data[0]).toContain("Experimental cases");

    const poolAs = {
      mortality: { type: "binary", measure: "RR" },
      "pain score": { type: "continuous", measure: "SMD" },
      progression: { type: "generic", measure: "HR" },
    } as const;
    expect(job.analyses.map((a) => a.outcome).sort()).toEqual(Object.keys(poolAs).sort());
    for (const analysis of job.analyses) {
      const target = await outcome(analysis.outcome);
      const done = await json<ImportPreview>(
        await call("POST", importPath(review.id), {
          cookie: owner.cookie,
          body: { outcomeId: target.id, csv, outcomeValue: analysis.outcome, fileName: "export.csv" },
        }),
        200,
      );
      expect(done.errors).toEqual([]);
      expect(done.imported).toBe(analysis.effects.length);
      const extraction = await json<ReviewOutcomeExtraction>(
        await call("GET", `/api/reviews/${review.id}/outcomes/${target.id}`, { cookie: owner.cookie }),
        200,
      );
      const pooled = poolReviewOutcome(extraction.studies, {
        ...poolAs[analysis.outcome as keyof typeof poolAs],
        method: "REML",
        test: "knha",
      });
      expect(pooled.pooled, pooled.message ?? "").not.toBeNull();
      for (const effect of analysis.effects) {
        const title = TRIALS[Number(effect.studyId.slice(1))]![0];
        const study = pooled.studies.find((s) => s.recordId === recordId(title))!;
        expect(study.yi!).toBeCloseTo(effect.yi, 10);
        expect(study.vi!).toBeCloseTo(effect.vi, 10);
      }
      expect(pooled.pooled!.k).toBe(analysis.k);
      expect(pooled.pooled!.estimate).toBeCloseTo(analysis.estimate, 10);
      expect(pooled.pooled!.se).toBeCloseTo(analysis.se, 10);
      expect(pooled.pooled!.tau2).toBeCloseTo(analysis.tau2, 10);
    }
  });
});
