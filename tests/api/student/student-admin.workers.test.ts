import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, signUp } from "../helpers";
import { createDb } from "~/.server/db/client";
import { growthRate } from "~/.server/admin/stats";
import { recordActivity } from "~/.server/admin/activity";
import { userActivity } from "../../../db/schema";

async function saveReport(cookie: string, htmlContent = "<h1>Guide</h1><p>Pooled effect</p>"): Promise<number> {
  const res = await call("POST", "/api/saved-reports", {
    cookie,
    body: { name: "Creatine review", type: "meta-analysis", studyIds: ["1"], reportData: {}, htmlContent },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { report?: { id: number }; savedReport?: { id: number }; id?: number };
  return (body.report ?? body.savedReport ?? body)!.id as number;
}

describe("student assignments API", () => {
  it("creates, lists by due date, updates and deletes the caller's assignments", async () => {
    const { cookie } = await signUp();
    expect((await call("GET", "/api/student/assignments", { cookie })).status).toBe(200);
    for (const [title, dueDate] of [
      ["Essay", "2026-12-20"],
      ["Quiz", "2026-01-05"],
      ["Lab", "2026-06-01"],
    ]) {
      const res = await call("POST", "/api/student/assignments", { cookie, body: { title, dueDate, notes: "" } });
      expect(res.status).toBe(201);
    }
    const list = (await (await call("GET", "/api/student/assignments", { cookie })).json()) as {
      assignments: { id: number; title: string }[];
    };
    expect(list.assignments.map((a) => a.title)).toEqual(["Quiz", "Lab", "Essay"]);

    const quiz = list.assignments[0]!;
    const patched = await call("PATCH", `/api/student/assignments/${quiz.id}`, {
      cookie,
      body: { dueDate: "2027-01-01", notes: "Chapters 1–3" },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      assignment: { title: "Quiz", dueDate: "2027-01-01", notes: "Chapters 1–3" },
    });
    expect((await call("DELETE", `/api/student/assignments/${quiz.id}`, { cookie })).status).toBe(200);
    expect((await call("DELETE", `/api/student/assignments/${quiz.id}`, { cookie })).status).toBe(404);
  });

  it("rejects bad input and signed-out calls, and hides other users' assignments (404)", async () => {
    const a = await signUp();
    const b = await signUp();
    expect((await call("GET", "/api/student/assignments")).status).toBe(401);
    for (const body of [
      { title: "", dueDate: "2026-01-01" },
      { title: "X", dueDate: "2026-02-30" },
      { title: "X", dueDate: "tomorrow" },
      { title: "X", dueDate: "2026-01-01", extra: 1 },
    ]) {
      const res = await call("POST", "/api/student/assignments", { cookie: a.cookie, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "INVALID_INPUT" });
    }
    const created = (await (
      await call("POST", "/api/student/assignments", {
        cookie: a.cookie,
        body: { title: "Mine", dueDate: "2026-05-01" },
      })
    ).json()) as { assignment: { id: number } };
    const id = created.assignment.id;
    expect(
      (await call("PATCH", `/api/student/assignments/${id}`, { cookie: b.cookie, body: { title: "Stolen" } })).status,
    ).toBe(404);
    expect((await call("DELETE", `/api/student/assignments/${id}`, { cookie: b.cookie })).status).toBe(404);
    expect(
      (await call("PATCH", `/api/student/assignments/abc`, { cookie: a.cookie, body: { title: "x" } })).status,
    ).toBe(400);
    expect((await call("GET", `/api/student/assignments/${id}`, { cookie: a.cookie })).status).toBe(405);
  });

  it("transfers a saved report as a study guide to the owner's assignment only", async () => {
    const a = await signUp();
    const b = await signUp();
    const reportId = await saveReport(a.cookie);
    const { assignment } = (await (
      await call("POST", "/api/student/assignments", {
        cookie: a.cookie,
        body: { title: "Seminar", dueDate: "2026-09-01" },
      })
    ).json()) as { assignment: { id: number } };
    const { assignment: other } = (await (
      await call("POST", "/api/student/assignments", {
        cookie: b.cookie,
        body: { title: "Other", dueDate: "2026-09-01" },
      })
    ).json()) as { assignment: { id: number } };

    const path = (id: number) => `/api/student/assignments/${id}/transfer-study-guide`;
    expect(
      (await call("POST", path(other.id), { cookie: a.cookie, body: { studyGuideId: `report-${reportId}` } })).status,
    ).toBe(404);
    expect(
      (await call("POST", path(other.id), { cookie: b.cookie, body: { studyGuideId: `report-${reportId}` } })).status,
    ).toBe(404);
    const res = await call("POST", path(assignment.id), {
      cookie: a.cookie,
      body: { studyGuideId: `report-${reportId}` },
    });
    expect(res.status).toBe(200);
    const { studyGuide } = (await res.json()) as { studyGuide: { id: number; assignmentId: number; title: string } };
    expect(studyGuide).toMatchObject({ assignmentId: assignment.id, title: "Creatine review" });
    // The same report again reuses its guide; a guide id works too; another user's guide is 404.
    expect((await call("POST", "/api/student/study-guides", { cookie: a.cookie, body: { reportId } })).status).toBe(
      201,
    );
    const guides = (await (await call("GET", "/api/student/study-guides", { cookie: a.cookie })).json()) as {
      studyGuides: { id: number }[];
    };
    expect(guides.studyGuides.map((g) => g.id)).toEqual([studyGuide.id]);
    expect(
      (await call("POST", path(assignment.id), { cookie: a.cookie, body: { studyGuideId: studyGuide.id } })).status,
    ).toBe(200);
    const { assignment: bOwn } = (await (
      await call("POST", "/api/student/assignments", { cookie: b.cookie, body: { title: "B", dueDate: "2026-09-01" } })
    ).json()) as { assignment: { id: number } };
    expect(
      (await call("POST", path(bOwn.id), { cookie: b.cookie, body: { studyGuideId: studyGuide.id } })).status,
    ).toBe(404);
    expect((await call("POST", path(assignment.id), { cookie: a.cookie, body: {} })).status).toBe(400);
  });

  it("includes assignments and study guides in the data export and removes them with the account", async () => {
    const a = await signUp();
    const reportId = await saveReport(a.cookie);
    await call("POST", "/api/student/assignments", {
      cookie: a.cookie,
      body: { title: "Exported", dueDate: "2026-09-01" },
    });
    await call("POST", "/api/student/study-guides", { cookie: a.cookie, body: { reportId } });
    const exported = await call("GET", "/api/user/data", { cookie: a.cookie });
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text).toContain("student_assignments");
    expect(text).toContain("Exported");
    expect(text).toContain("study_guides");
    const del = await call("POST", "/api/user/delete", { cookie: a.cookie, body: { confirm: "DELETE" } });
    expect([200, 204]).toContain(del.status);
    const left = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM student_assignments WHERE user_id = ?1) + (SELECT count(*) FROM study_guides WHERE user_id = ?1) AS n",
    )
      .bind(a.userId)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

describe("GET /api/admin/stats", () => {
  it("is 401 signed out and 403 for a user outside ADMIN_EMAILS", async () => {
    expect((await call("GET", "/api/admin/stats")).status).toBe(401);
    const { cookie } = await signUp();
    const res = await call("GET", "/api/admin/stats", { cookie });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "FORBIDDEN" });
  });

  it("gives an admin (any case) totals, 7-day signups, 30-day active users and the growth rate", async () => {
    const admin = await signUp("free", { email: "admin@metamind.test" });
    const old = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, 'x', ?)")
      .bind(old, `${old}@example.org`, Date.now() - 40 * 86_400_000)
      .run();
    const db = createDb(env.DB);
    await db.insert(userActivity).values({ userId: old, lastSeenAt: Date.now() - 31 * 86_400_000 });
    const res = await call("GET", "/api/admin/stats", { cookie: admin.cookie });
    expect(res.status).toBe(200);
    const stats = (await res.json()) as {
      totalUsers: number;
      recentSignups: number;
      activeUsers: number;
      growthRate: number;
      users: { id: string; email: string }[];
    };
    const counts = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM users) AS total, (SELECT count(*) FROM users WHERE created_at >= ?1) AS recent, (SELECT count(*) FROM user_activity WHERE last_seen_at >= ?2) AS active",
    )
      .bind(Date.now() - 7 * 86_400_000, Date.now() - 30 * 86_400_000)
      .first<{ total: number; recent: number; active: number }>();
    expect(stats.totalUsers).toBe(counts!.total);
    expect(stats.recentSignups).toBe(counts!.recent);
    expect(stats.activeUsers).toBe(counts!.active);
    expect(stats.activeUsers).toBeGreaterThanOrEqual(1); // the admin's own request counts
    expect(stats.growthRate).toBe(growthRate(counts!.total, counts!.recent));
    expect(stats.users.map((u) => u.id)).toContain(admin.userId);
    expect(stats.users.map((u) => u.id)).not.toContain(undefined);
  });

  it("growth rate = recent ÷ max(1, total − recent), rounded percent; activity writes at most hourly", async () => {
    expect(growthRate(10, 2)).toBe(25);
    expect(growthRate(3, 3)).toBe(300);
    expect(growthRate(0, 0)).toBe(0);
    const { userId } = await signUp();
    const db = createDb(env.DB);
    // Two hours ahead: the sign-up's own activity (now) is then more than an hour older, so the
    // first write below must land and the next, a minute later, must not.
    const t0 = Date.now() + 2 * 3_600_000;
    await recordActivity({ db }, { userId, now: t0 });
    await recordActivity({ db }, { userId, now: t0 + 60_000 });
    const row = await env.DB.prepare("SELECT last_seen_at AS t FROM user_activity WHERE user_id = ?")
      .bind(userId)
      .first<{ t: number }>();
    expect(row!.t).toBe(t0);
    await recordActivity({ db }, { userId, now: t0 + 2 * 3_600_000 });
    expect(
      (await env.DB.prepare("SELECT last_seen_at AS t FROM user_activity WHERE user_id = ?")
        .bind(userId)
        .first<{ t: number }>())!.t,
    ).toBe(t0 + 2 * 3_600_000);
  });
});
