import { describe, expect, it } from "vitest";
import { mealPlanHtml, planDownload, workoutHtml, WEEK_DAYS } from "~/lib/plans";
import { planSentences } from "./facts";
import { buildMealPlan, readNutritionFacts } from "./meals";
import { buildWorkoutPlan, readWorkoutProtocol } from "./workout";

const EXERCISE = [
  "BACKGROUND: Resistance training may preserve muscle strength in older adults.",
  "METHODS: 120 adults aged 65 years or older were randomised to supervised resistance training or usual care for 12 weeks.",
  "Participants trained three times per week in 45-minute sessions.",
  "Each session included 3 sets of 8-12 repetitions at 70% of 1RM with 90 seconds of rest between sets.",
  "RESULTS: Leg press strength increased by 24% versus 3% in controls.",
  "No serious adverse events occurred.",
].join(" ");

const NUTRITION = [
  "We randomised 300 adults to a Mediterranean diet supplemented with extra-virgin olive oil or mixed nuts, or to a low-fat control diet.",
  "Participants in the intervention groups were advised to eat fish at least 3 times a week and to consume 30 g of nuts per day.",
  "Vitamin D supplementation of 2000 IU per day was given to all participants.",
  "Intake of sugar-sweetened beverages was discouraged.",
].join(" ");

const meta = {
  studyTitle: "Trial",
  studyId: 7,
  model: "MetaMind Offline Extractive v1",
  now: new Date("2026-11-25T00:00:00Z"),
};

describe("workout rules", () => {
  it("reads the protocol with the sentence each fact comes from", () => {
    const sentences = planSentences(EXERCISE);
    const p = readWorkoutProtocol(sentences);
    expect(p.sessionsPerWeek?.value).toBe(3);
    expect(p.sessionsPerWeek?.source).toBe("S3");
    expect(p.sessionMinutes?.value).toEqual({ low: 45, high: 45 });
    expect(p.setsReps?.value).toEqual({ sets: 3, reps: "8–12" });
    expect(p.intensity?.text).toBe("70% of 1RM");
    expect(p.programWeeks?.value).toBe(12);
    expect(p.rest?.text).toMatch(/90 seconds of rest/);
    expect(p.modalities.map((m) => m.value)).toContain("resistance");
    expect(p.safety.map((s) => s.id)).toEqual(["S6"]);
  });

  it("builds 4 weeks of 3 sessions, citing the study's dose and labelling the rest general", () => {
    const w = buildWorkoutPlan(planSentences(EXERCISE), meta);
    expect(w.weeks).toHaveLength(4);
    expect(w.weeks.every((week) => week.sessions.length === 3)).toBe(true);
    const week4 = w.weeks[3]!.sessions[0]!.exercises[0]!;
    expect(week4).toMatchObject({ sets: "3", reps: "8–12", source: "S4", general: false });
    // Week 1's reduced set count is not what the study reports: general guidance.
    expect(w.weeks[0]!.sessions[0]!.exercises[0]!.general).toBe(true);
    expect(w.warmUp.every((i) => i.general)).toBe(true);
    expect(w.sources.map((s) => s.id)).toEqual(expect.arrayContaining(["S3", "S4", "S6"]));
    for (const s of w.sources) expect(EXERCISE).toContain(s.quote);
    expect(w.text).toContain("Week 4");
  });

  it("gives a fully general plan for a study without a protocol", () => {
    const w = buildWorkoutPlan(
      planSentences("Obesity is common. We reviewed national registry data on hospital admissions."),
      meta,
    );
    expect(w.protocol).toEqual([expect.objectContaining({ general: true })]);
    expect(w.weeks.flatMap((x) => x.sessions.flatMap((s) => s.exercises)).every((e) => e.general)).toBe(true);
    expect(w.sources).toEqual([]);
  });
});

describe("meal-plan rules", () => {
  it("reads the pattern, foods, limits and doses", () => {
    const f = readNutritionFacts(planSentences(NUTRITION));
    expect(f.pattern?.value).toBe("Mediterranean diet");
    expect([...f.foods.keys()]).toEqual(expect.arrayContaining(["olive-oil", "nuts", "fish"]));
    expect(f.limited.map((l) => l.value)).toEqual(["Added sugar and sugary drinks"]);
    expect(f.doses).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ nutrient: "Vitamin D", text: "2000 IU per day", source: "S3" }),
      ]),
    );
  });

  it("builds the SPEC §3 shape: 7 days × 4 meals, 15 min default, cited targets", () => {
    const m = buildMealPlan(planSentences(NUTRITION), meta);
    expect(Object.keys(m.weeklyMealPlan)).toEqual([...WEEK_DAYS]);
    for (const day of Object.values(m.weeklyMealPlan)) {
      for (const meal of [day.breakfast, day.lunch, day.dinner, day.snacks]) {
        expect(meal.name).toBeTruthy();
        expect(meal.prepTime).toMatch(/min$/);
        expect(meal.general || meal.source !== null).toBe(true);
      }
    }
    expect(
      Object.values(m.weeklyMealPlan).some((d) => d.lunch.prepTime === "15 min" || d.breakfast.prepTime === "15 min"),
    ).toBe(true);
    expect(m.nutritionalGuidelines.dailyTargets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ nutrient: "Vitamin D", amount: "2000 IU per day", source: "S3", general: false }),
      ]),
    );
    expect(m.shoppingList.length).toBeGreaterThan(2);
    expect(m.researchRationale).toContain("[S1]");
    for (const s of m.sources) expect(NUTRITION).toContain(s.quote);
  });
});

describe("plan HTML", () => {
  it("escapes markup and refuses a missing plan", () => {
    const w = buildWorkoutPlan(planSentences(EXERCISE), { ...meta, studyTitle: "<script>alert(1)</script>" });
    const html = workoutHtml(w);
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&lt;script&gt;");
    expect(planDownload("workout", null)).toEqual({ error: "No Workout Available" });
    expect(planDownload("meal-plan", null)).toEqual({ error: "No Meal Plan Available" });
    const m = buildMealPlan(planSentences(NUTRITION), meta);
    expect(mealPlanHtml(m).length).toBeGreaterThan(100);
    expect(planDownload("meal-plan", m)).toMatchObject({
      fileName: expect.stringMatching(/^metamind-meal-plan-\d+\.html$/),
    });
  });
});
