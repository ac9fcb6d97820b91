import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { textModel } from "../../../tests/mocks/meta-models";
import { describe, expect, it } from "vitest";
import type { MealPlan, Workout } from "~/lib/plans";
import { expectConsoleError } from "../../../tests/setup/fail-on-console-error";
import { getLoadContext } from "../context";
import { answerHealthQuestion, type HealthAnswerEvent } from "../health-answers/service";
import { generateMeals, generateWorkout } from "./service";

const BASE = "https://metamind.test";
const EXERCISE =
  "Participants trained three times per week. Each session included 3 sets of 10 repetitions at 70% of 1RM.";
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};

function services() {
  const app = getLoadContext(env as never, { waitUntil: () => undefined }).app;
  return app;
}

function request() {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return new Request(`${BASE}/x`, { method: "POST", headers: { "CF-Connecting-IP": `10.${b[0]}.${b[1]}.${b[2]}` } });
}

/** A model that streams `value` as JSON (plans call the model through streamText). */
const jsonModel = (value: unknown) => textModel(JSON.stringify(value));

const item = (text: string, source: string | null, general = source === null) => ({ text, source, general });
const exercise = (source: string | null, sets: string, intensity: string) => ({
  name: "Squat",
  sets,
  reps: "10",
  intensity,
  rest: "90 s",
  source,
  general: source === null,
});

describe("plans with a model (structured output through the same citation check)", () => {
  it("keeps cited prescriptions the sentence supports, relabels the rest general guidance", async () => {
    const week = (n: number, ex: ReturnType<typeof exercise>) => ({
      week: n,
      focus: "Build",
      sessions: [{ name: "Session 1", duration: "45 min", exercises: [ex] }],
    });
    const model = jsonModel({
      protocol: [item("Three sessions a week", "S1"), item("Invented protocol", "S99")],
      warmUp: [item("Easy cycling for 10 minutes", null)],
      weeks: [
        week(1, exercise("S2", "3", "70% of 1RM")),
        week(2, exercise("S2", "4", "80% of 1RM")),
        week(3, exercise(null, "3", "moderate")),
        week(4, exercise("S2", "3", "70% of 1RM")),
      ],
      progression: [item("Add 5 kg each week", "S2")],
      safetyNotes: [item("Stop if you feel chest pain", null)],
    });
    const res = await generateWorkout(services(), {
      body: { exerciseAnalysis: EXERCISE, studyTitle: "Trial", studyId: null },
      user: null,
      request: request(),
      model: { model, name: "mock-json (OpenAI)", provider: "openai" },
    });
    expect(res.status).toBe(200);
    const { workout } = (await res.json()) as { workout: Workout };
    expect(workout.model).toBe("mock-json (OpenAI)");
    expect(workout.protocol).toEqual([item("Three sessions a week", "S1"), item("Invented protocol", null, true)]);
    expect(workout.weeks[0]!.sessions[0]!.exercises[0]).toMatchObject({ source: "S2", general: false });
    // "4 sets at 80%" is not in S2: general guidance.
    expect(workout.weeks[1]!.sessions[0]!.exercises[0]).toMatchObject({ source: null, general: true });
    // "5 kg" is not in S2.
    expect(workout.progression[0]).toMatchObject({ source: null, general: true });
    expect(workout.sources.map((s) => s.id)).toEqual(["S1", "S2"]);
  });

  it("a model that returns no valid plan gives 502 AI_FAILED with the spec's message", async () => {
    expectConsoleError();
    const error = await generateMeals(services(), {
      body: { text: "A Mediterranean diet with olive oil lowered cardiovascular events." },
      user: null,
      request: request(),
      model: { model: jsonModel({ nope: true }), name: "mock", provider: "openai" },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "AI_FAILED",
      status: 502,
      message: "Failed to generate meal suggestions. Please try again.",
    });
  });

  it("meal plan from a model: days keyed by name, 15 min default prep, unsupported doses relabelled", async () => {
    const meal = (source: string | null, prepTime = "") => ({
      name: "Oats",
      ingredients: ["oats"],
      nutrients: ["fibre"],
      prepTime,
      source,
      general: source === null,
    });
    const day = (name: string) => ({
      day: name,
      breakfast: meal("S1"),
      lunch: meal(null, "20 min"),
      dinner: meal("S7"),
      snacks: meal(null),
    });
    const model = jsonModel({
      executiveSummary: "Olive oil based.",
      summary: "Summary.",
      days: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map(day),
      shoppingList: [{ category: "Pantry", items: ["oats"] }],
      mealPrepTips: ["Batch cook."],
      nutritionalGuidelines: {
        keyNutrients: ["Fibre"],
        dailyTargets: [
          { nutrient: "Olive oil", amount: "50 g", rationale: "As reported", source: "S1", general: false },
          { nutrient: "Olive oil", amount: "20 g", rationale: "Invented", source: "S1", general: false },
        ],
      },
      researchRationale: "Because of S1.",
    });
    const res = await generateMeals(services(), {
      body: { text: "Participants used 50 g of olive oil per day." },
      user: null,
      request: request(),
      model: { model, name: "mock-json", provider: "openai" },
    });
    const plan = (await res.json()) as MealPlan;
    expect(Object.keys(plan.weeklyMealPlan)).toHaveLength(7);
    expect(plan.weeklyMealPlan.Monday!.breakfast).toMatchObject({ source: "S1", general: false, prepTime: "15 min" });
    expect(plan.weeklyMealPlan.Monday!.lunch.prepTime).toBe("20 min");
    expect(plan.weeklyMealPlan.Monday!.dinner).toMatchObject({ source: null, general: true });
    expect(plan.nutritionalGuidelines.dailyTargets.map((t) => t.general)).toEqual([false, true]);
  });
});

describe("health answer with a remote model", () => {
  it("streams the raw text, then grounds it: [Sx] become study marks with quotes, uncited sentences are dropped", async () => {
    const text = "Walking lowered blood pressure [S1]. Everyone should walk. Running improved mood [S3].";
    const parts: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...text.split(/(?<= )/).map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ];
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 1 }) }),
    });
    const studies = [
      {
        id: 1,
        title: "Walking and blood pressure",
        abstract: "Walking lowered blood pressure in adults with hypertension. It was safe for everyone.",
        journal: null,
        publicationDate: null,
        pmid: "1",
        doi: null,
        url: null,
      },
      {
        id: 2,
        title: "Running and mood",
        abstract: "Running improved mood in adults with mild depression over twelve weeks of supervised training.",
        journal: null,
        publicationDate: null,
        pmid: null,
        doi: null,
        url: null,
      },
    ];
    const res = await answerHealthQuestion(services(), {
      body: { question: "Does walking or running help blood pressure and mood?" },
      user: null,
      request: request(),
      model: { model, name: "mock-stream (OpenAI)", provider: "openai" },
      search: async () => studies,
    });
    const lines = new TextDecoder()
      .decode(await res.arrayBuffer())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as HealthAnswerEvent);
    expect(lines[0]).toMatchObject({ type: "meta", model: "mock-stream (OpenAI)", studyCount: 2 });
    expect(
      lines
        .filter((l) => l.type === "delta")
        .map((l) => (l as { text: string }).text)
        .join(""),
    ).toBe(text);
    const done = lines.at(-1) as Extract<HealthAnswerEvent, { type: "done" }>;
    expect(done.answer.answer).toBe("Walking lowered blood pressure [1]. Running improved mood [2].");
    expect(done.answer.studies.map((s) => s.quotes)).toEqual([
      ["Walking lowered blood pressure in adults with hypertension."],
      ["Running improved mood in adults with mild depression over twelve weeks of supervised training."],
    ]);
  });
});
