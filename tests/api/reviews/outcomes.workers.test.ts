import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { call, json, signUp } from "../helpers";
import { reviewRecords, studies, uploadedStudies } from "../../../db/schema";
import {
  inferPoolType,
  poolReviewOutcome,
  type ReviewOutcome,
  type ReviewOutcomeExtraction,
} from "~/lib/review-extraction";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";
import { createDb } from "~/.server/db/client";

const db = () => createDb(env.DB);

/** Invented trial abstracts (RIS) with arm-level mortality counts. */
const RIS = [
  [
    "Zelmoxan versus placebo in sepsis: a randomised trial",
    "We randomised 198 adults to zelmoxan (n = 100) or placebo (n = 98). Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group.",
  ],
  [
    "Zelmoxan in older adults with sepsis",
    "Patients were randomised to zelmoxan (n = 150) or placebo (n = 152). Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  ],
  [
    "Zelmoxan for septic shock: pilot",
    "A pilot trial of zelmoxan against placebo in 40 adults; mortality was 3/20 vs 5/20.",
  ],
]
  .map(
    ([title, abstract], i) =>
      `TY  - JOUR\nTI  - ${title}\nAU  - Doe, Jane\nPY  - 202${i}\nDO  - 10.5555/zel.${i}\nAB  - ${abstract}\nER  - `,
  )
  .join("\n\n");

/** An invented PDF text as unpdf gives it (line breaks inside sentences). */
const PDF_TEXT = `Zelmoxan in sepsis: a multicentre randomised trial
Results
Mortality at 28 days was 14.0% (21/150) with zelmoxan
vs 22.0% (33/150) with placebo.
`;

const JATS = `<?xml version="1.0"?><article><front><article-meta><title-group><article-title>Zelmoxan in septic shock</article-title></title-group></article-meta></front><body><sec><title>Results</title><p>Mortality was 9/60 with zelmoxan vs 16/61 with placebo.</p></sec></body></article>`;

/** A review with four studies included at full text (abstracts; one uploaded PDF; one with a PMCID), one only at title/abstract. */
async function reviewWithIncludedStudies(owner: { cookie: string; userId: string }, { screen = true } = {}) {
  const review = (
    await json<{ review: ApiReview }>(
      await call("POST", "/api/reviews", {
        cookie: owner.cookie,
        body: {
          title: "Zelmoxan in sepsis",
          question: { intervention: "zelmoxan", comparator: "placebo", outcomes: "mortality" },
        },
      }),
      201,
    )
  ).review;
  const form = new FormData();
  form.set("file", new File([RIS], "trials.ris", { type: "application/x-research-info-systems" }));
  await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
  const [upload] = await db()
    .insert(uploadedStudies)
    .values({
      userId: owner.userId,
      fileName: "zel.pdf",
      fileSize: 10,
      status: "ready",
      title: "Zelmoxan in sepsis: a multicentre randomised trial",
      fullTextContent: PDF_TEXT,
    })
    .returning({ id: uploadedStudies.id });
  await json(
    await call("POST", `/api/reviews/${review.id}/import-uploads`, {
      cookie: owner.cookie,
      body: { uploadIds: [upload!.id] },
    }),
    201,
  );
  const { records } = await json<{ records: ApiReviewRecord[] }>(
    await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
    200,
  );
  // The first abstract's record also has a PMCID, whose JATS is already in the R2 cache.
  const pmcid = `PMC${Math.floor(Math.random() * 1e9)}`;
  const [study] = await db()
    .insert(studies)
    .values({
      pmcid,
      titleKey: `zel-${pmcid}`,
      title: "Zelmoxan in septic shock",
      authors: [],
      source: "europepmc",
      sourceId: pmcid,
      studyType: "rct",
      publicationTypes: [],
    })
    .returning({ id: studies.id });
  const withPmcid = records.find((r) => r.title.startsWith("Zelmoxan for septic shock"))!;
  await db().update(reviewRecords).set({ studyId: study!.id }).where(eq(reviewRecords.id, withPmcid.id));
  await env.BUCKET.put(`europepmc/fulltext/${pmcid}.xml`, JATS);
  for (const r of screen ? records : []) {
    await json(
      await call("POST", `/api/reviews/${review.id}/records/${r.id}/decision`, {
        cookie: owner.cookie,
        body: { stage: "title_abstract", decision: "include" },
      }),
      200,
    );
    if (r.title.startsWith("Zelmoxan in older")) continue;
    await json(
      await call("POST", `/api/reviews/${review.id}/records/${r.id}/decision`, {
        cookie: owner.cookie,
        body: { stage: "full_text", decision: "include" },
      }),
      200,
    );
  }
  return { review, records, uploadRecord: records.find((r) => r.origin === "Uploaded PDFs")!, withPmcid };
}

describe("a review's data extraction", () => {
  it("extracts each outcome over the studies included at full text from their best text, and keeps corrections", async () => {
    const owner = await signUp("pro", { prefix: "outcomes" });
    const { review, uploadRecord, withPmcid } = await reviewWithIncludedStudies(owner);
    const base = `/api/reviews/${review.id}/outcomes`;

    const { outcome } = await json<{ outcome: ReviewOutcome }>(
      await call("POST", base, { cookie: owner.cookie, body: { name: "mortality" } }),
      201,
    );
    expect(outcome).toMatchObject({ name: "mortality", intervention: "zelmoxan", comparator: "placebo" });
    expect(
      (await json<{ outcomes: ReviewOutcome[] }>(await call("GET", base, { cookie: owner.cookie }), 200)).outcomes,
    ).toEqual([outcome]);

    const extraction = await json<ReviewOutcomeExtraction & { included: number }>(
      await call("GET", `${base}/${outcome.id}`, { cookie: owner.cookie }),
      200,
    );
    expect(extraction.included).toBe(3);
    const byTitle = new Map(extraction.studies.map((s) => [s.title, s]));
    expect([...byTitle.keys()].sort()).toEqual([
      "Zelmoxan for septic shock: pilot",
      "Zelmoxan in sepsis: a multicentre randomised trial",
      "Zelmoxan versus placebo in sepsis: a randomised trial",
    ]);
    const fromAbstract = byTitle.get("Zelmoxan versus placebo in sepsis: a randomised trial")!;
    expect(fromAbstract.source.kind).toBe("abstract");
    expect(fromAbstract.result).toMatchObject({
      outcomeType: "binary",
      intervention: { events: 12, groupSize: 100 },
      comparator: { events: 20, groupSize: 98 },
    });

    // The uploaded PDF feeds the same extractor; its quotes point back into the PDF text.
    const fromPdf = byTitle.get("Zelmoxan in sepsis: a multicentre randomised trial")!;
    expect(fromPdf.recordId).toBe(uploadRecord.id);
    expect(fromPdf.source.kind).toBe("upload");
    expect(fromPdf.result).toMatchObject({
      outcomeType: "binary",
      intervention: { events: 21, groupSize: 150 },
      comparator: { events: 33, groupSize: 150 },
    });
    const events = fromPdf.contexts.find((c) => c.arm === "intervention" && c.field === "events");
    expect(
      events?.kind === "text" && events.sourceSpan && PDF_TEXT.slice(events.sourceSpan.start, events.sourceSpan.end),
    ).toBe("14.0% (21/150)");

    // A PMCID: the Europe PMC JATS (from the R2 cache) is read instead of the abstract.
    const fromJats = byTitle.get("Zelmoxan for septic shock: pilot")!;
    expect(fromJats.recordId).toBe(withPmcid.id);
    expect(fromJats.source.kind).toBe("europepmc");
    expect(fromJats.result).toMatchObject({
      intervention: { events: 9, groupSize: 60 },
      comparator: { events: 16, groupSize: 61 },
    });

    // The report endpoint gives /meta-analysis the same text.
    const report = await json<{ kind: string; format: string; text: string; studyKey: string }>(
      await call("GET", `/api/reviews/${review.id}/records/${uploadRecord.id}/report`, { cookie: owner.cookie }),
      200,
    );
    expect(report).toMatchObject({ kind: "upload", format: "text", text: PDF_TEXT, studyKey: fromPdf.studyKey });

    // A correction through the edits API is applied on the next visit, with its audit entry.
    const edit = {
      studyKey: fromAbstract.studyKey,
      outcome: "mortality",
      arm: "intervention",
      field: "events",
      oldValue: 12,
      newValue: 2,
    };
    await json(await call("POST", "/api/extraction/edits", { cookie: owner.cookie, body: { edits: [edit] } }), 201);
    const again = await json<ReviewOutcomeExtraction>(
      await call("GET", `${base}/${outcome.id}`, { cookie: owner.cookie }),
      200,
    );
    const corrected = again.studies.find((s) => s.recordId === fromAbstract.recordId)!;
    expect(corrected.result.intervention.events).toBe(2);
    expect(corrected.result.extractor).toBe("rules+user");
    expect(corrected.audit).toEqual([
      expect.objectContaining({
        arm: "intervention",
        field: "events",
        oldValue: 12,
        newValue: 2,
        who: expect.stringMatching(/^outcomes-.*@example\.org$/),
      }),
    ]);

    await json(await call("POST", base, { cookie: owner.cookie, body: { name: "MORTALITY" } }), 409);
    expect((await call("DELETE", `${base}/${outcome.id}`, { cookie: owner.cookie })).status).toBe(204);
    expect(
      (await json<{ outcomes: ReviewOutcome[] }>(await call("GET", base, { cookie: owner.cookie }), 200)).outcomes,
    ).toEqual([]);
  }, 30_000);

  it("trials reporting only a hazard ratio: each study's reported HR reaches the review outcome (generic inverse variance)", async () => {
    const owner = await signUp("pro", { prefix: "outcomes" });
    const review = (
      await json<{ review: ApiReview }>(
        await call("POST", "/api/reviews", {
          cookie: owner.cookie,
          body: { title: "Velotrin in heart failure", question: { intervention: "velotrin", comparator: "placebo" } },
        }),
        201,
      )
    ).review;
    const ris = [
      [
        "Velotrin in heart failure: the VEL-1 trial",
        "Adults with heart failure were randomised to velotrin or placebo. Death from cardiovascular causes was less frequent with velotrin (hazard ratio 0.74, 95% CI 0.62 to 0.88).",
      ],
      [
        "Velotrin in heart failure: the VEL-2 trial",
        "Patients were randomised to velotrin or placebo. Death from cardiovascular causes was reduced (HR 0.81, 95% CI 0.69 to 0.95).",
      ],
    ]
      .map(
        ([title, abstract], i) =>
          `TY  - JOUR\nTI  - ${title}\nAU  - Roe, Ann\nPY  - 202${i}\nDO  - 10.5555/vel.${i}\nAB  - ${abstract}\nER  - `,
      )
      .join("\n\n");
    const form = new FormData();
    form.set("file", new File([ris], "vel.ris", { type: "application/x-research-info-systems" }));
    await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
    const { records } = await json<{ records: ApiReviewRecord[] }>(
      await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
      200,
    );
    for (const r of records) {
      for (const stage of ["title_abstract", "full_text"]) {
        await json(
          await call("POST", `/api/reviews/${review.id}/records/${r.id}/decision`, {
            cookie: owner.cookie,
            body: { stage, decision: "include" },
          }),
          200,
        );
      }
    }
    const base = `/api/reviews/${review.id}/outcomes`;
    const { outcome } = await json<{ outcome: ReviewOutcome }>(
      await call("POST", base, { cookie: owner.cookie, body: { name: "death from cardiovascular causes" } }),
      201,
    );
    const extraction = await json<ReviewOutcomeExtraction>(
      await call("GET", `${base}/${outcome.id}`, { cookie: owner.cookie }),
      200,
    );
    expect(
      extraction.studies
        .map((s) => s.reported && [s.reported.measure, s.reported.reportedMeasure, s.reported.estimate])
        .sort(),
    ).toEqual([
      ["RR", "HR", 0.74],
      ["RR", "HR", 0.81],
    ]);
    expect(inferPoolType(extraction.studies)).toBe("generic");
    const pooled = poolReviewOutcome(extraction.studies, {
      type: "generic",
      measure: "HR",
      method: "REML",
      test: "knha",
    });
    expect(pooled.pooled?.k).toBe(2);
  }, 30_000);

  it("answers another user's review, outcome or record with 404 and bad input with 400", async () => {
    const owner = await signUp("pro", { prefix: "outcomes" });
    const other = await signUp("pro", { prefix: "outcomes" });
    const { review, uploadRecord } = await reviewWithIncludedStudies(owner, { screen: false });
    const base = `/api/reviews/${review.id}/outcomes`;
    const { outcome } = await json<{ outcome: ReviewOutcome }>(
      await call("POST", base, { cookie: owner.cookie, body: { name: "mortality", comparator: "usual care" } }),
      201,
    );
    expect(outcome.comparator).toBe("usual care");

    expect((await call("GET", base)).status).toBe(401);
    expect(await json(await call("GET", base, { cookie: other.cookie }), 404)).toMatchObject({
      error: "REVIEW_NOT_FOUND",
    });
    expect(await json(await call("POST", base, { cookie: other.cookie, body: { name: "x" } }), 404)).toMatchObject({
      error: "REVIEW_NOT_FOUND",
    });
    expect((await call("GET", `${base}/${outcome.id}`, { cookie: other.cookie })).status).toBe(404);
    expect((await call("DELETE", `${base}/${outcome.id}`, { cookie: other.cookie })).status).toBe(404);
    expect(
      (await call("GET", `/api/reviews/${review.id}/records/${uploadRecord.id}/report`, { cookie: other.cookie }))
        .status,
    ).toBe(404);
    // Another review of the owner does not reach this review's outcome.
    const second = (
      await json<{ review: ApiReview }>(
        await call("POST", "/api/reviews", { cookie: owner.cookie, body: { title: "Second" } }),
        201,
      )
    ).review;
    expect(
      await json(await call("GET", `/api/reviews/${second.id}/outcomes/${outcome.id}`, { cookie: owner.cookie }), 404),
    ).toMatchObject({ error: "OUTCOME_NOT_FOUND" });
    expect((await call("GET", `${base}/abc`, { cookie: owner.cookie })).status).toBe(404);
    // Corrections are only recorded against the user's own reviews.
    const foreign = {
      studyKey: `review:${review.id}:${uploadRecord.id}`,
      outcome: "mortality",
      arm: "comparator",
      field: "events",
      oldValue: 33,
      newValue: 1,
    };
    expect(
      await json(
        await call("POST", "/api/extraction/edits", { cookie: other.cookie, body: { edits: [foreign] } }),
        404,
      ),
    ).toMatchObject({ error: "REVIEW_NOT_FOUND" });
    expect(
      (
        await call("GET", `/api/extraction/edits?studyKey=${encodeURIComponent(foreign.studyKey)}`, {
          cookie: other.cookie,
        })
      ).status,
    ).toBe(404);

    expect(await json(await call("POST", base, { cookie: owner.cookie, body: {} }), 400)).toMatchObject({
      error: "INVALID_INPUT",
    });
    expect(
      await json(await call("POST", base, { cookie: owner.cookie, body: { name: "x".repeat(201) } }), 400),
    ).toMatchObject({ error: "INVALID_INPUT" });
    expect(
      await json(await call("POST", base, { cookie: owner.cookie, body: { name: "pain", extra: 1 } }), 400),
    ).toMatchObject({ error: "INVALID_INPUT" });
    expect(
      await json(
        await call("POST", `/api/reviews/${second.id}/outcomes`, { cookie: owner.cookie, body: { name: "pain" } }),
        400,
      ),
    ).toMatchObject({ error: "ARMS_REQUIRED" });
    expect((await call("PUT", base, { cookie: owner.cookie, body: { name: "pain" } })).status).toBe(405);
  }, 30_000);
});
