import { env } from "cloudflare:test";
import { inArray } from "drizzle-orm";
import { reviewRecords } from "../../../db/schema";
import type { ReviewOutcome } from "~/lib/review-extraction";
import type { ApiReview, ApiReviewRecord } from "~/lib/reviews";
import type { ApiInvitation } from "~/lib/team";
import { createDb } from "~/.server/db/client";
import { type Account, call, json, statusAndError } from "../helpers";

/**
 * Scaffolding of the team-review suites (members, dual screening, dual extraction, dual risk of
 * bias), Workers runtime only: a review with imported records, invitations accepted through the
 * real routes, records included and an outcome to extract or assess.
 */

/** `n` RIS records alternating between an exercise-for-depression trial and an off-topic survey. */
export function ris(n: number): string {
  return Array.from({ length: n }, (_, i) =>
    [
      "TY  - JOUR",
      `TI  - ${i % 2 ? "Aerobic exercise for adults with depression: randomised trial" : "Soil nitrogen in alpine grassland, survey"} ${i}`,
      "AU  - Smith, John",
      `PY  - ${2010 + i}`,
      `DO  - 10.5555/team.${crypto.randomUUID()}`,
      `AB  - Abstract of record ${i} about ${i % 2 ? "exercise and depression in adults" : "nitrogen in soils"}.`,
      "ER  - ",
    ].join("\n"),
  ).join("\n\n");
}

/** Creates a review owned by `owner` and imports `records` RIS records; returns it and the records' ids. */
export async function newReview(owner: Account, records = 6): Promise<{ review: ApiReview; recordIds: number[] }> {
  const review = (
    await json<{ review: ApiReview }>(
      await call("POST", "/api/reviews", {
        cookie: owner.cookie,
        body: { title: "Exercise for depression", question: "exercise for depression in adults", criteria: ["RCT"] },
      }),
      201,
    )
  ).review;
  const form = new FormData();
  form.set("file", new File([ris(records)], "refs.ris"));
  await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie: owner.cookie, form }), 201);
  const list = await json<{ records: ApiReviewRecord[] }>(
    await call("GET", `/api/reviews/${review.id}/records`, { cookie: owner.cookie }),
    200,
  );
  return { review, recordIds: list.records.map((r) => r.id) };
}

/** The owner invites `email` with `role` (asserting 201); the invitation carries its debugToken. */
export async function invite(
  owner: Account,
  reviewId: string,
  email: string,
  role: "reviewer" | "viewer",
): Promise<ApiInvitation> {
  return (
    await json<{ invitation: ApiInvitation }>(
      await call("POST", `/api/reviews/${reviewId}/members`, { cookie: owner.cookie, body: { email, role } }),
      201,
    )
  ).invitation;
}

/** Invites `member` and accepts the invitation as them. */
export async function join(
  owner: Account,
  reviewId: string,
  member: Account,
  role: "reviewer" | "viewer",
): Promise<void> {
  const invitation = await invite(owner, reviewId, member.email, role);
  await json(await call("POST", `/api/invitations/${invitation.debugToken}/accept`, { cookie: member.cookie }), 200);
}

/** Marks records as included at title/abstract and full text (extraction and assessment read those). */
export async function includeAll(recordIds: number[]): Promise<void> {
  await createDb(env.DB)
    .update(reviewRecords)
    .set({ taDecision: "include", ftDecision: "include" })
    .where(inArray(reviewRecords.id, recordIds));
}

/** Adds the outcome "Response" (exercise vs usual care) to the review, as its owner. */
export async function addOutcome(owner: Account, reviewId: string): Promise<ReviewOutcome> {
  return (
    await json<{ outcome: ReviewOutcome }>(
      await call("POST", `/api/reviews/${reviewId}/outcomes`, {
        cookie: owner.cookie,
        body: { name: "Response", intervention: "exercise", comparator: "usual care" },
      }),
      201,
    )
  ).outcome;
}

/** A member's role in a review, or a signed-in account that is not a member. */
export type Role = "owner" | "reviewer" | "viewer" | "stranger";

/** One route of a role × route check and the least role it needs. */
export interface RouteCase {
  need: "read" | "write" | "owner";
  method: string;
  path: string;
  body?: unknown;
}

/**
 * Calls every route as each of `accounts` and returns one line per wrong answer (empty when all
 * are right): a stranger must get 404 REVIEW_NOT_FOUND; a role the route allows (read: owner,
 * reviewer, viewer; write: owner, reviewer; owner: owner) a status under 400; any other role
 * 403 FORBIDDEN_ROLE.
 */
export async function roleMatrixFailures(cases: RouteCase[], accounts: Record<Role, Account>): Promise<string[]> {
  const allowed: Record<RouteCase["need"], readonly Role[]> = {
    read: ["owner", "reviewer", "viewer"],
    write: ["owner", "reviewer"],
    owner: ["owner"],
  };
  const failures: string[] = [];
  for (const c of cases) {
    for (const role of ["stranger", "viewer", "reviewer", "owner"] as Role[]) {
      const { status, error } = await statusAndError(
        await call(c.method, c.path, { cookie: accounts[role].cookie, body: c.body }),
      );
      const label = `${role} ${c.method} ${c.path} → ${status} ${error ?? ""}`;
      if (role === "stranger") {
        if (status !== 404 || error !== "REVIEW_NOT_FOUND") failures.push(label);
      } else if (allowed[c.need].includes(role)) {
        if (status >= 400) failures.push(label);
      } else if (status !== 403 || error !== "FORBIDDEN_ROLE") failures.push(label);
    }
  }
  return failures;
}
