/**
 * Living reviews (issue 31) in the Workers runtime: the schedule on PATCH /api/reviews/{id}, an
 * update on demand (POST /api/reviews/{id}/update) that re-runs the review's search against recorded
 * database answers, de-duplicates against the whole review, records what failed and sends the
 * digest; the Cron Trigger's part (due and not due, one run per slot even when two overlap), one
 * update at a time, and the update history.
 */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { call, json, signUp, newReview } from "../helpers";
import { createReplayFetch } from "../../mocks/index.ts";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import type { ApiReview, ReviewPrisma } from "~/lib/reviews";
import { getLoadContext } from "~/.server/context";
import { parseEnv } from "~/.server/env";
import { nextRunAfter } from "~/.server/reviews/service";
import { runDueLivingReviews, type LivingUpdateResult } from "~/.server/reviews/living";

const DAY = 24 * 60 * 60 * 1000;

const e = parseEnv(env as unknown as Record<string, unknown>);
const EMAIL_BASE = "http://127.0.0.1:9";

/** Recorded PubMed and Europe PMC answers; Europe PMC fails with 500 when `failEuropePmc`; e-mails are captured. */
function fakeUpstreams({ failEuropePmc = false } = {}) {
  const replay = createReplayFetch(workerFixtureReader, {
    baseUrls: { pubmed: e.PUBMED_BASE_URL, europepmc: e.EUROPEPMC_BASE_URL },
  });
  const emails: { to: string[]; subject: string; text: string }[] = [];
  const fake = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(`${EMAIL_BASE}/emails`)) {
      const body = input instanceof Request ? await input.text() : String(init?.body);
      emails.push(JSON.parse(body) as { to: string[]; subject: string; text: string });
      return Response.json({ id: `email-${emails.length}` });
    }
    if (failEuropePmc && url.startsWith(e.EUROPEPMC_BASE_URL)) return new Response("upstream down", { status: 500 });
    return (replay as typeof fetch)(input, init);
  };
  return { spy: vi.spyOn(globalThis, "fetch").mockImplementation(fake as typeof fetch), emails };
}

/** The app as the Worker's scheduled handler builds it, with an e-mail provider configured. */
function cronApp() {
  const raw = {
    ...(env as unknown as Record<string, unknown>),
    EMAIL_PROVIDER: "resend",
    EMAIL_API_KEY: "re_test",
    EMAIL_API_BASE: EMAIL_BASE,
    APP_URL: "https://app.metamind.test",
  };
  return getLoadContext(raw as never, { waitUntil: () => {} } as never).app;
}

describe("living review schedule", () => {
  it("PATCH sets a weekly or monthly schedule with its next update, null stops it, anything else is 400", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    expect(review.living).toEqual({ schedule: null, nextRunAt: null });
    const before = Date.now();
    const weekly = (
      await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${review.id}`, { cookie, body: { living: { schedule: "weekly" } } }),
        200,
      )
    ).review;
    expect(weekly.living.schedule).toBe("weekly");
    const next = Date.parse(weekly.living.nextRunAt!);
    expect(next).toBeGreaterThanOrEqual(before + 7 * DAY);
    expect(next).toBeLessThan(Date.now() + 7 * DAY + 1000);
    const monthly = (
      await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${review.id}`, { cookie, body: { living: { schedule: "monthly" } } }),
        200,
      )
    ).review;
    expect(monthly.living.schedule).toBe("monthly");
    const stopped = (
      await json<{ review: ApiReview }>(
        await call("PATCH", `/api/reviews/${review.id}`, { cookie, body: { living: { schedule: null } } }),
        200,
      )
    ).review;
    expect(stopped.living).toEqual({ schedule: null, nextRunAt: null });
    expect(
      (
        await json<{ error: string }>(
          await call("PATCH", `/api/reviews/${review.id}`, { cookie, body: { living: { schedule: "daily" } } }),
          400,
        )
      ).error,
    ).toBe("INVALID_INPUT");
  });

  it("monthly updates fall on the same day next month, clamped to the month's end", () => {
    expect(new Date(nextRunAfter("monthly", Date.UTC(2026, 0, 31, 9))).toISOString()).toBe("2026-02-28T09:00:00.000Z");
    expect(new Date(nextRunAfter("monthly", Date.UTC(2026, 10, 26, 14, 30))).toISOString()).toBe(
      "2026-12-26T14:30:00.000Z",
    );
    expect(nextRunAfter("weekly", 1000)).toBe(1000 + 7 * DAY);
  });

  it("an update needs a search to re-run (400), the review's owner (404) and a session (401)", async () => {
    const { cookie } = await signUp("pro");
    const review = await newReview(cookie);
    expect(
      (await json<{ error: string }>(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 400)).error,
    ).toBe("NO_SEARCHES");
    const other = await signUp("pro");
    expect(
      (
        await json<{ error: string }>(
          await call("POST", `/api/reviews/${review.id}/update`, { cookie: other.cookie }),
          404,
        )
      ).error,
    ).toBe("REVIEW_NOT_FOUND");
    expect((await call("POST", `/api/reviews/${review.id}/update`)).status).toBe(401);
    expect(
      (await json<{ updates: unknown[] }>(await call("GET", `/api/reviews/${review.id}/update`, { cookie }), 200))
        .updates,
    ).toEqual([]);
  });
});

describe.skipIf(!hasWorkerFixtures)(
  `living review updates against recorded database answers${hasWorkerFixtures ? "" : ` — ${MISSING_WORKER_FIXTURES}`}`,
  () => {
    it("re-runs the search: what is already in the review is a duplicate, removed records come back as new, a failing database is reported", async () => {
      const { cookie } = await signUp("pro");
      const review = await newReview(cookie);
      let upstream = fakeUpstreams();
      let imported: number;
      try {
        imported = (
          await json<{ imported: number }>(
            await call("POST", `/api/reviews/${review.id}/import-search`, {
              cookie,
              body: { q: "exercise depression", searchProviders: "pubmed,europepmc" },
            }),
            201,
          )
        ).imported;
        const first = await json<LivingUpdateResult>(
          await call("POST", `/api/reviews/${review.id}/update`, { cookie }),
          200,
        );
        expect(first).toMatchObject({ searchesRun: 1, newRecords: 0, failed: [] });
        expect(first.duplicatesRemoved).toBeGreaterThanOrEqual(imported);
        expect(Date.parse(first.ranAt)).toBeGreaterThan(Date.now() - 60_000);
      } finally {
        upstream.spy.mockRestore();
      }

      // Both PubMed records leave the review with their duplicates (as if they had not been found before).
      const { results: gone } = await env.DB.prepare(
        "SELECT id FROM review_records r WHERE review_id = ? AND duplicate_of IS NULL AND origin = 'PubMed' ORDER BY id",
      )
        .bind(review.id)
        .all<{ id: number }>();
      expect(gone).toHaveLength(2);
      const ids = gone.map((g) => g.id).join(",");
      await env.DB.prepare(`DELETE FROM review_records WHERE id IN (${ids}) OR duplicate_of IN (${ids})`).run();

      upstream = fakeUpstreams({ failEuropePmc: true });
      try {
        const second = await json<LivingUpdateResult>(
          await call("POST", `/api/reviews/${review.id}/update`, { cookie }),
          200,
        );
        expect(second.searchesRun).toBe(1);
        expect(second.newRecords).toBe(2);
        expect(second.failed).toEqual([{ source: "Europe PMC", reason: expect.any(String) }]);
      } finally {
        upstream.spy.mockRestore();
      }
      const { review: full } = await json<{
        review: ApiReview & { sources: { name: string; details: Record<string, unknown> }[] };
      }>(await call("GET", `/api/reviews/${review.id}`, { cookie }), 200);
      const updates = full.sources.filter((s) => s.details.updateOf);
      expect(updates).toHaveLength(2);
      expect(updates[1]!.name).toMatch(/^PubMed, Europe PMC \(update \d{4}-\d{2}-\d{2}\)$/);
      const history = (
        await json<{ updates: { trigger: string; status: string; newRecords: number; failed: unknown[] }[] }>(
          await call("GET", `/api/reviews/${review.id}/update`, { cookie }),
          200,
        )
      ).updates;
      expect(history.map((h) => [h.trigger, h.status, h.newRecords, h.failed.length])).toEqual([
        ["manual", "done", 2, 1],
        ["manual", "done", 0, 0],
      ]);
    });

    it("one update at a time (409), a run left running for 15 minutes is closed as failed", async () => {
      const { cookie } = await signUp("pro");
      const review = await newReview(cookie);
      const upstream = fakeUpstreams();
      try {
        await json(
          await call("POST", `/api/reviews/${review.id}/import-search`, {
            cookie,
            body: { q: "exercise depression", searchProviders: "pubmed" },
          }),
          201,
        );
        const owner = await env.DB.prepare("SELECT user_id FROM reviews WHERE id = ?")
          .bind(review.id)
          .first<{ user_id: string }>();
        await env.DB.prepare(
          "INSERT INTO review_updates (id, review_id, user_id, trigger, status, started_at) VALUES (?, ?, ?, 'manual', 'running', ?)",
        )
          .bind("running-now", review.id, owner!.user_id, Date.now())
          .run();
        expect(
          (await json<{ error: string }>(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 409))
            .error,
        ).toBe("UPDATE_RUNNING");
        await env.DB.prepare("UPDATE review_updates SET started_at = ? WHERE id = 'running-now'")
          .bind(Date.now() - 16 * 60 * 1000)
          .run();
        await json(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 200);
        const stale = await env.DB.prepare("SELECT status FROM review_updates WHERE id = 'running-now'").first<{
          status: string;
        }>();
        expect(stale!.status).toBe("failed");
      } finally {
        upstream.spy.mockRestore();
      }
    });

    it("the Cron Trigger updates due reviews once per slot, leaves the others, and e-mails the digest", async () => {
      const { cookie, email } = await signUp("pro");
      const due = await newReview(cookie);
      const notDue = await newReview(cookie);
      const upstream = fakeUpstreams();
      try {
        for (const r of [due, notDue]) {
          await json(
            await call("POST", `/api/reviews/${r.id}/import-search`, {
              cookie,
              body: { q: "exercise depression", searchProviders: "pubmed" },
            }),
            201,
          );
          await json(
            await call("PATCH", `/api/reviews/${r.id}`, { cookie, body: { living: { schedule: "weekly" } } }),
            200,
          );
        }
        const now = Date.now();
        await env.DB.prepare("UPDATE reviews SET living_next_run_at = ? WHERE id = ?")
          .bind(now - 1000, due.id)
          .run();
        // A record of the due review goes missing, so the update finds one new record.
        await env.DB.prepare(
          "DELETE FROM review_records WHERE id = (SELECT id FROM review_records r WHERE review_id = ? AND duplicate_of IS NULL AND NOT EXISTS (SELECT 1 FROM review_records d WHERE d.duplicate_of = r.id) ORDER BY id LIMIT 1)",
        )
          .bind(due.id)
          .run();

        const [a, b] = await Promise.all([
          runDueLivingReviews(cronApp(), { now }),
          runDueLivingReviews(cronApp(), { now }),
        ]);
        expect(a.updated + b.updated).toBe(1);
        expect(a.failed + b.failed).toBe(0);
        const again = await runDueLivingReviews(cronApp(), { now });
        expect(again).toEqual({ due: 0, updated: 0, failed: 0 });

        const rows = await env.DB.prepare(
          "SELECT review_id, trigger, new_records, digest_sent FROM review_updates WHERE review_id IN (?, ?)",
        )
          .bind(due.id, notDue.id)
          .all();
        expect(rows.results).toEqual([{ review_id: due.id, trigger: "schedule", new_records: 1, digest_sent: 1 }]);
        const next = await env.DB.prepare("SELECT living_next_run_at AS t FROM reviews WHERE id = ?")
          .bind(due.id)
          .first<{ t: number }>();
        expect(next!.t).toBe(now + 7 * DAY);
        expect(upstream.emails).toHaveLength(1);
        expect(upstream.emails[0]!.to).toEqual([email]);
        expect(upstream.emails[0]!.subject).toBe('1 new record in "Exercise for depression"');
        expect(upstream.emails[0]!.text).toContain(`https://app.metamind.test/reviews/${due.id}?tab=screening`);
      } finally {
        upstream.spy.mockRestore();
      }
    });

    it("the digest goes to the owner and every member once per update; the PRISMA flow of an updated review separates previous and new studies", async () => {
      const owner = await signUp("pro");
      const reviewer = await signUp("pro");
      const viewer = await signUp("pro");
      const review = await newReview(owner.cookie);
      for (const [m, role] of [
        [reviewer, "reviewer"],
        [viewer, "viewer"],
      ] as const) {
        await env.DB.prepare(
          "INSERT INTO review_members (review_id, user_id, role) SELECT ?, id, ? FROM users WHERE email = ?",
        )
          .bind(review.id, role, m.email)
          .run();
      }
      const upstream = fakeUpstreams();
      try {
        await json(
          await call("POST", `/api/reviews/${review.id}/import-search`, {
            cookie: owner.cookie,
            body: { q: "exercise depression", searchProviders: "pubmed" },
          }),
          201,
        );
        const noUpdate = await json<ReviewPrisma>(
          await call("GET", `/api/reviews/${review.id}/prisma`, { cookie: owner.cookie }),
          200,
        );
        expect(noUpdate).not.toHaveProperty("updated");
        // One record is included before the update; one record goes missing, so the update finds it again.
        const { results: unique } = await env.DB.prepare(
          "SELECT id FROM review_records r WHERE review_id = ? AND duplicate_of IS NULL AND NOT EXISTS (SELECT 1 FROM review_records d WHERE d.duplicate_of = r.id) ORDER BY id",
        )
          .bind(review.id)
          .all<{ id: number }>();
        expect(unique).toHaveLength(2);
        await env.DB.prepare("UPDATE review_records SET ta_decision = 'include', ft_decision = 'include' WHERE id = ?")
          .bind(unique[1]!.id)
          .run();
        await env.DB.prepare("DELETE FROM review_records WHERE id = ?").bind(unique[0]!.id).run();
        const identifiedBefore = Object.values(noUpdate.identified).reduce((a, b) => a + b, 0) - 1;

        const app = cronApp();
        await env.DB.prepare("UPDATE reviews SET living_schedule = 'weekly', living_next_run_at = ? WHERE id = ?")
          .bind(Date.now() - 1000, review.id)
          .run();
        const run = await runDueLivingReviews(app, { now: Date.now() });
        expect(run.updated).toBe(1);
        expect(upstream.emails.map((m) => m.to[0]).sort()).toEqual([owner.email, reviewer.email, viewer.email].sort());
        expect(new Set(upstream.emails.map((m) => m.subject))).toEqual(
          new Set([`1 new record in "Exercise for depression"`]),
        );
        const [update] = (
          await env.DB.prepare(
            "SELECT digest_sent, new_records, duplicates_removed FROM review_updates WHERE review_id = ?",
          )
            .bind(review.id)
            .all<{ digest_sent: number; new_records: number; duplicates_removed: number }>()
        ).results;
        expect(update).toMatchObject({ digest_sent: 1, new_records: 1 });

        // The new record is screened in; the updated-review template counts it apart from the previous studies.
        const fresh = await env.DB.prepare(
          "SELECT r.id FROM review_records r JOIN review_sources s ON s.id = r.source_id WHERE r.review_id = ? AND r.duplicate_of IS NULL AND json_extract(s.details, '$.updateOf') IS NOT NULL",
        )
          .bind(review.id)
          .all<{ id: number }>();
        expect(fresh.results).toHaveLength(1);
        await env.DB.prepare("UPDATE review_records SET ta_decision = 'include', ft_decision = 'include' WHERE id = ?")
          .bind(fresh.results[0]!.id)
          .run();
        const prisma = await json<ReviewPrisma>(
          await call("GET", `/api/reviews/${review.id}/prisma`, { cookie: viewer.cookie }),
          200,
        );
        expect(prisma.included).toBe(2);
        expect(prisma.updated).toMatchObject({ updates: 1, previousStudies: 1, totalStudies: 2 });
        const flow = prisma.updated!.newFlow;
        expect(flow.included).toBe(1);
        expect(Object.values(flow.identified).reduce((a, b) => a + b, 0)).toBe(
          update!.new_records + update!.duplicates_removed,
        );
        expect(flow.duplicatesRemoved).toBe(update!.duplicates_removed);
        expect(Object.values(prisma.identified).reduce((a, b) => a + b, 0)).toBe(
          identifiedBefore + update!.new_records + update!.duplicates_removed,
        );
        const svg = await (
          await call("GET", `/api/reviews/${review.id}/export?format=svg`, { cookie: owner.cookie })
        ).text();
        expect(svg).toContain("PRISMA 2020 flow diagram for updated systematic reviews");
        expect(svg).toContain("Studies included in the review before the update(s) (n = 1)");
        expect(svg).toContain("New studies included in review (n = 1)");
        expect(svg).toContain("Total studies included in review (n = 2)");
      } finally {
        upstream.spy.mockRestore();
      }
    });
  },
);
