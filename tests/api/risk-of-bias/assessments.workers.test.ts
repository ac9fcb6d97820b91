import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { call, json, signUp } from "../helpers";
import { reviewMembers, riskOfBiasAssessments } from "../../../db/schema";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";
import type { ApiRobAssessment, ApiRobOverview, ApiRobSuggestions } from "~/lib/risk-of-bias/types";
import { createDb } from "~/.server/db/client";
import type { ApiGradeSettings } from "~/.server/risk-of-bias/grade-settings";

const db = () => createDb(env.DB);

/** Invented trial abstracts: one explicit about its methods, one terse, one excluded at full text. */
const RIS = [
  [
    "Zelmoxan versus placebo in sepsis: a randomised trial",
    "Doe, Jane",
    "Randomisation used a computer-generated list in permuted blocks; allocation was concealed in sequentially numbered, sealed, opaque envelopes. This double-blind trial randomised 200 adults and 196 were analysed. Mortality was 12/100 vs 20/98.",
  ],
  [
    "Zelmoxan in older adults with sepsis",
    "Roe, Richard",
    "Patients were randomised to zelmoxan or placebo in an open-label design. Mortality was 18/150 vs 30/152.",
  ],
  ["Zelmoxan for septic shock: pilot", "Poe, Edgar", "A pilot of 40 adults."],
]
  .map(
    ([title, author, abstract], i) =>
      `TY  - JOUR\nTI  - ${title}\nAU  - ${author}\nPY  - 202${i}\nDO  - 10.5555/rob.${i}\nAB  - ${abstract}\nER  - `,
  )
  .join("\n\n");

async function reviewWithStudies(owner: { cookie: string }) {
  const { review } = await json<{ review: ApiReview }>(
    await call("POST", "/api/reviews", {
      cookie: owner.cookie,
      body: {
        title: "Zelmoxan in sepsis",
        question: { intervention: "zelmoxan", comparator: "placebo", outcomes: "mortality" },
      },
    }),
    201,
  );
  const form = new FormData();
  form.set("file", new File([RIS], "trials.ris", { type: "application/x-research-info-systems" }));
  await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
  const { records } = await json<{ records: ApiReviewRecord[] }>(
    await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
    200,
  );
  for (const r of records) {
    await json(
      await call("POST", `/api/reviews/${review.id}/records/${r.id}/decision`, {
        cookie: owner.cookie,
        body: { stage: "title_abstract", decision: "include" },
      }),
      200,
    );
    const ft = r.title.startsWith("Zelmoxan for septic shock")
      ? { decision: "exclude", reason: "Wrong design" }
      : { decision: "include" };
    await json(
      await call("POST", `/api/reviews/${review.id}/records/${r.id}/decision`, {
        cookie: owner.cookie,
        body: { stage: "full_text", ...ft },
      }),
      200,
    );
  }
  const { outcome } = await json<{ outcome: { id: number } }>(
    await call("POST", `/api/reviews/${review.id}/outcomes`, { cookie: owner.cookie, body: { name: "mortality" } }),
    201,
  );
  const byTitle = (start: string) => records.find((r) => r.title.startsWith(start))!;
  return {
    review,
    outcome,
    explicit: byTitle("Zelmoxan versus"),
    terse: byTitle("Zelmoxan in older"),
    excluded: byTitle("Zelmoxan for septic shock"),
  };
}

const LOW = {
  "1.1": "Y",
  "1.2": "Y",
  "1.3": "N",
  "2.1": "N",
  "2.2": "N",
  "2.6": "Y",
  "3.1": "Y",
  "4.1": "N",
  "4.2": "N",
  "4.3": "N",
  "5.1": "Y",
  "5.2": "N",
  "5.3": "N",
};

describe("a review's RoB 2 assessments", () => {
  it("assesses included studies per outcome, keeps proposal and overrides, lists and exports them", async () => {
    const owner = await signUp("pro");
    const { review, outcome, explicit, terse, excluded } = await reviewWithStudies(owner);
    const base = `/api/reviews/${review.id}/risk-of-bias`;

    const empty = await json<ApiRobOverview>(await call("GET", base, { cookie: owner.cookie }), 200);
    expect(empty.outcomes).toEqual([{ id: outcome.id, name: "mortality" }]);
    expect(empty.studies.map((s) => s.label).sort()).toEqual(["Doe 2020", "Roe 2021"]);
    expect(empty.assessments).toEqual([]);

    // Suggestions from the stored abstract: explicit sentences propose answers.
    const s = await json<ApiRobSuggestions>(
      await call("GET", `${base}/${explicit.id}/suggestions?variant=assignment`, { cookie: owner.cookie }),
      200,
    );
    expect(s.source.kind).toBe("abstract");
    expect(s.suggestions["1.1"]![0]).toMatchObject({ proposed: "Y" });
    expect(s.suggestions["1.2"]![0]).toMatchObject({ proposed: "Y" });
    expect(s.suggestions["2.1"]![0]).toMatchObject({ proposed: "N" });
    expect(s.suggestions["3.1"]![0]).toMatchObject({ proposed: "Y", note: expect.stringContaining("196 of 200") });
    const q = s.suggestions["1.2"]![0]!;
    expect(s.text.slice(q.start, q.end)).toBe(q.sentence);

    // Incomplete answers name the missing questions; nothing is stored.
    const incomplete = await json<{ error: string; missing: string[] }>(
      await call("PUT", `${base}/${explicit.id}/${outcome.id}`, {
        cookie: owner.cookie,
        body: { variant: "assignment", answers: { ...LOW, "5.3": undefined } },
      }),
      400,
    );
    expect(incomplete).toMatchObject({ error: "ANSWERS_INCOMPLETE", missing: ["5.3"] });

    const first = await json<{ assessment: ApiRobAssessment }>(
      await call("PUT", `${base}/${explicit.id}/${outcome.id}`, {
        cookie: owner.cookie,
        body: {
          variant: "assignment",
          answers: LOW,
          support: { "1.2": { text: "Sealed envelopes.", quotes: [q.sentence] } },
        },
      }),
      201,
    );
    expect(first.assessment).toMatchObject({
      recordId: explicit.id,
      outcomeId: outcome.id,
      proposed: { D1: "low", D2: "low", D3: "low", D4: "low", D5: "low", overall: "low" },
      final: { overall: "low" },
      assessedBy: owner.email,
      support: { "1.2": { text: "Sealed envelopes.", quotes: [q.sentence] } },
    });

    // The terse open-label study: D2 some concerns and D5 some concerns; the reviewer raises the overall to high.
    const answers = { ...LOW, "1.2": "NI", "2.1": "Y", "2.2": "Y", "2.3": "NI", "5.1": "NI" };
    const raised = await json<{ assessment: ApiRobAssessment }>(
      await call("PUT", `${base}/${terse.id}/${outcome.id}`, {
        cookie: owner.cookie,
        body: {
          variant: "assignment",
          answers,
          overrides: { overall: { judgement: "high", justification: "Concerns in three domains together." } },
        },
      }),
      201,
    );
    expect(raised.assessment.proposed).toEqual({
      D1: "some_concerns",
      D2: "some_concerns",
      D3: "low",
      D4: "low",
      D5: "some_concerns",
      overall: "some_concerns",
    });
    expect(raised.assessment.final.overall).toBe("high");
    expect(raised.assessment.overrides.overall).toEqual({
      judgement: "high",
      justification: "Concerns in three domains together.",
    });

    // An overall more favourable than a domain is refused; an override needs a justification.
    const tooLow = await call("PUT", `${base}/${terse.id}/${outcome.id}`, {
      cookie: owner.cookie,
      body: { variant: "assignment", answers, overrides: { overall: { judgement: "low", justification: "x" } } },
    });
    expect(await json(tooLow, 400)).toMatchObject({ error: "INVALID_OVERRIDE" });
    expect(
      (
        await call("PUT", `${base}/${terse.id}/${outcome.id}`, {
          cookie: owner.cookie,
          body: { variant: "assignment", answers, overrides: { D1: { judgement: "low", justification: " " } } },
        })
      ).status,
    ).toBe(400);

    // Saving again replaces (200), keeping one row; a domain override changes the final judgement only.
    const replaced = await json<{ assessment: ApiRobAssessment }>(
      await call("PUT", `${base}/${explicit.id}/${outcome.id}`, {
        cookie: owner.cookie,
        body: {
          variant: "assignment",
          answers: LOW,
          overrides: { D4: { judgement: "some_concerns", justification: "Self-reported outcome." } },
        },
      }),
      200,
    );
    expect(replaced.assessment.id).toBe(first.assessment.id);
    expect(replaced.assessment.proposed.D4).toBe("low");
    expect(replaced.assessment.final).toMatchObject({ D4: "some_concerns", overall: "some_concerns" });
    expect(
      await db().select().from(riskOfBiasAssessments).where(eq(riskOfBiasAssessments.reviewId, review.id)),
    ).toHaveLength(2);

    // Excluded studies are not assessed.
    expect(
      await json(
        await call("PUT", `${base}/${excluded.id}/${outcome.id}`, {
          cookie: owner.cookie,
          body: { variant: "assignment", answers: LOW },
        }),
        409,
      ),
    ).toMatchObject({ error: "RECORD_NOT_INCLUDED" });

    // robvis CSV and the review's JSON export.
    const csv = await call("GET", `${base}/export?outcomeId=${outcome.id}`, { cookie: owner.cookie });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toContain("text/csv");
    expect((await csv.text()).split("\r\n")).toEqual([
      "Study,D1,D2,D3,D4,D5,Overall,Weight",
      "Doe 2020,Low,Low,Low,Some concerns,Low,Some concerns,1",
      "Roe 2021,Some concerns,Some concerns,Low,Low,Some concerns,High,1",
      "",
    ]);
    const svg = await call("GET", `${base}/export?outcomeId=${outcome.id}&format=traffic-light`, {
      cookie: owner.cookie,
    });
    expect(svg.headers.get("Content-Type")).toContain("image/svg+xml");
    const plot = await svg.text();
    expect(plot.match(/<circle [^>]*data-judgement="high"/g)).toHaveLength(1);
    expect(plot).toContain('data-study="Roe 2021"');
    expect(
      (
        await call("GET", `${base}/export?outcomeId=${outcome.id}&format=summary`, { cookie: owner.cookie })
      ).headers.get("Content-Type"),
    ).toContain("image/svg+xml");
    expect(
      (await call("GET", `${base}/export?outcomeId=${outcome.id}&format=pdf`, { cookie: owner.cookie })).status,
    ).toBe(400);
    const exported = (await (
      await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie: owner.cookie })
    ).json()) as { riskOfBias: ApiRobAssessment[] };
    expect(exported.riskOfBias.map((a) => [a.recordId, a.final.overall])).toEqual([
      [explicit.id, "some_concerns"],
      [terse.id, "high"],
    ]);

    const listed = await json<ApiRobOverview>(await call("GET", base, { cookie: owner.cookie }), 200);
    expect(listed.assessments).toHaveLength(2);

    // Delete, then 404 for the missing one.
    expect((await call("DELETE", `${base}/${terse.id}/${outcome.id}`, { cookie: owner.cookie })).status).toBe(204);
    expect(
      await json(await call("DELETE", `${base}/${terse.id}/${outcome.id}`, { cookie: owner.cookie }), 404),
    ).toMatchObject({ error: "ASSESSMENT_NOT_FOUND" });
  }, 60_000);

  it("another user's review, record or outcome is a 404 and changes nothing; guests get 401", async () => {
    const owner = await signUp("pro");
    const other = await signUp("pro");
    const { review, outcome, explicit } = await reviewWithStudies(owner);
    const base = `/api/reviews/${review.id}/risk-of-bias`;
    await json(
      await call("PUT", `${base}/${explicit.id}/${outcome.id}`, {
        cookie: owner.cookie,
        body: { variant: "assignment", answers: LOW },
      }),
      201,
    );
    for (const [method, path, body] of [
      ["GET", base, undefined],
      ["PUT", `${base}/${explicit.id}/${outcome.id}`, { variant: "assignment", answers: LOW }],
      ["DELETE", `${base}/${explicit.id}/${outcome.id}`, undefined],
      ["GET", `${base}/${explicit.id}/suggestions`, undefined],
      ["GET", `${base}/export?outcomeId=${outcome.id}`, undefined],
    ] as const) {
      expect(
        await json(await call(method, path, { cookie: other.cookie, body }), 404),
        `${method} ${path}`,
      ).toMatchObject({ error: "REVIEW_NOT_FOUND" });
      expect((await call(method, path, { body })).status, `${method} ${path} as guest`).toBe(401);
    }
    // The other user's own review cannot reach the owner's record or outcome.
    const { review: theirs, outcome: theirOutcome, explicit: theirRecord } = await reviewWithStudies(other);
    expect(
      await json(
        await call("PUT", `/api/reviews/${theirs.id}/risk-of-bias/${explicit.id}/${theirOutcome.id}`, {
          cookie: other.cookie,
          body: { variant: "assignment", answers: LOW },
        }),
        404,
      ),
    ).toMatchObject({ error: "RECORD_NOT_FOUND" });
    expect(
      await json(
        await call("PUT", `/api/reviews/${theirs.id}/risk-of-bias/${theirRecord.id}/${outcome.id}`, {
          cookie: other.cookie,
          body: { variant: "assignment", answers: LOW },
        }),
        404,
      ),
    ).toMatchObject({ error: "OUTCOME_NOT_FOUND" });
    const rows = await db().select().from(riskOfBiasAssessments).where(eq(riskOfBiasAssessments.reviewId, review.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.final.overall).toBe("low");
  }, 60_000);
});

describe("a review's GRADE settings per outcome", () => {
  it("stores the reviewer's rating changes, rated-up levels, assumed control risk and threshold; viewers and strangers cannot write", async () => {
    const owner = await signUp("pro");
    const viewer = await signUp("pro");
    const stranger = await signUp("pro");
    const { review, outcome } = await reviewWithStudies(owner);
    await db().insert(reviewMembers).values({ reviewId: review.id, userId: viewer.userId, role: "viewer" });
    const url = `/api/reviews/${review.id}/grade/${outcome.id}`;
    const body = {
      rating: {
        overrides: { indirectness: { downgrade: -1, justification: "Only older adults were enrolled." } },
        rateUp: [{ reason: "large effect", levels: 1, justification: "RR below 0.5 in every trial." }],
      },
      assumedControlRisk: 0.15,
      decisionThreshold: 0.9,
    };
    const created = await json<{ settings: ApiGradeSettings }>(
      await call("PUT", url, { cookie: owner.cookie, body }),
      201,
    );
    expect(created.settings).toMatchObject({
      outcomeId: outcome.id,
      outcome: "mortality",
      assumedControlRisk: 0.15,
      decisionThreshold: 0.9,
      updatedBy: owner.email,
    });
    expect(created.settings.rating.overrides.indirectness).toEqual({
      downgrade: -1,
      justification: "Only older adults were enrolled.",
    });
    const replaced = await json<{ settings: ApiGradeSettings }>(
      await call("PUT", url, { cookie: owner.cookie, body: { assumedControlRisk: null } }),
      200,
    );
    expect(replaced.settings).toMatchObject({
      rating: { overrides: {}, rateUp: [] },
      assumedControlRisk: null,
      decisionThreshold: null,
    });

    // The viewer reads but cannot write; a stranger sees nothing.
    await json(await call("PUT", url, { cookie: owner.cookie, body }), 200);
    const listed = await json<{ settings: ApiGradeSettings[] }>(
      await call("GET", `/api/reviews/${review.id}/grade`, { cookie: viewer.cookie }),
      200,
    );
    expect(listed.settings).toHaveLength(1);
    expect(listed.settings[0]!.rating.rateUp).toHaveLength(1);
    expect(await json(await call("PUT", url, { cookie: viewer.cookie, body }), 403)).toMatchObject({
      error: "FORBIDDEN_ROLE",
    });
    expect(await json(await call("DELETE", url, { cookie: viewer.cookie }), 403)).toMatchObject({
      error: "FORBIDDEN_ROLE",
    });
    expect(
      await json(await call("GET", `/api/reviews/${review.id}/grade`, { cookie: stranger.cookie }), 404),
    ).toMatchObject({ error: "REVIEW_NOT_FOUND" });
    expect(await json(await call("PUT", url, { cookie: stranger.cookie, body }), 404)).toMatchObject({
      error: "REVIEW_NOT_FOUND",
    });
    expect((await call("GET", `/api/reviews/${review.id}/grade`)).status).toBe(401);

    // Bad input: no justification, a rate-up reason twice, a risk outside (0, 1), unknown fields, unknown outcome.
    const bad = async (b: unknown) =>
      (await json<{ error: string }>(await call("PUT", url, { cookie: owner.cookie, body: b }), 400)).error;
    expect(await bad({ rating: { overrides: { imprecision: { downgrade: -1, justification: " " } } } })).toBe(
      "INVALID_INPUT",
    );
    expect(await bad({ rating: { rateUp: [body.rating.rateUp[0], body.rating.rateUp[0]] } })).toBe("INVALID_INPUT");
    expect(await bad({ assumedControlRisk: 1.5 })).toBe("INVALID_INPUT");
    expect(await bad({ rating: { overrides: { design: { downgrade: -1, justification: "x" } } } })).toBe(
      "INVALID_INPUT",
    );
    expect(
      await json(await call("PUT", `/api/reviews/${review.id}/grade/999999`, { cookie: owner.cookie, body }), 404),
    ).toMatchObject({ error: "OUTCOME_NOT_FOUND" });
    expect((await call("POST", url, { cookie: owner.cookie, body })).status).toBe(405);

    const exported = await json<{ gradeSettings: ApiGradeSettings[] }>(
      await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie: owner.cookie }),
      200,
    );
    expect(exported.gradeSettings.map((g) => [g.outcome, g.assumedControlRisk, g.rating.rateUp.length])).toEqual([
      ["mortality", 0.15, 1],
    ]);

    expect((await call("DELETE", url, { cookie: owner.cookie })).status).toBe(204);
    expect(await json(await call("DELETE", url, { cookie: owner.cookie }), 404)).toMatchObject({
      error: "GRADE_SETTINGS_NOT_FOUND",
    });
    expect(
      (
        await json<{ settings: ApiGradeSettings[] }>(
          await call("GET", `/api/reviews/${review.id}/grade`, { cookie: owner.cookie }),
          200,
        )
      ).settings,
    ).toEqual([]);
  });
});
