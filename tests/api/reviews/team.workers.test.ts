import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Account, BASE, call, json, signUp, statusAndError } from "../helpers";
import { reviewInvitations } from "../../../db/schema";
import type { ApiReview, ApiReviewRecord, ReviewPrisma, ScreeningNext } from "~/lib/reviews";
import type { ApiConflict, ApiMember } from "~/lib/team";
import { createDb } from "~/.server/db/client";
import { ris, newReview, invite, join } from "./team-helpers";

const db = () => createDb(env.DB);

describe("invitations and members", () => {
  it(
    "invites by e-mail with a single-use 7-day token that only the invited account can accept",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const invited = await signUp("free");
      const other = await signUp();
      const { review } = await newReview(owner, 2);

      const before = Date.now();
      const invitation = await invite(owner, review.id, invited.email.toUpperCase(), "reviewer");
      expect(invitation).toMatchObject({ email: invited.email, role: "reviewer" });
      expect(invitation.debugToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(invitation.url).toBe(`${BASE}/invitations/${invitation.debugToken}`);
      const ttl = Date.parse(invitation.expiresAt) - before;
      expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
      expect(ttl).toBeLessThanOrEqual(7 * 86_400_000 + 1000);
      // Only the hash is stored.
      const [stored] = await db().select().from(reviewInvitations).where(eq(reviewInvitations.id, invitation.id));
      expect(stored!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored!.tokenHash).not.toContain(invitation.debugToken!);

      // Pending invitations appear after the owner.
      const pending = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${review.id}/members`, { cookie: owner.cookie }),
        200,
      );
      expect(pending.members.map((m) => [m.userId, m.email, m.role, m.status])).toEqual([
        [owner.userId, owner.email, "owner", "active"],
        [null, invited.email, "reviewer", "invited"],
      ]);

      expect((await call("POST", `/api/invitations/${invitation.debugToken}/accept`)).status).toBe(401);
      expect(
        await statusAndError(
          await call("POST", `/api/invitations/${invitation.debugToken}/accept`, { cookie: other.cookie }),
        ),
      ).toEqual({ status: 403, error: "INVITATION_EMAIL_MISMATCH" });
      expect(
        await statusAndError(await call("POST", `/api/invitations/not-a-token/accept`, { cookie: invited.cookie })),
      ).toEqual({ status: 404, error: "INVITATION_NOT_FOUND" });
      // The other account's failed attempt did not use it up.
      const accepted = await json<{ review: ApiReview; role: string }>(
        await call("POST", `/api/invitations/${invitation.debugToken}/accept`, { cookie: invited.cookie }),
        200,
      );
      expect(accepted.role).toBe("reviewer");
      expect(accepted.review).toMatchObject({ id: review.id, role: "reviewer", resolver: false });
      expect(
        await statusAndError(
          await call("POST", `/api/invitations/${invitation.debugToken}/accept`, { cookie: invited.cookie }),
        ),
      ).toEqual({ status: 410, error: "INVITATION_GONE" });

      // A Free account sees the shared review in its list beside its own.
      const list = await json<{ reviews: ApiReview[] }>(
        await call("GET", "/api/reviews", { cookie: invited.cookie }),
        200,
      );
      expect(list.reviews.map((r) => [r.id, r.role])).toEqual([[review.id, "reviewer"]]);
      const members = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${review.id}/members`, { cookie: invited.cookie }),
        200,
      );
      expect(members.members.map((m) => [m.userId, m.role, m.status])).toEqual([
        [owner.userId, "owner", "active"],
        [invited.userId, "reviewer", "active"],
      ]);

      // Already on the team; an expired invitation is gone.
      expect(
        await statusAndError(
          await call("POST", `/api/reviews/${review.id}/members`, {
            cookie: owner.cookie,
            body: { email: invited.email, role: "viewer" },
          }),
        ),
      ).toEqual({ status: 409, error: "ALREADY_MEMBER" });
      expect(
        await statusAndError(
          await call("POST", `/api/reviews/${review.id}/members`, {
            cookie: owner.cookie,
            body: { email: owner.email, role: "viewer" },
          }),
        ),
      ).toEqual({ status: 409, error: "ALREADY_MEMBER" });
      const late = await invite(owner, review.id, other.email, "viewer");
      await db()
        .update(reviewInvitations)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(reviewInvitations.id, late.id));
      expect(
        await statusAndError(
          await call("POST", `/api/invitations/${late.debugToken}/accept`, { cookie: other.cookie }),
        ),
      ).toEqual({ status: 410, error: "INVITATION_GONE" });
      // A new invitation of the same e-mail replaces the older pending one.
      const first = await invite(owner, review.id, other.email, "viewer");
      const second = await invite(owner, review.id, other.email, "reviewer");
      expect(
        await statusAndError(
          await call("POST", `/api/invitations/${first.debugToken}/accept`, { cookie: other.cookie }),
        ),
      ).toEqual({ status: 404, error: "INVITATION_NOT_FOUND" });
      expect(
        (
          await json<{ role: string }>(
            await call("POST", `/api/invitations/${second.debugToken}/accept`, { cookie: other.cookie }),
            200,
          )
        ).role,
      ).toBe("reviewer");

      // Bad bodies.
      for (const body of [
        { email: "nope", role: "reviewer" },
        { email: invited.email, role: "owner" },
        { email: invited.email },
      ]) {
        expect(
          await statusAndError(await call("POST", `/api/reviews/${review.id}/members`, { cookie: owner.cookie, body })),
        ).toEqual({ status: 400, error: "INVALID_INPUT" });
      }
    },
  );

  it(
    "the owner changes roles and removes members, a member leaves, effective on the next request",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const { review, recordIds } = await newReview(owner, 2);
      await join(owner, review.id, a, "reviewer");
      await join(owner, review.id, b, "viewer");

      const decide = (who: Account) =>
        call("POST", `/api/reviews/${review.id}/records/${recordIds[0]}/decision`, {
          cookie: who.cookie,
          body: { stage: "title_abstract", decision: "exclude" },
        });
      expect((await decide(a)).status).toBe(200);
      expect(await statusAndError(await decide(b))).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });

      // Only the owner manages the team.
      expect(
        await statusAndError(
          await call("PATCH", `/api/reviews/${review.id}/members/${b.userId}`, {
            cookie: a.cookie,
            body: { role: "reviewer" },
          }),
        ),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect(
        await statusAndError(
          await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: a.cookie }),
        ),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      expect(
        await statusAndError(
          await call("POST", `/api/reviews/${review.id}/members`, {
            cookie: a.cookie,
            body: { email: "x@example.org", role: "viewer" },
          }),
        ),
      ).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });

      const changed = await json<{ member: ApiMember }>(
        await call("PATCH", `/api/reviews/${review.id}/members/${a.userId}`, {
          cookie: owner.cookie,
          body: { role: "viewer" },
        }),
        200,
      );
      expect(changed.member).toMatchObject({ userId: a.userId, role: "viewer", status: "active" });
      expect(await statusAndError(await decide(a))).toEqual({ status: 403, error: "FORBIDDEN_ROLE" });
      await json(
        await call("PATCH", `/api/reviews/${review.id}/members/${b.userId}`, {
          cookie: owner.cookie,
          body: { role: "reviewer", resolver: true },
        }),
        200,
      );
      expect((await decide(b)).status).toBe(200);
      expect(
        await statusAndError(
          await call("PATCH", `/api/reviews/${review.id}/members/${crypto.randomUUID()}`, {
            cookie: owner.cookie,
            body: { role: "viewer" },
          }),
        ),
      ).toEqual({ status: 404, error: "MEMBER_NOT_FOUND" });
      expect(
        await statusAndError(
          await call("PATCH", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: owner.cookie, body: {} }),
        ),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });

      // Removal: access ends at once.
      await json(await call("DELETE", `/api/reviews/${review.id}/members/${a.userId}`, { cookie: owner.cookie }), 200);
      expect(await statusAndError(await call("GET", `/api/reviews/${review.id}`, { cookie: a.cookie }))).toEqual({
        status: 404,
        error: "REVIEW_NOT_FOUND",
      });
      expect(
        (await json<{ reviews: ApiReview[] }>(await call("GET", "/api/reviews", { cookie: a.cookie }), 200)).reviews,
      ).toEqual([]);
      // Leaving.
      expect(
        (
          await json<{ removed: boolean }>(
            await call("DELETE", `/api/reviews/${review.id}/members/${b.userId}`, { cookie: b.cookie }),
            200,
          )
        ).removed,
      ).toBe(true);
      expect(
        await statusAndError(await call("GET", `/api/reviews/${review.id}/records`, { cookie: b.cookie })),
      ).toEqual({ status: 404, error: "REVIEW_NOT_FOUND" });
      expect(
        await statusAndError(
          await call("DELETE", `/api/reviews/${review.id}/members/${owner.userId}`, { cookie: owner.cookie }),
        ),
      ).toEqual({ status: 409, error: "OWNER_CANNOT_LEAVE" });
      // The removed member's vote stays in the history.
      const all = await json<{ records: ApiReviewRecord[] }>(
        await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
        200,
      );
      expect(all.records.find((r) => r.id === recordIds[0])!.titleAbstract.decision).toBe("exclude");
    },
  );
});

type Role = "owner" | "reviewer" | "viewer" | "stranger";
type Need = "read" | "write" | "owner";

interface Case {
  need: Need;
  method: string;
  path: string;
  body?: unknown;
  form?: () => FormData;
}

describe("every review route checks membership and role on the server", () => {
  it(
    "role × route: allowed roles pass the check, a viewer gets 403 FORBIDDEN_ROLE for writes, a non-member 404 REVIEW_NOT_FOUND",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const reviewer = await signUp();
      const viewer = await signUp();
      const stranger = await signUp("pro");
      const { review, recordIds } = await newReview(owner, 6);
      await join(owner, review.id, reviewer, "reviewer");
      await join(owner, review.id, viewer, "viewer");
      const id = review.id;
      const [r0, r1, r2] = recordIds as [number, number, number];
      const ris1 = () => {
        const form = new FormData();
        form.set("file", new File([ris(1)], "more.ris"));
        return form;
      };
      const notPdf = () => {
        const form = new FormData();
        form.set("file", new File(["not a pdf"], "x.pdf", { type: "application/pdf" }));
        return form;
      };
      const cases: Case[] = [
        { need: "read", method: "GET", path: `/api/reviews/${id}` },
        { need: "owner", method: "PATCH", path: `/api/reviews/${id}`, body: { title: "Renamed" } },
        {
          need: "owner",
          method: "PATCH",
          path: `/api/reviews/${id}`,
          body: { screening: { mode: "single", blind: true } },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/records` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/prisma` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/export?format=csv` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/duplicates` },
        { need: "owner", method: "POST", path: `/api/reviews/${id}/duplicates`, body: { recordId: r2, intoId: r1 } },
        { need: "owner", method: "DELETE", path: `/api/reviews/${id}/duplicates/${r2}` },
        { need: "owner", method: "POST", path: `/api/reviews/${id}/import`, form: ris1 },
        {
          need: "owner",
          method: "POST",
          path: `/api/reviews/${id}/import-uploads`,
          body: { uploadIds: [999_999_991] },
        },
        { need: "write", method: "GET", path: `/api/reviews/${id}/screening/next` },
        {
          need: "write",
          method: "POST",
          path: `/api/reviews/${id}/records/${r0}/decision`,
          body: { stage: "title_abstract", decision: "include" },
        },
        { need: "write", method: "DELETE", path: `/api/reviews/${id}/records/${r0}/decision?stage=title_abstract` },
        { need: "write", method: "POST", path: `/api/reviews/${id}/screening/undo`, body: { stage: "title_abstract" } },
        { need: "write", method: "POST", path: `/api/reviews/${id}/records/${r0}/suggestion` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/records/${r0}/fulltext` },
        { need: "write", method: "POST", path: `/api/reviews/${id}/records/${r0}/fulltext`, form: notPdf },
        { need: "write", method: "DELETE", path: `/api/reviews/${id}/records/${r0}/fulltext` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/records/${r0}/report` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/outcomes` },
        {
          need: "write",
          method: "POST",
          path: `/api/reviews/${id}/outcomes`,
          body: { name: "Depression score", intervention: "exercise", comparator: "usual care" },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/outcomes/999999` },
        { need: "write", method: "DELETE", path: `/api/reviews/${id}/outcomes/999999` },
        { need: "read", method: "GET", path: `/api/reviews/${id}/members` },
        {
          need: "owner",
          method: "POST",
          path: `/api/reviews/${id}/members`,
          body: { email: "someone@example.org", role: "viewer" },
        },
        {
          need: "owner",
          method: "PATCH",
          path: `/api/reviews/${id}/members/${viewer.userId}`,
          body: { role: "viewer" },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/conflicts` },
        {
          need: "owner",
          method: "POST",
          path: `/api/reviews/${id}/records/${r0}/resolve`,
          body: { stage: "title_abstract", decision: "include" },
        },
        { need: "read", method: "GET", path: `/api/reviews/${id}/agreement` },
        {
          need: "write",
          method: "POST",
          path: "/api/extraction/edits",
          body: {
            edits: [
              {
                studyKey: `review:${id}:${r0}`,
                outcome: "Depression score",
                field: "events",
                arm: "intervention",
                oldValue: null,
                newValue: 3,
              },
            ],
          },
        },
        {
          need: "read",
          method: "GET",
          path: `/api/extraction/edits?studyKey=${encodeURIComponent(`review:${id}:${r0}`)}`,
        },
      ];
      const accounts: Record<Role, Account> = { owner, reviewer, viewer, stranger };
      const allowed: Record<Need, Role[]> = {
        read: ["owner", "reviewer", "viewer"],
        write: ["owner", "reviewer"],
        owner: ["owner"],
      };
      const failures: string[] = [];
      for (const c of cases) {
        for (const role of ["stranger", "viewer", "reviewer", "owner"] as Role[]) {
          const res = await call(c.method, c.path, { cookie: accounts[role].cookie, body: c.body, form: c.form?.() });
          const { status, error } = await statusAndError(res);
          const label = `${role} ${c.method} ${c.path} → ${status} ${error ?? ""}`;
          if (role === "stranger") {
            if (c.path.startsWith("/api/reviews/")) {
              if (status !== 404 || error !== "REVIEW_NOT_FOUND") failures.push(label);
            } else if (status !== 404 && status !== 403) failures.push(label);
          } else if (allowed[c.need].includes(role)) {
            if (
              status >= 500 ||
              ["FORBIDDEN_ROLE", "REVIEW_NOT_FOUND", "UNAUTHORIZED", "INVALID_INPUT", "INVALID_JSON"].includes(
                error ?? "",
              )
            )
              failures.push(label);
          } else if (status !== 403 || error !== "FORBIDDEN_ROLE") failures.push(label);
        }
      }
      expect(failures).toEqual([]);

      // Deleting the review: only its owner.
      for (const who of [stranger, viewer, reviewer])
        expect([403, 404]).toContain((await call("DELETE", `/api/reviews/${id}`, { cookie: who.cookie })).status);
      expect((await call("DELETE", `/api/reviews/${id}`, { cookie: owner.cookie })).status).toBe(200);
      expect((await call("GET", `/api/reviews/${id}`, { cookie: reviewer.cookie })).status).toBe(404);
    },
  );
});

describe("dual screening in blind mode", () => {
  it(
    "two independent votes per record, no vote leaks before one's own, conflicts resolved, PRISMA from final decisions",
    { timeout: 90_000 },
    async () => {
      const owner = await signUp("pro");
      const a = await signUp();
      const b = await signUp();
      const viewer = await signUp();
      const { review, recordIds } = await newReview(owner, 6);
      await join(owner, review.id, a, "reviewer");
      await join(owner, review.id, b, "reviewer");
      await join(owner, review.id, viewer, "viewer");
      const id = review.id;
      expect(review.screening).toEqual({ mode: "single", blind: true });
      expect(
        await statusAndError(
          await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { screening: { mode: "triple" } } }),
        ),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });
      const patched = await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${id}`, {
          cookie: owner.cookie,
          body: { screening: { mode: "dual", blind: true } },
        }),
        200,
      );
      expect(patched.review.screening).toEqual({ mode: "dual", blind: true });

      const vote = (who: Account, recordId: number, decision: string, stage = "title_abstract", reason?: string) =>
        call("POST", `/api/reviews/${id}/records/${recordId}/decision`, {
          cookie: who.cookie,
          body: { stage, decision, ...(reason ? { reason } : {}) },
        });
      const recordsOf = async (who: Account) =>
        (
          await json<{ records: ApiReviewRecord[] }>(
            await call("GET", `/api/reviews/${id}/records`, { cookie: who.cookie }),
            200,
          )
        ).records;
      const nextOf = async (who: Account) =>
        json<ScreeningNext>(await call("GET", `/api/reviews/${id}/screening/next`, { cookie: who.cookie }), 200);

      // A votes on the record B's queue would not put first by ranking alone.
      const bFirst = (await nextOf(b)).record!.id;
      const target = recordIds.find((r) => r !== bFirst)!;
      const afterA = await json<{ progress: { screened: number; voted?: number } }>(
        await vote(a, target, "include"),
        200,
      );
      expect(afterA.progress).toMatchObject({ screened: 0, voted: 1 });
      // Nothing shows A's vote to B (records, next, conflicts), nor the final decision (none yet).
      const seenByB = (await recordsOf(b)).find((r) => r.id === target)!;
      expect(seenByB.titleAbstract.decision).toBeNull();
      expect(seenByB.votes).toEqual({ titleAbstract: [], fullText: [] });
      const bNext = await nextOf(b);
      expect(bNext.record!.id).toBe(target); // awaiting a second vote: first in the others' queues
      expect(JSON.stringify(bNext)).not.toContain(a.userId);
      expect(
        (
          await json<{ conflicts: ApiConflict[] }>(
            await call("GET", `/api/reviews/${id}/conflicts`, { cookie: b.cookie }),
            200,
          )
        ).conflicts,
      ).toEqual([]);
      for (const who of [b, viewer, owner]) {
        for (const path of ["records", "export?format=json", "export?format=csv", "agreement", "prisma"]) {
          const body = await (await call("GET", `/api/reviews/${id}/${path}`, { cookie: who.cookie })).text();
          expect(body, path).not.toContain(a.userId);
          if (path === "export?format=json")
            expect((JSON.parse(body) as { decisions: unknown[] }).decisions).toEqual([]);
        }
      }
      // A sees their own vote; A's queue no longer offers the record.
      expect((await recordsOf(a)).find((r) => r.id === target)!.votes!.titleAbstract).toEqual([
        { userId: a.userId, decision: "include", reason: null },
      ]);
      expect((await nextOf(a)).record?.id).not.toBe(target);

      // B disagrees: a conflict, no final decision; a third vote is refused.
      await json(await vote(b, target, "exclude", "title_abstract", "Wrong population"), 200);
      expect((await recordsOf(owner)).find((r) => r.id === target)!.titleAbstract.decision).toBeNull();
      expect(await statusAndError(await vote(owner, target, "include"))).toEqual({
        status: 409,
        error: "VOTES_COMPLETE",
      });
      const conflicts = await json<{ conflicts: ApiConflict[] }>(
        await call("GET", `/api/reviews/${id}/conflicts?stage=title_abstract`, { cookie: viewer.cookie }),
        200,
      );
      expect(conflicts.conflicts).toEqual([
        {
          recordId: target,
          title: expect.any(String),
          stage: "title_abstract",
          votes: [
            { userId: a.userId, decision: "include", reason: null },
            { userId: b.userId, decision: "exclude", reason: "Wrong population" },
          ],
        },
      ]);
      expect(
        await statusAndError(await call("GET", `/api/reviews/${id}/conflicts?stage=nope`, { cookie: owner.cookie })),
      ).toEqual({ status: 400, error: "INVALID_INPUT" });

      // Agreement: 'maybe' + 'include' → include; two exclusions → exclude.
      const [x, y] = recordIds.filter((r) => r !== target) as [number, number];
      await json(await vote(a, x, "maybe"), 200);
      await json(await vote(b, x, "include"), 200);
      await json(await vote(a, y, "exclude"), 200);
      await json(await vote(b, y, "exclude", "title_abstract", "Not an RCT"), 200);
      let prisma = await json<ReviewPrisma>(
        await call("GET", `/api/reviews/${id}/prisma`, { cookie: owner.cookie }),
        200,
      );
      expect({ screened: prisma.screened, excluded: prisma.excluded, sought: prisma.soughtForRetrieval }).toEqual({
        screened: 2,
        excluded: 1,
        sought: 1,
      });

      // Per-reviewer progress.
      const team = await json<{ members: ApiMember[] }>(
        await call("GET", `/api/reviews/${id}/members`, { cookie: viewer.cookie }),
        200,
      );
      expect(team.members.find((m) => m.userId === a.userId)!.progress).toEqual({
        titleAbstract: 3,
        fullText: 0,
        conflicts: 1,
        extracted: 0,
      });
      expect(team.members.find((m) => m.userId === owner.userId)!.progress).toEqual({
        titleAbstract: 0,
        fullText: 0,
        conflicts: 0,
        extracted: 0,
      });

      // Resolution: only the owner or a named resolver.
      const resolve = (who: Account, body: unknown) =>
        call("POST", `/api/reviews/${id}/records/${target}/resolve`, { cookie: who.cookie, body });
      expect(await statusAndError(await resolve(a, { stage: "title_abstract", decision: "include" }))).toEqual({
        status: 403,
        error: "FORBIDDEN_ROLE",
      });
      expect(
        await statusAndError(
          await call("POST", `/api/reviews/${id}/records/${x}/resolve`, {
            cookie: owner.cookie,
            body: { stage: "title_abstract", decision: "exclude" },
          }),
        ),
      ).toEqual({ status: 409, error: "NOT_IN_CONFLICT" });
      await json(
        await call("PATCH", `/api/reviews/${id}/members/${a.userId}`, {
          cookie: owner.cookie,
          body: { resolver: true },
        }),
        200,
      );
      const resolved = await json<{ decision: string; votes: unknown[] }>(
        await resolve(a, { stage: "title_abstract", decision: "include" }),
        200,
      );
      expect(resolved.decision).toBe("include");
      expect(resolved.votes).toHaveLength(2);
      expect(
        (
          await json<{ conflicts: ApiConflict[] }>(
            await call("GET", `/api/reviews/${id}/conflicts`, { cookie: owner.cookie }),
            200,
          )
        ).conflicts,
      ).toEqual([]);
      prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${id}/prisma`, { cookie: owner.cookie }), 200);
      expect({ screened: prisma.screened, excluded: prisma.excluded, sought: prisma.soughtForRetrieval }).toEqual({
        screened: 3,
        excluded: 1,
        sought: 2,
      });

      // Full text: two exclusions with different reasons are a conflict.
      await json(await vote(a, x, "exclude", "full_text", "Wrong outcome"), 200);
      await json(await vote(b, x, "exclude", "full_text", "Wrong population"), 200);
      const ft = await json<{ conflicts: ApiConflict[] }>(
        await call("GET", `/api/reviews/${id}/conflicts?stage=full_text`, { cookie: owner.cookie }),
        200,
      );
      expect(ft.conflicts.map((c) => [c.recordId, c.votes.map((v) => v.reason)])).toEqual([
        [x, ["Wrong outcome", "Wrong population"]],
      ]);
      expect(
        await statusAndError(
          await call("POST", `/api/reviews/${id}/records/${x}/resolve`, {
            cookie: owner.cookie,
            body: { stage: "full_text", decision: "exclude" },
          }),
        ),
      ).toEqual({ status: 400, error: "REASON_REQUIRED" });
      await json(
        await call("POST", `/api/reviews/${id}/records/${x}/resolve`, {
          cookie: owner.cookie,
          body: { stage: "full_text", decision: "exclude", reason: "Wrong outcome" },
        }),
        200,
      );
      prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${id}/prisma`, { cookie: owner.cookie }), 200);
      expect(prisma.excludedWithReasons).toEqual({ "Wrong outcome": 1 });

      // Agreement at title/abstract: target (include vs exclude), x (maybe≈include vs include), y (exclude vs exclude).
      const agreement = await json<{
        titleAbstract: {
          n: number;
          agreement: number;
          kappa: number;
          kappaCi: [number, number];
          table: number[][];
          pairs: { reviewers: string[]; n: number }[];
        };
        fullText: { n: number };
      }>(await call("GET", `/api/reviews/${id}/agreement`, { cookie: viewer.cookie }), 200);
      expect(agreement.titleAbstract).toMatchObject({
        n: 3,
        agreement: 2 / 3,
        table: [
          [1, 1],
          [0, 1],
        ],
      });
      expect(agreement.titleAbstract.kappa).toBeCloseTo(0.4, 10); // po 2/3, pe 5/9
      expect(agreement.titleAbstract.pairs).toEqual([
        expect.objectContaining({ reviewers: [a.userId, b.userId].sort(), n: 3 }),
      ]);
      expect(agreement.fullText.n).toBe(1);

      // Undo: a reviewer's own vote only; the final decision follows.
      await json(
        await call("POST", `/api/reviews/${id}/screening/undo`, {
          cookie: b.cookie,
          body: { stage: "title_abstract" },
        }),
        200,
      );
      expect((await recordsOf(owner)).find((r) => r.id === y)!.titleAbstract.decision).toBeNull();
      expect((await nextOf(b)).record!.id).toBe(y);

      // Back to single screening: a record with one vote takes it as final.
      await json(
        await call("PATCH", `/api/reviews/${id}`, { cookie: owner.cookie, body: { screening: { mode: "single" } } }),
        200,
      );
      expect((await recordsOf(owner)).find((r) => r.id === y)!.titleAbstract.decision).toBe("exclude");
    },
  );

  it("blind off: members see each other's votes", { timeout: 90_000 }, async () => {
    const owner = await signUp("pro");
    const a = await signUp();
    const { review, recordIds } = await newReview(owner, 2);
    await join(owner, review.id, a, "reviewer");
    await json(
      await call("PATCH", `/api/reviews/${review.id}`, {
        cookie: owner.cookie,
        body: { screening: { mode: "dual", blind: false } },
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
    const list = await json<{ records: ApiReviewRecord[] }>(
      await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
      200,
    );
    expect(list.records.find((r) => r.id === recordIds[0])!.votes!.titleAbstract).toEqual([
      { userId: a.userId, decision: "include", reason: null },
    ]);
  });
});
