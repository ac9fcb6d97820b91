import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, uniqueIp } from "../helpers";
import type { MealPlan, Workout } from "~/lib/plans";

const EXERCISE = [
  "Participants trained three times per week in 45-minute sessions for 12 weeks.",
  "Each session included 3 sets of 8-12 repetitions at 70% of 1RM.",
  "No serious adverse events occurred.",
].join(" ");
const NUTRITION = [
  "Adults followed a Mediterranean diet supplemented with extra-virgin olive oil or 30 g of nuts per day.",
  "Vitamin D supplementation of 2000 IU per day was given.",
].join(" ");

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": uniqueIp(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function insertStudy(abstract: string): Promise<number> {
  const row = await env.DB.prepare(
    `INSERT INTO studies (title_key, title, abstract, authors, source, source_id, study_type, publication_types)
     VALUES (?, ?, ?, '[]', 'pubmed', ?, 'Clinical Trial', '[]') RETURNING id`,
  )
    .bind(`test ${crypto.randomUUID()}`, "Diet trial", abstract, crypto.randomUUID())
    .first<{ id: number }>();
  return row!.id;
}

describe("POST /api/generate-workout", () => {
  it("answers {workout}: 4 weeks grounded in the reported protocol, named model, cited sentences", async () => {
    const res = await post("/api/generate-workout", {
      exerciseAnalysis: EXERCISE,
      studyTitle: "Strength trial",
      studyId: null,
    });
    expect(res.status).toBe(200);
    expect(decodeURIComponent(res.headers.get("X-Model-Name") ?? "")).toBe("MetaMind Offline Extractive v1");
    const { workout } = (await res.json()) as { workout: Workout };
    expect(workout.weeks).toHaveLength(4);
    expect(workout.weeks[0]!.sessions).toHaveLength(3);
    expect(workout.studyTitle).toBe("Strength trial");
    expect(workout.weeks[3]!.sessions[0]!.exercises[0]).toMatchObject({
      sets: "3",
      reps: "8–12",
      intensity: "70% of 1RM",
      source: "S2",
    });
    expect(workout.sources.map((s) => s.quote)).toContain(
      "Each session included 3 sets of 8-12 repetitions at 70% of 1RM.",
    );
    expect(workout.safetyNotes.some((n) => n.general)).toBe(true);
    expect(workout.text.length).toBeGreaterThan(100);
  });

  it("reads the stored study's abstract by studyId; 404 for an unknown study; 400 without content", async () => {
    const studyId = await insertStudy(EXERCISE);
    const res = await post("/api/generate-workout", { exerciseAnalysis: "", studyTitle: "", studyId });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { workout: Workout }).workout).toMatchObject({ studyTitle: "Diet trial", studyId });
    expect(
      (await post("/api/generate-workout", { exerciseAnalysis: "", studyTitle: "", studyId: 987654321 })).status,
    ).toBe(404);
    const empty = await post("/api/generate-workout", { exerciseAnalysis: " ", studyTitle: "x" });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: "NO_CONTENT" });
    const bad = await post("/api/generate-workout", { exerciseAnalysis: 5 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "INVALID_INPUT" });
  });

  it("counts guests on workoutGeneration: the 6th plan in 24 hours is refused", async () => {
    const ip = uniqueIp();
    let cookie = "";
    for (let i = 0; i < 5; i++) {
      const res = await post(
        "/api/generate-workout",
        { exerciseAnalysis: EXERCISE, studyTitle: "t" },
        { "CF-Connecting-IP": ip, ...(cookie ? { Cookie: cookie } : {}) },
      );
      expect(res.status).toBe(200);
      cookie ||= (res.headers.get("Set-Cookie") ?? "").split(";")[0]!;
    }
    const refused = await post(
      "/api/generate-workout",
      { exerciseAnalysis: EXERCISE, studyTitle: "t" },
      { "CF-Connecting-IP": ip, Cookie: cookie },
    );
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: "LIMIT_REACHED",
      guestFeature: "workoutGeneration",
      trial: true,
    });
  });
});

describe("POST /api/studies/generate-meals", () => {
  it("answers the SPEC §3 meal plan grounded in the study's foods and doses", async () => {
    const studyId = await insertStudy(NUTRITION);
    const res = await post("/api/studies/generate-meals", { studyId, text: "" });
    expect(res.status).toBe(200);
    const plan = (await res.json()) as MealPlan;
    expect(Object.keys(plan)).toEqual(
      expect.arrayContaining([
        "executiveSummary",
        "summary",
        "weeklyMealPlan",
        "shoppingList",
        "mealPrepTips",
        "nutritionalGuidelines",
        "researchRationale",
      ]),
    );
    expect(Object.keys(plan.weeklyMealPlan)).toHaveLength(7);
    expect(plan.weeklyMealPlan.Monday).toMatchObject({
      breakfast: expect.objectContaining({
        name: expect.any(String),
        ingredients: expect.any(Array),
        nutrients: expect.any(Array),
        prepTime: expect.stringMatching(/min$/),
      }),
    });
    expect(plan.nutritionalGuidelines.dailyTargets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ nutrient: "Vitamin D", amount: "2000 IU per day", source: "S2" }),
      ]),
    );
    expect(plan.shoppingList[0]).toMatchObject({ category: expect.any(String), items: expect.any(Array) });
  });

  it("400 NO_CONTENT without text or study; 404 for an unknown study", async () => {
    const res = await post("/api/studies/generate-meals", { text: "short" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "NO_CONTENT" });
    expect((await post("/api/studies/generate-meals", { studyId: 987654322 })).status).toBe(404);
  });
});

describe("POST /api/shared-plans and the public plan pages", () => {
  it("shares a workout as /workout/{id} and a meal plan as /meal-plan/{id}, complete without JavaScript", async () => {
    const { workout } = (await (
      await post("/api/generate-workout", { exerciseAnalysis: EXERCISE, studyTitle: "Strength <trial>" })
    ).json()) as { workout: Workout };
    const shared = await post("/api/shared-plans", { kind: "workout", plan: workout });
    expect(shared.status).toBe(201);
    const { url } = (await shared.json()) as { url: string };
    expect(url).toMatch(/\/workout\/[0-9a-f]{32}$/);
    const page = await SELF.fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toMatch(/public/);
    const html = await page.text();
    expect(html).toContain("Strength &lt;trial&gt;");
    expect(html).toContain("Week 4");
    expect(html).toContain("Create your own plan");
    expect(html).toContain('property="og:title"');

    const meals = (await (await post("/api/studies/generate-meals", { text: NUTRITION })).json()) as MealPlan;
    const mealShare = await post("/api/shared-plans", { kind: "meal-plan", plan: meals });
    expect(mealShare.status).toBe(201);
    const mealUrl = ((await mealShare.json()) as { url: string }).url;
    expect(mealUrl).toMatch(/\/meal-plan\/[0-9a-f]{32}$/);
    const mealHtml = await (await SELF.fetch(mealUrl)).text();
    expect(mealHtml).toContain("Sunday");
    expect(mealHtml).toContain("Shopping list");
    // A workout id does not open as a meal plan.
    expect((await SELF.fetch(url.replace("/workout/", "/meal-plan/"))).status).toBe(404);
  });

  it("refuses a malformed plan", async () => {
    const res = await post("/api/shared-plans", { kind: "workout", plan: { title: "x" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "INVALID_INPUT" });
  });
});
