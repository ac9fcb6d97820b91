/**
 * zod schemas of the plan shapes in app/lib/plans.ts: they validate shared plans (POST
 * /api/shared-plans) and, in their model-facing form, the structured output of a language model.
 */
import { z } from "zod";
import type { MealPlan, Workout } from "~/lib/plans";

const short = z.string().max(300);
const long = z.string().max(4000);
const sourceId = z
  .string()
  .regex(/^S\d{1,4}$/)
  .nullable();

export const PlanItemSchema = z.object({ text: long, source: sourceId, general: z.boolean() });
export const PlanSourceSchema = z.object({ id: z.string().regex(/^S\d{1,4}$/), quote: long });

export const WorkoutExerciseSchema = z.object({
  name: short,
  sets: short,
  reps: short,
  intensity: short,
  rest: short,
  source: sourceId,
  general: z.boolean(),
});

export const WorkoutSchema = z.object({
  title: short,
  studyTitle: z.string().max(1000),
  studyId: z.number().int().nullable(),
  model: short,
  protocol: z.array(PlanItemSchema).max(30),
  warmUp: z.array(PlanItemSchema).max(20),
  weeks: z
    .array(
      z.object({
        week: z.number().int().min(1).max(4),
        focus: short,
        sessions: z
          .array(z.object({ name: short, duration: short, exercises: z.array(WorkoutExerciseSchema).min(1).max(12) }))
          .min(1)
          .max(7),
      }),
    )
    .length(4),
  progression: z.array(PlanItemSchema).max(20),
  safetyNotes: z.array(PlanItemSchema).max(20),
  sources: z.array(PlanSourceSchema).max(60),
  text: z.string().max(30000),
  generatedAt: z.string().max(40),
}) satisfies z.ZodType<Workout>;

export const MealSchema = z.object({
  name: short,
  ingredients: z.array(short).max(20),
  nutrients: z.array(short).max(20),
  prepTime: z.string().max(40),
  source: sourceId,
  general: z.boolean(),
});

const DaySchema = z.object({ breakfast: MealSchema, lunch: MealSchema, dinner: MealSchema, snacks: MealSchema });

export const MealPlanSchema = z.object({
  executiveSummary: long,
  summary: long,
  weeklyMealPlan: z
    .record(z.string().max(20), DaySchema)
    .refine((v) => Object.keys(v).length === 7, "weeklyMealPlan must have 7 days"),
  shoppingList: z.array(z.object({ category: short, items: z.array(short).max(60) })).max(20),
  mealPrepTips: z.array(long).max(20),
  nutritionalGuidelines: z.object({
    keyNutrients: z.array(short).max(30),
    dailyTargets: z
      .array(z.object({ nutrient: short, amount: short, rationale: long, source: sourceId, general: z.boolean() }))
      .max(30),
  }),
  researchRationale: long,
  studyId: z.number().int().nullable(),
  studyTitle: z.string().max(1000),
  model: short,
  sources: z.array(PlanSourceSchema).max(60),
  generatedAt: z.string().max(40),
}) satisfies z.ZodType<MealPlan>;
