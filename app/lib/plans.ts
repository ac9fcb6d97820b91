/**
 * Workout and meal plans (issue 14; SPEC §3 Generated workout and Meal plan, §9 4 weeks / 7 days /
 * 15 min): the shapes the server generates and the browser shows, downloads and shares, and their
 * HTML download (every text escaped).
 */

/** A study sentence a plan item rests on: `id` is its number in the study text ("S3"). */
export interface PlanSource {
  id: string;
  quote: string;
}

/**
 * One line of a plan. `source` names the study sentence it rests on; `general` marks conservative
 * general guidance used where the study is silent (then `source` is null).
 */
export interface PlanItem {
  text: string;
  source: string | null;
  general: boolean;
}

export interface WorkoutExercise {
  name: string;
  sets: string;
  reps: string;
  intensity: string;
  rest: string;
  source: string | null;
  general: boolean;
}

export interface WorkoutSession {
  /** "Session 1" … */
  name: string;
  /** Planned length, e.g. "45 min". */
  duration: string;
  exercises: WorkoutExercise[];
}

export interface WorkoutWeek {
  week: number;
  /** What changes this week (the progression step). */
  focus: string;
  sessions: WorkoutSession[];
}

/** A generated 4-week training program (SPEC §3 Generated workout: `text` is its plain-text form). */
export interface Workout {
  title: string;
  studyTitle: string;
  studyId: number | null;
  model: string;
  /** What the study reports about its protocol, each item cited. */
  protocol: PlanItem[];
  warmUp: PlanItem[];
  weeks: WorkoutWeek[];
  progression: PlanItem[];
  safetyNotes: PlanItem[];
  sources: PlanSource[];
  text: string;
  generatedAt: string;
}

export interface Meal {
  name: string;
  ingredients: string[];
  nutrients: string[];
  /** "15 min" unless the recipe says otherwise (SPEC §9). */
  prepTime: string;
  source: string | null;
  general: boolean;
}

export interface DayMeals {
  breakfast: Meal;
  lunch: Meal;
  dinner: Meal;
  snacks: Meal;
}

export interface DailyTarget {
  nutrient: string;
  amount: string;
  rationale: string;
  source: string | null;
  general: boolean;
}

/** SPEC §3 Meal plan, plus the study, the model and the cited sentences. */
export interface MealPlan {
  executiveSummary: string;
  summary: string;
  /** Monday … Sunday. */
  weeklyMealPlan: Record<string, DayMeals>;
  shoppingList: { category: string; items: string[] }[];
  mealPrepTips: string[];
  nutritionalGuidelines: { keyNutrients: string[]; dailyTargets: DailyTarget[] };
  researchRationale: string;
  studyId: number | null;
  studyTitle: string;
  model: string;
  sources: PlanSource[];
  generatedAt: string;
}

export const WEEK_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;
export const MEAL_SLOTS = ["breakfast", "lunch", "dinner", "snacks"] as const;
/** SPEC §9. */
export const DEFAULT_PREP_TIME = "15 min";
/** SPEC §5: a download needs generated HTML of at least this many characters. */
export const MIN_PLAN_HTML_CHARS = 100;
export const NO_WORKOUT_MESSAGE = "No Workout Available";
export const NO_MEAL_PLAN_MESSAGE = "No Meal Plan Available";
/** SPEC §8. */
export const WORKOUT_FAILED_MESSAGE = "Failed to generate training program. Please try again.";
export const MEALS_FAILED_MESSAGE = "Failed to generate meal suggestions. Please try again.";
export const GENERAL_GUIDANCE_LABEL = "General guidance (the study does not report this)";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const cite = (item: { source: string | null; general: boolean }) =>
  item.general
    ? ` <em class="general">(${escapeHtml(GENERAL_GUIDANCE_LABEL)})</em>`
    : item.source
      ? ` <sup>[${escapeHtml(item.source)}]</sup>`
      : "";

const items = (list: PlanItem[]) => `<ul>${list.map((i) => `<li>${escapeHtml(i.text)}${cite(i)}</li>`).join("")}</ul>`;

const sourcesHtml = (sources: PlanSource[]) =>
  sources.length
    ? `<h2>Study sentences cited</h2><ol class="sources">${sources.map((s) => `<li><strong>[${escapeHtml(s.id)}]</strong> “${escapeHtml(s.quote)}”</li>`).join("")}</ol>`
    : "";

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:860px;margin:2rem auto;padding:0 1rem;color:#0f172a}table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{border:1px solid #cbd5e1;padding:.35rem .5rem;text-align:left;font-size:.9rem}em.general{color:#92400e}.note{color:#475569;font-size:.85rem}</style></head><body>${body}</body></html>`;
}

/** The workout as a standalone HTML document (the download), every text escaped. */
export function workoutHtml(w: Workout): string {
  const weeks = w.weeks
    .map(
      (week) =>
        `<h3>Week ${week.week}: ${escapeHtml(week.focus)}</h3>${week.sessions
          .map(
            (s) =>
              `<h4>${escapeHtml(s.name)} (${escapeHtml(s.duration)})</h4><table><thead><tr><th>Exercise</th><th>Sets</th><th>Reps / time</th><th>Intensity</th><th>Rest</th><th>Basis</th></tr></thead><tbody>${s.exercises
                .map(
                  (e) =>
                    `<tr><td>${escapeHtml(e.name)}</td><td>${escapeHtml(e.sets)}</td><td>${escapeHtml(e.reps)}</td><td>${escapeHtml(e.intensity)}</td><td>${escapeHtml(e.rest)}</td><td>${e.general ? "General guidance" : e.source ? `[${escapeHtml(e.source)}]` : ""}</td></tr>`,
                )
                .join("")}</tbody></table>`,
          )
          .join("")}`,
    )
    .join("");
  return page(
    w.title,
    `<h1>${escapeHtml(w.title)}</h1><p>Based on: <strong>${escapeHtml(w.studyTitle)}</strong></p><p class="note">Generated by ${escapeHtml(w.model)} on ${escapeHtml(w.generatedAt.slice(0, 10))}. Not medical advice: check with a health professional before starting a new exercise program.</p>` +
      `<h2>What the study reports</h2>${items(w.protocol)}<h2>Warm-up</h2>${items(w.warmUp)}<h2>4-week plan</h2>${weeks}<h2>Progression</h2>${items(w.progression)}<h2>Safety notes</h2>${items(w.safetyNotes)}${sourcesHtml(w.sources)}`,
  );
}

/** The meal plan as a standalone HTML document (the download), every text escaped. */
export function mealPlanHtml(m: MealPlan): string {
  const days = Object.entries(m.weeklyMealPlan)
    .map(
      ([day, meals]) =>
        `<h3>${escapeHtml(day)}</h3><table><thead><tr><th>Meal</th><th>Dish</th><th>Ingredients</th><th>Nutrients</th><th>Prep</th></tr></thead><tbody>${MEAL_SLOTS.map(
          (slot) => {
            const meal = meals[slot];
            return `<tr><td>${slot[0]!.toUpperCase()}${slot.slice(1)}</td><td>${escapeHtml(meal.name)}${cite(meal)}</td><td>${escapeHtml(meal.ingredients.join(", "))}</td><td>${escapeHtml(meal.nutrients.join(", "))}</td><td>${escapeHtml(meal.prepTime)}</td></tr>`;
          },
        ).join("")}</tbody></table>`,
    )
    .join("");
  const targets = m.nutritionalGuidelines.dailyTargets
    .map(
      (t) =>
        `<tr><td>${escapeHtml(t.nutrient)}</td><td>${escapeHtml(t.amount)}</td><td>${escapeHtml(t.rationale)}${cite(t)}</td></tr>`,
    )
    .join("");
  return page(
    `7-day meal plan: ${m.studyTitle}`,
    `<h1>7-day meal plan</h1><p>Based on: <strong>${escapeHtml(m.studyTitle)}</strong></p><p class="note">Generated by ${escapeHtml(m.model)} on ${escapeHtml(m.generatedAt.slice(0, 10))}. Not medical advice.</p>` +
      `<h2>Executive summary</h2><p>${escapeHtml(m.executiveSummary)}</p><p>${escapeHtml(m.summary)}</p>` +
      `<h2>Nutritional guidelines</h2><p>Key nutrients: ${escapeHtml(m.nutritionalGuidelines.keyNutrients.join(", "))}</p><table><thead><tr><th>Nutrient</th><th>Daily target</th><th>Rationale</th></tr></thead><tbody>${targets}</tbody></table>` +
      `<h2>Weekly meal plan</h2>${days}<h2>Shopping list</h2>${m.shoppingList.map((c) => `<h3>${escapeHtml(c.category)}</h3><ul>${c.items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`).join("")}` +
      `<h2>Meal prep tips</h2><ul>${m.mealPrepTips.map((t) => `<li>${escapeHtml(t)}</li>`).join("")}</ul><h2>Research rationale</h2><p>${escapeHtml(m.researchRationale)}</p>${sourcesHtml(m.sources)}`,
  );
}

/**
 * The HTML to download, or null with the SPEC §5 message when there is no plan or its HTML is
 * under 100 characters ('No Workout Available' / 'No Meal Plan Available').
 */
export function planDownload(
  kind: "workout" | "meal-plan",
  plan: Workout | MealPlan | null,
): { html: string; fileName: string } | { error: string } {
  const message = kind === "workout" ? NO_WORKOUT_MESSAGE : NO_MEAL_PLAN_MESSAGE;
  if (!plan) return { error: message };
  const html = kind === "workout" ? workoutHtml(plan as Workout) : mealPlanHtml(plan as MealPlan);
  if (html.length < MIN_PLAN_HTML_CHARS) return { error: message };
  return { html, fileName: `metamind-${kind}-${Date.now()}.html` };
}
