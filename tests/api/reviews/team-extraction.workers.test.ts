import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { type Account, call, json, signUp, statusAndError } from "../helpers";
import { reviewDigests } from "../../../db/schema";
import type { DualExtractionStudy } from "~/lib/dual-extraction";
import type { ReviewOutcomeExtraction } from "~/lib/review-extraction";
import type { ApiReview } from "~/lib/reviews";
import type { ApiActivityEntry, ApiMember } from "~/lib/team";
import { getLoadContext } from "~/.server/context";
import { createDb } from "~/.server/db/client";
import { sendConflictDigests } from "~/.server/reviews/digest";
import { newReview, join, includeAll, addOutcome, roleMatrixFailures, type RouteCase } from "./team-helpers";

const db = () => createDb(env.DB);

const arm = (events: number | null, groupSize: number | null) => ({ events, groupSize, mean: null, sd: null });

describe("dual extraction, activity and digest routes check membership and role", () => {
  it(
    "role × route: allowed roles pass, a viewer gets 403 FORBIDDEN_ROLE for writes, a non-member 404 REVIEW_NOT_FOUND",
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
      const values = { intervention: arm(5, 20), comparator: arm(9, 21) };
      const cases: RouteCase[] = [
        { need: "owner", method: "PATCH", path: `/api/reviews/${id}`, body: { extraction: { mode: "dual" } } },
        {
          need: "write",
          method: "POST",
          path: `/api/reviews/${id}/outcomes/${outcome.id}/submissions`,
          body: { recordId: recordIds[0], values },
        },
        // Reviewer and owner have submitted now; only the owner (no resolver named) records consensus.
        {
          need: "owner",
          method: "POST",
          path: `/api/reviews/${id}/outcomes/${outcome.id}/consensus`,
          body: { recordId: recordIds[0], cells: [{ arm: "intervention", field: "events", value: 5 }] },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/activity?limit=5` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/digest` },
        { need: "read", method: "PUT", path: `/api/reviews/${id}/digest`, body: { enabled: true } },
        { need: "read", method: "GET", path: `/api/reviews/${id}/export?format=extraction` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/outcomes/${outcome.id}` },
      ];
      expect(await roleMatrixFailures(cases, { owner, reviewer, viewer, stranger })).toEqual([]);
      // Signed out: 401; other methods: 405.
      expect((await call("GET", `/api/reviews/${id}/activity`)).status).toBe(401);
      expect(
        (await call("GET", `/api/reviews/${id}/outcomes/${outcome.id}/consensus`, { cookie: owner.cookie })).status,
      ).toBe(405);
      expect((await call("DELETE", `/api/reviews/${id}/digest`, { cookie: owner.cookie })).status).toBe(405);
    },
  );
});

describe("dual extraction", () => {
  it(
    "two blind extractions per study, differing cells, consensus by the owner or a resolver, consensus values in analysis and exports",
    { timeout: 120_000 },
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
      const base = `/api/reviews/${review.id}/outcomes/${outcome.id}`;
      const submit = (who: Account, recordId: number, values: unknown) =>
        call("POST", `${base}/submissions`, { cookie: who.cookie, body: { recordId, values } });
      const mineA = { intervention: arm(98765, 50), comparator: arm(10, 50) };
      const mineB = { intervention: arm(43, 50), comparator: arm(10, 51) };

      // Single mode: no submissions.
      expect(await statusAndError(await submit(a, r0, mineA))).toEqual({ status: 409, error: "EXTRACTION_NOT_DUAL" });
      const patched = await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${review.id}`, {
          cookie: owner.cookie,
          body: { extraction: { mode: "dual" } },
        }),
        200,
      );
      expect(patched.review.extraction).toEqual({ mode: "dual" });
      expect(patched.review.screening.mode).toBe("single");
      expect(
        await statusAndError(
          await call("PATCH", `/api/reviews/${review.id}`, {
            cookie: owner.cookie,
            body: { extraction: { mode: "triple" } },
          }),
        ),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });

      // Bad input, a study not included at full text.
      expect(await statusAndError(await submit(a, r0, { intervention: arm(1.5, 50), comparator: arm(1, 50) }))).toEqual(
        { status: 400, error: "INVALID_INPUT" },
      );
      expect(await statusAndError(await submit(a, r0, { intervention: arm(1, 50) }))).toEqual({
        status: 400,
        error: "INVALID_INPUT",
      });
      expect(await statusAndError(await submit(a, r2, mineA))).toEqual({ status: 409, error: "NOT_INCLUDED" });
      expect(await statusAndError(await submit(a, 999_999_999, mineA))).toEqual({
        status: 404,
        error: "RECORD_NOT_FOUND",
      });

      // A submits; A may re-submit while B has not.
      const first = await json<{ study: DualExtractionStudy }>(
        await submit(a, r0, { ...mineA, comparator: arm(11, 50) }),
        201,
      );
      expect(first.study).toMatchObject({ mine: true, revealed: true, differing: [], values: null });
      await json(await submit(a, r0, mineA), 201);

      // Blind: nothing B, the owner or the viewer reads shows A's values before B submits.
      const leaks = async (who: Account) => {
        const texts = [
          await (await call("GET", base, { cookie: who.cookie })).text(),
          await (await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie: who.cookie })).text(),
          await (
            await call("GET", `/api/reviews/${review.id}/export?format=extraction`, { cookie: who.cookie })
          ).text(),
          await (await call("GET", `/api/reviews/${review.id}/activity`, { cookie: who.cookie })).text(),
        ];
        return texts.filter((t) => t.includes("98765")).length;
      };
      for (const who of [b, owner, viewer]) expect(await leaks(who)).toBe(0);
      const seenByB = await json<ReviewOutcomeExtraction>(await call("GET", base, { cookie: b.cookie }), 200);
      expect(seenByB.mode).toBe("dual");
      const pendingForB = seenByB.studies.find((s) => s.recordId === r0)!.dual!;
      expect(pendingForB).toMatchObject({ mine: false, revealed: false, differing: [], consensus: [], values: null });
      expect(pendingForB.submissions).toEqual([
        expect.objectContaining({ userId: a.userId, email: a.email, values: null }),
      ]);
      expect(await leaks(a)).toBeGreaterThan(0);

      // B submits: both revealed to both; two cells differ; no consensus yet.
      const second = await json<{ study: DualExtractionStudy }>(await submit(b, r0, mineB), 201);
      expect(second.study.revealed).toBe(true);
      expect(second.study.submissions.map((s) => [s.userId, s.values])).toEqual([
        [a.userId, mineA],
        [b.userId, mineB],
      ]);
      expect(second.study.differing).toEqual([
        { arm: "intervention", field: "events" },
        { arm: "comparator", field: "groupSize" },
      ]);
      expect(second.study.values).toBeNull();
      // Locked for A, complete for C.
      expect(await statusAndError(await submit(a, r0, mineB))).toEqual({ status: 409, error: "EXTRACTION_LOCKED" });
      expect(await statusAndError(await submit(c, r0, mineB))).toEqual({ status: 409, error: "EXTRACTIONS_COMPLETE" });
      // Consensus: only once both are in, only the owner or a named resolver.
      const consensus = (who: Account, recordId: number, cells: unknown) =>
        call("POST", `${base}/consensus`, { cookie: who.cookie, body: { recordId, cells } });
      expect(
        await statusAndError(await consensus(owner, r1, [{ arm: "intervention", field: "events", value: 1 }])),
      ).toEqual({ status: 409, error: "EXTRACTION_INCOMPLETE" });
      expect(
        await statusAndError(await consensus(a, r0, [{ arm: "intervention", field: "events", value: 43 }])),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect(
        await statusAndError(await consensus(viewer, r0, [{ arm: "intervention", field: "events", value: 43 }])),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect(
        await statusAndError(await consensus(owner, r0, [{ arm: "intervention", field: "sd", value: -1 }])),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });
      const partial = await json<{ study: DualExtractionStudy }>(
        await consensus(owner, r0, [{ arm: "intervention", field: "events", value: 42 }]),
        200,
      );
      expect(partial.study.values).toBeNull();
      expect(partial.study.consensus).toEqual([
        expect.objectContaining({
          arm: "intervention",
          field: "events",
          value: 42,
          userId: owner.userId,
          email: owner.email,
        }),
      ]);
      // A named resolver may record it too; a later value supersedes the earlier one.
      await json(
        await call("PATCH", `/api/reviews/${review.id}/members/${c.userId}`, {
          cookie: owner.cookie,
          body: { resolver: true },
        }),
        200,
      );
      const done = await json<{ study: DualExtractionStudy }>(
        await consensus(c, r0, [
          { arm: "intervention", field: "events", value: 43 },
          { arm: "comparator", field: "groupSize", value: 51 },
        ]),
        200,
      );
      expect(done.study.values).toEqual({ intervention: arm(43, 50), comparator: arm(10, 51) });
      expect(done.study.consensus.map((x) => [x.arm, x.field, x.value, x.email])).toEqual([
        ["intervention", "events", 43, c.email],
        ["comparator", "groupSize", 51, c.email],
      ]);
      // The viewer sees the settled study (both in).
      const seenByViewer = await json<ReviewOutcomeExtraction>(await call("GET", base, { cookie: viewer.cookie }), 200);
      expect(seenByViewer.studies.find((s) => s.recordId === r0)!.dual!.values).toEqual({
        intervention: arm(43, 50),
        comparator: arm(10, 51),
      });
      expect(seenByViewer.studies.find((s) => s.recordId === r1)!.dual!.values).toBeNull();

      // Exports: the JSON and the extraction CSV carry both values, the consensus value and its audit trail.
      const exported = JSON.parse(
        await (await call("GET", `/api/reviews/${review.id}/export?format=json`, { cookie: viewer.cookie })).text(),
      ) as {
        dualExtraction: {
          recordId: number;
          arm: string;
          field: string;
          extractions: { email: string; value: number | null }[];
          differs: boolean;
          consensusHistory: { email: string; value: number }[];
          consensus: number | null;
          settled: boolean;
        }[];
      };
      const cell = exported.dualExtraction.find(
        (r) => r.recordId === r0 && r.arm === "intervention" && r.field === "events",
      )!;
      expect(cell).toMatchObject({ differs: true, consensus: 43, settled: true });
      expect(cell.extractions.map((e) => [e.email, e.value])).toEqual([
        [a.email, 98765],
        [b.email, 43],
      ]);
      expect(cell.consensusHistory.map((h) => [h.email, h.value])).toEqual([
        [owner.email, 42],
        [c.email, 43],
      ]);
      expect(
        exported.dualExtraction.find((r) => r.recordId === r0 && r.arm === "comparator" && r.field === "events"),
      ).toMatchObject({ differs: false, consensus: 10, settled: true });
      expect(exported.dualExtraction).toHaveLength(8);
      const csv = await (
        await call("GET", `/api/reviews/${review.id}/export?format=extraction`, { cookie: owner.cookie })
      ).text();
      expect(csv.split("\r\n")[0]).toContain("Consensus by");
      expect(csv).toContain(`Response,${r0},`);
      const line = csv.split("\r\n").find((l) => l.includes("intervention,events"))!;
      expect(line).toContain(`,${a.email},98765,`);
      expect(line).toContain(`,${b.email},43,`);
      expect(line).toContain(`,yes,43,${c.email},`);
      expect(csv).toContain(`42 (${owner.email},`);

      // Per-reviewer progress: extracted.
      const members = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${review.id}/members`, { cookie: a.cookie }),
        200,
      );
      const progress = Object.fromEntries(members.members.map((m) => [m.email, m.progress?.extracted]));
      expect(progress).toMatchObject({ [a.email]: 1, [b.email]: 1, [c.email]: 0, [owner.email]: 0 });

      // The activity log: submissions, consensus, settings, member changes, in order.
      const log = await json<{ entries: ApiActivityEntry[] }>(
        await call("GET", `/api/reviews/${review.id}/activity?limit=100`, { cookie: viewer.cookie }),
        200,
      );
      const actions = log.entries.map((e) => [e.action, e.email]);
      expect(actions.slice(0, 7)).toEqual([
        ["extraction.consensus", c.email],
        ["member.update", owner.email],
        ["extraction.consensus", owner.email],
        ["extraction.submit", b.email],
        ["extraction.submit", a.email],
        ["extraction.submit", a.email],
        ["settings", owner.email],
      ]);
      expect(log.entries[0]!.recordTitle).toBeTruthy();
      // Refused actions wrote no entry (the locked, complete and forbidden attempts above).
      expect(log.entries.filter((e) => e.action === "extraction.submit")).toHaveLength(3);
    },
  );
});

describe("activity log", () => {
  it(
    "records votes, resolutions, member changes and imports; pages by cursor; blind votes read 'voted' until the reader has voted",
    { timeout: 120_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const { review, recordIds } = await newReview(owner, 4);
      await join(owner, review.id, a, "reviewer");
      await join(owner, review.id, b, "reviewer");
      await json(
        await call("PATCH", `/api/reviews/${review.id}`, {
          cookie: owner.cookie,
          body: { screening: { mode: "dual", blind: true } },
        }),
        200,
      );
      const [r0] = recordIds as [number];
      const vote = (who: Account, decision: string) =>
        call("POST", `/api/reviews/${review.id}/records/${r0}/decision`, {
          cookie: who.cookie,
          body: { stage: "title_abstract", decision },
        });
      const activity = async (who: Account, query = "limit=100") =>
        json<{ entries: ApiActivityEntry[]; nextCursor: string | null }>(
          await call("GET", `/api/reviews/${review.id}/activity?${query}`, { cookie: who.cookie }),
          200,
        );

      expect((await vote(a, "include")).status).toBe(200);
      const voteOf = (entries: ApiActivityEntry[], who: Account) =>
        entries.find((e) => e.action === "vote" && e.userId === who.userId);
      // B (and the owner, who could still vote) see only that A voted.
      for (const who of [b, owner]) {
        const entry = voteOf((await activity(who)).entries, a)!;
        expect(entry.detail).toEqual({ stage: "title_abstract" });
        expect(JSON.stringify(entry)).not.toContain("include");
      }
      expect(voteOf((await activity(a)).entries, a)!.detail).toMatchObject({
        stage: "title_abstract",
        decision: "include",
      });
      // Once B has voted, B sees A's decision; so does the owner (both votes cast).
      expect((await vote(b, "exclude")).status).toBe(200);
      expect(voteOf((await activity(b)).entries, a)!.detail).toMatchObject({ decision: "include" });
      expect(voteOf((await activity(owner)).entries, a)!.detail).toMatchObject({ decision: "include" });
      // A third vote is refused and leaves no entry.
      expect((await vote(owner, "include")).status).toBe(409);
      expect((await activity(owner)).entries.filter((e) => e.action === "vote")).toHaveLength(2);

      await json(
        await call("POST", `/api/reviews/${review.id}/records/${r0}/resolve`, {
          cookie: owner.cookie,
          body: { stage: "title_abstract", decision: "include" },
        }),
        200,
      );
      await json(
        await call("PATCH", `/api/reviews/${review.id}/members/${b.userId}`, {
          cookie: owner.cookie,
          body: { role: "viewer" },
        }),
        200,
      );
      await json(await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: b.cookie }), 200);
      expect(
        await statusAndError(
          await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: owner.cookie }),
        ),
      ).toEqual({ status: 404, error: "MEMBER_NOT_FOUND" });
      const all = (await activity(owner)).entries;
      expect(all.map((e) => e.action)).toEqual([
        "member.remove",
        "member.update",
        "resolve",
        "vote",
        "vote",
        "settings",
        "member.join",
        "member.invite",
        "member.join",
        "member.invite",
        "import",
      ]);
      expect(all[0]!.detail).toMatchObject({ memberId: b.userId, email: b.email, left: true });
      expect(all[1]!.detail).toMatchObject({ email: b.email, role: "viewer" });
      expect(all[2]!.detail).toMatchObject({ stage: "title_abstract", decision: "include" });
      expect(all.at(-1)!.detail).toMatchObject({ records: 4, kind: "file" });

      // Paging: newest first, by cursor, no overlap, to the end.
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page = await activity(owner, `limit=4${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.entries.length).toBeLessThanOrEqual(4);
        seen.push(...page.entries.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.map((e) => e.id));
      for (const bad of ["limit=0", "limit=101", "cursor=abc", "cursor=-1"]) {
        expect(
          await statusAndError(
            await call("GET", `/api/reviews/${review.id}/activity?${bad}`, { cookie: owner.cookie }),
          ),
        ).toEqual({ status: 400, error: "INVALID_INPUT" });
      }
      // The removed member reads nothing any more.
      expect(
        await statusAndError(await call("GET", `/api/reviews/${review.id}/activity`, { cookie: b.cookie })),
      ).toEqual({ status: 404, error: "REVIEW_NOT_FOUND" });
    },
  );
});

describe("daily digest of conflicts waiting", () => {
  it(
    "opt-in per member, sent once per UTC day from 07:00 while conflicts wait, not to removed members",
    { timeout: 120_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const { review, recordIds } = await newReview(owner, 2);
      await join(owner, review.id, a, "reviewer");
      await join(owner, review.id, b, "reviewer");
      const app = getLoadContext(env as never, { waitUntil: () => {} } as never).app;
      const info = vi.spyOn(console, "info").mockImplementation(() => {});
      try {
        const digest = (who: Account, enabled: boolean) =>
          call("PUT", `/api/reviews/${review.id}/digest`, { cookie: who.cookie, body: { enabled } });
        expect(
          (
            await json<{ digest: { enabled: boolean } }>(
              await call("GET", `/api/reviews/${review.id}/digest`, { cookie: a.cookie }),
              200,
            )
          ).digest,
        ).toEqual({ enabled: false, lastSentDay: null });
        expect(await statusAndError(await digest(a, "yes" as never))).toEqual({ status: 400, error: "INVALID_INPUT" });
        await json(await digest(owner, true), 200);
        await json(await digest(a, true), 200);
        const day = Date.UTC(2031, 0, 15, 8, 0);
        const mine = (report: { due: number }) => report.due;
        // Enabled but no conflicts: not due.
        expect(mine(await sendConflictDigests(app, { now: day }))).toBe(0);
        // A conflict.
        await json(
          await call("PATCH", `/api/reviews/${review.id}`, {
            cookie: owner.cookie,
            body: { screening: { mode: "dual" } },
          }),
          200,
        );
        await json(
          await call("POST", `/api/reviews/${review.id}/records/${recordIds[0]}/decision`, {
            cookie: a.cookie,
            body: { stage: "title_abstract", decision: "include" },
          }),
          200,
        );
        await json(
          await call("POST", `/api/reviews/${review.id}/records/${recordIds[0]}/decision`, {
            cookie: b.cookie,
            body: { stage: "title_abstract", decision: "exclude" },
          }),
          200,
        );
        const stored = () => db().select().from(reviewDigests).where(eq(reviewDigests.reviewId, review.id));
        // Before 07:00 UTC: not yet.
        expect((await sendConflictDigests(app, { now: Date.UTC(2031, 0, 15, 6, 59) })).due).toBe(0);
        const sent = await sendConflictDigests(app, { now: day });
        expect(sent).toMatchObject({ due: 2, logged: 2, failed: 0 });
        expect((await stored()).map((d) => [d.userId, d.lastSentDay]).sort()).toEqual(
          [
            [owner.userId, "2031-01-15"],
            [a.userId, "2031-01-15"],
          ].sort(),
        );
        const printed = info.mock.calls.map((args) => String(args[0])).filter((m) => m.includes("[conflicts digest]"));
        expect(
          printed.some(
            (m) =>
              m.includes(a.email) &&
              m.includes("1 screening conflict waiting") &&
              m.includes(`/reviews/${review.id}?tab=team`),
          ),
        ).toBe(true);
        // Idempotent within the day; due again the next day.
        expect((await sendConflictDigests(app, { now: day + 3 * 3600_000 })).due).toBe(0);
        // B opts in; A opts out and the owner removes B: nobody but the owner gets the next day's digest.
        await json(await digest(b, true), 200);
        await json(await digest(a, false), 200);
        await json(
          await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: owner.cookie }),
          200,
        );
        expect(await sendConflictDigests(app, { now: day + 86_400_000 })).toMatchObject({ due: 1, logged: 1 });
        const [ownerRow] = await db()
          .select()
          .from(reviewDigests)
          .where(and(eq(reviewDigests.reviewId, review.id), eq(reviewDigests.userId, owner.userId)));
        expect(ownerRow!.lastSentDay).toBe("2031-01-16");
      } finally {
        info.mockRestore();
      }
    },
  );
});
