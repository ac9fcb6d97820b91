import { describe, expect, it } from "vitest";
import { gradeAnalysis } from "~/lib/meta-analysis/grade";
import { riskOfBiasColumn } from "~/lib/review-analysis";
import type { ApiReview } from "~/lib/reviews";
import { judgementsByOutcome } from "~/lib/risk-of-bias/job-inputs";
import type { ApiRobDualStudy, RobAgreement } from "~/lib/risk-of-bias/dual";
import type { ApiRobOverview } from "~/lib/risk-of-bias/types";
import type { ApiActivityEntry, ApiMember } from "~/lib/team";
import { call, json, signUp, type Account } from "../helpers";
import { newReview, join, includeAll, addOutcome, roleMatrixFailures, type RouteCase } from "../reviews/team-helpers";

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
/** D1 high (allocation not concealed): overall high. */
const HIGH = { ...LOW, "1.2": "N" };
/** D1 some concerns (sequence not random): overall some concerns. */
const SOME = { ...LOW, "1.1": "N" };

const submitPath = (reviewId: string, recordId: number, outcomeId: number) =>
  `/api/reviews/${reviewId}/risk-of-bias/${recordId}/${outcomeId}/submission`;
const consensusPath = (reviewId: string, recordId: number, outcomeId: number) =>
  `/api/reviews/${reviewId}/risk-of-bias/${recordId}/${outcomeId}/consensus`;

describe("dual RoB 2 assessment routes check membership and role", () => {
  it(
    "role × route: allowed roles pass, a viewer gets 403 FORBIDDEN_ROLE for writes, a reviewer for the consensus unless named resolver, a non-member 404 REVIEW_NOT_FOUND",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const reviewer = await signUp();
      const viewer = await signUp();
      const stranger = await signUp("pro");
      const { review, recordIds } = await newReview(owner, 2);
      await join(owner, review.id, reviewer, "reviewer");
      await join(owner, review.id, viewer, "viewer");
      await includeAll(recordIds);
      const outcome = await addOutcome(owner, review.id);
      const id = review.id;
      const [r0, r1] = recordIds as [number, number];
      const cases: RouteCase[] = [
        { need: "owner", method: "PATCH", path: `/api/reviews/${id}`, body: { riskOfBias: { mode: "dual" } } },
        // Reviewer, then owner submit (the loop's order): both are in afterwards.
        {
          need: "write",
          method: "POST",
          path: submitPath(id, r0, outcome.id),
          body: { variant: "assignment", answers: LOW },
        },
        {
          need: "owner",
          method: "POST",
          path: consensusPath(id, r0, outcome.id),
          body: { variant: "assignment", answers: LOW },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/risk-of-bias` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/agreement` },
        {
          need: "read",
          method: "GET",
          path: `/api/reviews/${id}/risk-of-bias/export?outcomeId=${outcome.id}&format=audit`,
        },
        {
          need: "read",
          method: "GET",
          path: `/api/reviews/${id}/risk-of-bias/export?outcomeId=${outcome.id}&format=csv`,
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/export?format=json` },
      ];
      expect(await roleMatrixFailures(cases, { owner, reviewer, viewer, stranger })).toEqual([]);
      // A reviewer named resolver may record the consensus.
      await json(
        await call("PATCH", `/api/reviews/${id}/members/${reviewer.userId}`, {
          cookie: owner.cookie,
          body: { resolver: true },
        }),
        200,
      );
      const byResolver = await json<{ study: ApiRobDualStudy }>(
        await call("POST", consensusPath(id, r0, outcome.id), {
          cookie: reviewer.cookie,
          body: { variant: "assignment", answers: HIGH },
        }),
        200,
      );
      expect(byResolver.study.consensus).toMatchObject({
        email: reviewer.email,
        assessment: { final: { overall: "high" } },
      });
      // The single-mode route is refused in dual mode, for everyone who may write.
      for (const who of [owner, reviewer]) {
        expect(
          await json(
            await call("PUT", `/api/reviews/${id}/risk-of-bias/${r1}/${outcome.id}`, {
              cookie: who.cookie,
              body: { variant: "assignment", answers: LOW },
            }),
            409,
          ),
        ).toMatchObject({ error: "ROB_DUAL_MODE" });
        expect(
          await json(
            await call("DELETE", `/api/reviews/${id}/risk-of-bias/${r0}/${outcome.id}`, { cookie: who.cookie }),
            409,
          ),
        ).toMatchObject({ error: "ROB_DUAL_MODE" });
      }
      // Signed out: 401; GET on the POST routes: 405; bad bodies: 400.
      expect(
        (await call("POST", submitPath(id, r1, outcome.id), { body: { variant: "assignment", answers: LOW } })).status,
      ).toBe(401);
      expect((await call("GET", submitPath(id, r1, outcome.id), { cookie: owner.cookie })).status).toBe(405);
      expect((await call("GET", consensusPath(id, r1, outcome.id), { cookie: owner.cookie })).status).toBe(405);
      expect(
        await json(
          await call("POST", submitPath(id, r1, outcome.id), {
            cookie: owner.cookie,
            body: { variant: "assignment", answers: { ...LOW, "9.9": "Y" } },
          }),
          400,
        ),
      ).toMatchObject({ error: "INVALID_INPUT" });
      expect(
        await json(
          await call("POST", submitPath(id, r1, outcome.id), {
            cookie: owner.cookie,
            body: { variant: "assignment", answers: { ...LOW, "5.3": undefined } },
          }),
          400,
        ),
      ).toMatchObject({ error: "ANSWERS_INCOMPLETE" });
      expect(
        await json(
          await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { riskOfBias: { mode: "triple" } } }),
          400,
        ),
      ).toMatchObject({ error: "INVALID_INPUT" });
      expect(
        await json(
          await call("POST", submitPath(id, 999_999_999, outcome.id), {
            cookie: owner.cookie,
            body: { variant: "assignment", answers: LOW },
          }),
          404,
        ),
      ).toMatchObject({ error: "RECORD_NOT_FOUND" });
      expect(
        await json(
          await call("POST", submitPath(id, r1, 999_999_999), {
            cookie: owner.cookie,
            body: { variant: "assignment", answers: LOW },
          }),
          404,
        ),
      ).toMatchObject({ error: "OUTCOME_NOT_FOUND" });
    },
  );
});

describe("dual RoB 2 assessment", () => {
  it(
    "blind until both are in, differences, lock, third assessor, consensus with history used by the plots, RoB column and GRADE; agreement; exports; activity",
    { timeout: 150_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const c = await signUp();
      const viewer = await signUp();
      const { review, recordIds } = await newReview(owner, 3);
      for (const m of [a, b, c]) await join(owner, review.id, m, "reviewer");
      await join(owner, review.id, viewer, "viewer");
      const [r0, r1, r2] = recordIds as [number, number, number];
      await includeAll([r0, r1]);
      const outcome = await addOutcome(owner, review.id);
      const id = review.id;
      const base = `/api/reviews/${id}/risk-of-bias`;
      const submit = (who: Account, recordId: number, body: unknown) =>
        call("POST", submitPath(id, recordId, outcome.id), { cookie: who.cookie, body });
      const consensus = (who: Account, recordId: number, body: unknown) =>
        call("POST", consensusPath(id, recordId, outcome.id), { cookie: who.cookie, body });
      const overview = async (who: Account) =>
        json<ApiRobOverview>(await call("GET", base, { cookie: who.cookie }), 200);

      // Single mode: submissions are refused; the owner's single assessment is the one in use.
      expect(await json(await submit(a, r0, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "ROB_NOT_DUAL",
      });
      await json(
        await call("PUT", `${base}/${r1}/${outcome.id}`, {
          cookie: owner.cookie,
          body: { variant: "assignment", answers: SOME },
        }),
        201,
      );
      expect((await overview(viewer)).assessments.map((x) => x.recordId)).toEqual([r1]);
      expect((await overview(viewer)).mode).toBe("single");

      // Dual mode: the pre-switch assessment is not a consensus, so nothing is in use yet.
      const patched = await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { riskOfBias: { mode: "dual" } } }),
        200,
      );
      expect(patched.review.riskOfBias).toEqual({ mode: "dual" });
      expect(patched.review.extraction).toEqual({ mode: "single" });
      expect((await overview(viewer)).assessments).toEqual([]);

      // A submits (high: allocation not concealed), with a distinctive support text.
      const SECRET = "SECRET-A-QUOTE-7d1f";
      const aBody = { variant: "assignment", answers: HIGH, support: { "1.2": { text: SECRET, quotes: [] } } };
      const first = await json<{ study: ApiRobDualStudy }>(await submit(a, r0, aBody), 201);
      expect(first.study).toMatchObject({
        recordId: r0,
        outcomeId: outcome.id,
        mine: true,
        revealed: false,
        differing: null,
        consensus: null,
      });
      expect(first.study.submissions[0]!.assessment).toMatchObject({
        final: { D1: "high", overall: "high" },
        support: { "1.2": { text: SECRET } },
      });
      // A may re-submit while alone.
      await json(await submit(a, r0, aBody), 201);
      // Nobody else sees A's answers on any route before B submits.
      const readers = [b, owner, viewer, c];
      for (const who of readers) {
        const o = await overview(who);
        expect(o.dual).toHaveLength(1);
        expect(o.dual![0]).toMatchObject({ mine: false, revealed: false, differing: null, consensus: null });
        expect(o.dual![0]!.submissions).toEqual([
          expect.objectContaining({ userId: a.userId, email: a.email, assessment: null }),
        ]);
        const routes = [
          `${base}`,
          `/api/reviews/${id}/export?format=json`,
          `${base}/export?outcomeId=${outcome.id}&format=audit`,
          `${base}/export?outcomeId=${outcome.id}&format=csv`,
          `/api/reviews/${id}/activity?limit=50`,
          `/api/reviews/${id}/agreement`,
          `/api/reviews/${id}/outcomes/${outcome.id}`,
        ];
        for (const path of routes) {
          const res = await call("GET", path, { cookie: who.cookie });
          const text = await res.text();
          expect(res.status, path).toBe(200);
          expect(text, `${path} leaks A's support`).not.toContain(SECRET);
          expect(text, `${path} leaks A's judgement`).not.toMatch(/"(D1|overall)":\s*"high"|,High,/);
        }
      }
      // No consensus before both are in.
      expect(await json(await consensus(owner, r0, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "ASSESSMENT_INCOMPLETE",
      });

      // B submits (low): both are revealed to every member, with the differences.
      const second = await json<{ study: ApiRobDualStudy }>(
        await submit(b, r0, { variant: "assignment", answers: LOW }),
        201,
      );
      expect(second.study.revealed).toBe(true);
      expect(second.study.differing).toEqual({ variant: false, questions: ["1.2"], judgements: ["D1", "overall"] });
      for (const who of [viewer, owner, c]) {
        const o = await overview(who);
        expect(o.dual![0]!.submissions.map((s) => s.assessment?.final.overall)).toEqual(["high", "low"]);
        expect(o.dual![0]!.submissions[0]!.assessment!.support["1.2"]!.text).toBe(SECRET);
      }
      // Locked after both; a third reviewer is refused; only included studies.
      expect(await json(await submit(a, r0, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "ASSESSMENT_LOCKED",
      });
      expect(await json(await submit(c, r0, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "ASSESSMENTS_COMPLETE",
      });
      expect(await json(await submit(a, r2, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "RECORD_NOT_INCLUDED",
      });
      // A reviewer who is not a resolver cannot record the consensus.
      expect(await json(await consensus(c, r0, { variant: "assignment", answers: LOW }), 403)).toMatchObject({
        error: "FORBIDDEN_ROLE",
      });

      // The owner records a consensus (some concerns), then C, named resolver, a later one (high): history kept.
      await json(await consensus(owner, r0, { variant: "assignment", answers: SOME }), 200);
      expect((await overview(viewer)).assessments).toEqual([
        expect.objectContaining({
          recordId: r0,
          assessedBy: owner.email,
          final: expect.objectContaining({ D1: "some_concerns", overall: "some_concerns" }),
        }),
      ]);
      await json(
        await call("PATCH", `/api/reviews/${id}/members/${c.userId}`, {
          cookie: owner.cookie,
          body: { resolver: true },
        }),
        200,
      );
      const why = { judgement: "high", justification: "Allocation concealment unclear after discussion." };
      const later = await json<{ study: ApiRobDualStudy }>(
        await consensus(c, r0, { variant: "assignment", answers: SOME, overrides: { D1: why } }),
        200,
      );
      expect(later.study.consensus).toMatchObject({
        userId: c.userId,
        email: c.email,
        assessment: {
          proposed: { D1: "some_concerns" },
          final: { D1: "high", overall: "high" },
          overrides: { D1: why },
        },
      });
      expect(later.study.history).toEqual([
        expect.objectContaining({
          email: owner.email,
          assessment: expect.objectContaining({ final: expect.objectContaining({ overall: "some_concerns" }) }),
        }),
      ]);

      // Study r1: A and B agree (low); the owner records the agreed assessment as the consensus.
      await json(await submit(b, r1, { variant: "assignment", answers: LOW }), 201);
      await json(await submit(a, r1, { variant: "assignment", answers: LOW }), 201);
      const agreed = await json<{ study: ApiRobDualStudy }>(
        await consensus(owner, r1, { variant: "assignment", answers: LOW }),
        200,
      );
      expect(agreed.study.differing).toEqual({ variant: false, questions: [], judgements: [] });

      // The analysis reads the consensus: the assessments in use, the RoB column, GRADE, the robvis CSV and plots.
      const o = await overview(viewer);
      expect(o.assessments.map((x) => [x.recordId, x.final.overall]).sort()).toEqual(
        [
          [r0, "high"],
          [r1, "low"],
        ].sort(),
      );
      expect(judgementsByOutcome(o)).toEqual({
        Response: {
          [String(r0)]: expect.objectContaining({ D1: "high", overall: "high" }),
          [String(r1)]: expect.objectContaining({ overall: "low" }),
        },
      });
      expect(riskOfBiasColumn(o.assessments, outcome.id, [r0, r1])?.values).toEqual(["High", "Low"]);
      const rob = judgementsByOutcome(o).Response!;
      const grade = gradeAnalysis({
        measure: "RR",
        k: 2,
        ci_lb: -0.5,
        ci_ub: -0.1,
        pi_lb: -0.6,
        pi_ub: 0,
        I2: 0,
        egger: null,
        rows: [r0, r1].map(() => ({
          design: "RCT",
          totalN: 500,
          data: { kind: "binary", events1: 50, n1: 250, events2: 80, n2: 250 } as never,
        })),
        riskOfBias: [rob[String(r0)]!.overall, rob[String(r1)]!.overall],
      });
      // Consensus high + low at equal weight: mean score 1 → rated down one level (B's low for r0 would give none).
      expect(grade.judgements.find((j) => j.domain === "risk of bias")?.downgrade).toBe(-1);
      const robvis = await (
        await call("GET", `${base}/export?outcomeId=${outcome.id}&format=csv`, { cookie: viewer.cookie })
      ).text();
      expect(
        robvis
          .split("\r\n")
          .filter((l) => l && !l.startsWith("Study"))
          .map((l) => l.split(",").slice(1, 7).join("|"))
          .sort(),
      ).toEqual(["High|Low|Low|Low|Low|High", "Low|Low|Low|Low|Low|Low"]);

      // Agreement: per domain and overall over the two pairs (rows: the first submitted).
      const agreement = await json<{ riskOfBias: RobAgreement; titleAbstract: { n: number } }>(
        await call("GET", `/api/reviews/${id}/agreement`, { cookie: viewer.cookie }),
        200,
      );
      expect(agreement.titleAbstract).toBeDefined();
      expect(agreement.riskOfBias).toMatchObject({
        n: 2,
        weighting: "unweighted",
        categories: ["low", "some_concerns", "high"],
      });
      // r0: A high vs B low (A first); r1: B low vs A low (B first).
      expect(agreement.riskOfBias.domains.D1).toMatchObject({
        n: 2,
        agreement: 0.5,
        kappa: 0,
        table: [
          [1, 0, 0],
          [0, 0, 0],
          [1, 0, 0],
        ],
      });
      expect(agreement.riskOfBias.overall).toMatchObject({ n: 2, agreement: 0.5 });
      expect(agreement.riskOfBias.domains.D2).toMatchObject({ n: 2, agreement: 1, kappa: null });

      // Exports: the audit trail (both assessments, who, when, differences, consensus and its history).
      const exported = await json<{
        riskOfBias: { recordId: number; final: { overall: string } }[];
        dualRiskOfBias: {
          recordId: number;
          assessments: { email: string }[];
          differing: unknown;
          consensus: { email: string } | null;
          history: unknown[];
        }[];
      }>(await call("GET", `/api/reviews/${id}/export?format=json`, { cookie: viewer.cookie }), 200);
      expect(exported.riskOfBias.map((x) => [x.recordId, x.final.overall]).sort()).toEqual(
        [
          [r0, "high"],
          [r1, "low"],
        ].sort(),
      );
      const audited = exported.dualRiskOfBias.find((s) => s.recordId === r0)!;
      expect(audited.assessments.map((x) => x.email)).toEqual([a.email, b.email]);
      expect(audited.consensus?.email).toBe(c.email);
      expect(audited.history).toHaveLength(1);
      const csv = await (
        await call("GET", `${base}/export?outcomeId=${outcome.id}&format=audit`, { cookie: viewer.cookie })
      ).text();
      const lines = csv.trim().split("\r\n");
      expect(lines[0]).toBe(
        "Outcome,Record ID,Title,Item,Reviewer 1,Value 1,Submitted 1,Reviewer 2,Value 2,Submitted 2,Differs,Consensus,Consensus by,Consensus at,Earlier consensus values",
      );
      const q12 = lines.find((l) => l.includes(`,${r0},`) && l.includes(",1.2,"))!;
      expect(q12).toContain(`,${a.email},N,`);
      expect(q12).toContain(`,${b.email},Y,`);
      expect(q12).toMatch(new RegExp(`,yes,Y,${c.email.replace(/[.]/g, "\\.")},`));
      const d1 = lines.find((l) => l.includes(`,${r0},`) && l.includes(",D1,"))!;
      expect(d1).toContain(",High,");
      expect(d1).toContain(`Some concerns (${owner.email}`);

      // Activity: submissions and consensus, without answers.
      const activity = await json<{ entries: ApiActivityEntry[] }>(
        await call("GET", `/api/reviews/${id}/activity?limit=100`, { cookie: viewer.cookie }),
        200,
      );
      const robEntries = activity.entries.filter((e) => e.action.startsWith("rob."));
      expect(
        robEntries
          .filter((e) => e.action === "rob.submit")
          .map((e) => e.email)
          .sort(),
      ).toEqual([a.email, a.email, b.email, b.email, a.email].sort());
      expect(robEntries.filter((e) => e.action === "rob.consensus").map((e) => e.email)).toEqual([
        owner.email,
        c.email,
        owner.email,
      ]);
      expect(JSON.stringify(robEntries)).not.toContain(SECRET);
      // A refused submission leaves no entry (the lock above wrote none: 5 accepted submissions).

      // Members' progress counts dual RoB submissions.
      const members = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${id}/members`, { cookie: viewer.cookie }),
        200,
      );
      expect(members.members.find((m) => m.userId === a.userId)?.progress?.assessed).toBe(2);
      expect(members.members.find((m) => m.userId === c.userId)?.progress?.assessed).toBe(0);

      // Back to single mode (the members' progress no longer carries `assessed`): the consensus is the single assessment in use (editable again); no dual state shown.
      await json(
        await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { riskOfBias: { mode: "single" } } }),
        200,
      );
      const afterSwitch = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${id}/members`, { cookie: viewer.cookie }),
        200,
      );
      expect(afterSwitch.members.find((m) => m.userId === a.userId)?.progress).not.toHaveProperty("assessed");
      const single = await overview(viewer);
      expect(single).toMatchObject({ mode: "single", dual: [] });
      expect(single.assessments.map((x) => [x.recordId, x.final.overall]).sort()).toEqual(
        [
          [r0, "high"],
          [r1, "low"],
        ].sort(),
      );
      expect(await json(await submit(a, r1, { variant: "assignment", answers: LOW }), 409)).toMatchObject({
        error: "ROB_NOT_DUAL",
      });
      // A consensus edited in single mode is no longer a consensus when the review goes dual again.
      await json(
        await call("PUT", `${base}/${r1}/${outcome.id}`, {
          cookie: owner.cookie,
          body: { variant: "assignment", answers: SOME },
        }),
        200,
      );
      await json(
        await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { riskOfBias: { mode: "dual" } } }),
        200,
      );
      expect((await overview(viewer)).assessments.map((x) => x.recordId)).toEqual([r0]);
    },
  );

  it(
    "a removed reviewer loses access at once; the blind rule holds for a reviewer who has not submitted",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const { review, recordIds } = await newReview(owner, 1);
      await join(owner, review.id, a, "reviewer");
      await join(owner, review.id, b, "reviewer");
      await includeAll(recordIds);
      const outcome = await addOutcome(owner, review.id);
      await json(
        await call("PATCH", `/api/reviews/${review.id}`, {
          cookie: owner.cookie,
          body: { riskOfBias: { mode: "dual" } },
        }),
        200,
      );
      await json(
        await call("POST", submitPath(review.id, recordIds[0]!, outcome.id), {
          cookie: a.cookie,
          body: { variant: "adhering", answers: { ...LOW, "2.6": undefined, "2.4": "N", "2.5": "N" } },
        }),
        201,
      );
      const seen = await json<ApiRobOverview>(
        await call("GET", `/api/reviews/${review.id}/risk-of-bias`, { cookie: b.cookie }),
        200,
      );
      expect(seen.dual![0]!.submissions[0]!.assessment).toBeNull();
      expect(JSON.stringify(seen)).not.toContain("adhering");
      await json(await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: owner.cookie }), 200);
      expect(
        await json(await call("GET", `/api/reviews/${review.id}/risk-of-bias`, { cookie: b.cookie }), 404),
      ).toMatchObject({ error: "REVIEW_NOT_FOUND" });
      expect(
        await json(
          await call("POST", submitPath(review.id, recordIds[0]!, outcome.id), {
            cookie: b.cookie,
            body: { variant: "assignment", answers: LOW },
          }),
          404,
        ),
      ).toMatchObject({ error: "REVIEW_NOT_FOUND" });
    },
  );
});
