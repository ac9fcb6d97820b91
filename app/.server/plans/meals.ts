/**
 * 7-day meal plans grounded in the foods, nutrients and doses a study reports (issue 14, SPEC §3
 * Meal plan, §9 7 days, 15 min default prep). Offline: rules find the study's dietary pattern,
 * foods, nutrients and doses in its sentences and fill a recipe template that favours those
 * foods; meals featuring a reported food cite its sentence, the rest are labelled general guidance
 * (based on the WHO healthy-diet fact sheet, 2020). With a model: structured output passing the
 * same citation check ({@link enforceMealCitations}).
 */
import type { SourceSentence } from "../ai/grounding";
import {
  DEFAULT_PREP_TIME,
  MEAL_SLOTS,
  WEEK_DAYS,
  type DailyTarget,
  type DayMeals,
  type Meal,
  type MealPlan,
} from "~/lib/plans";
import { citedSources, enforceCitation, type Fact } from "./facts";

/** A food the rules recognise: its pattern, label, shopping category and what it provides. */
interface FoodTerm {
  key: string;
  pattern: RegExp;
  label: string;
  category: string;
  /** Reported as something to limit (the plan avoids it). */
  limit?: boolean;
}

const FOODS: FoodTerm[] = [
  { key: "olive-oil", pattern: /\bolive oil\b/i, label: "Extra-virgin olive oil", category: "Oils, nuts & seeds" },
  {
    key: "nuts",
    pattern: /\b(?:nuts?|walnuts?|almonds?|hazelnuts?|pistachios?|peanuts?)\b/i,
    label: "Mixed nuts",
    category: "Oils, nuts & seeds",
  },
  {
    key: "seeds",
    pattern: /\b(?:flax ?seeds?|linseeds?|chia(?: seeds?)?|pumpkin seeds?)\b/i,
    label: "Ground flaxseed or chia",
    category: "Oils, nuts & seeds",
  },
  {
    key: "fish",
    pattern: /\b(?:fish|salmon|sardines?|mackerel|herring|tuna|seafood)\b/i,
    label: "Oily fish (salmon, sardines, mackerel)",
    category: "Fish & protein",
  },
  {
    key: "legumes",
    pattern: /\b(?:legumes?|beans?|lentils?|chickpeas?|pulses?)\b/i,
    label: "Lentils, beans or chickpeas",
    category: "Pantry",
  },
  { key: "soy", pattern: /\b(?:soy|soya|tofu|tempeh|edamame)\b/i, label: "Tofu or tempeh", category: "Fish & protein" },
  {
    key: "whole-grains",
    pattern: /\b(?:whole[- ]?grains?|wholegrain|oats?|oatmeal|brown rice|barley|quinoa|whole[- ]wheat)\b/i,
    label: "Whole grains (oats, brown rice, barley)",
    category: "Pantry",
  },
  {
    key: "vegetables",
    pattern: /\b(?:vegetables?|leafy greens?|spinach|kale|broccoli|salad|tomato(?:es)?)\b/i,
    label: "Vegetables and leafy greens",
    category: "Fruit & vegetables",
  },
  {
    key: "fruit",
    pattern: /\b(?:fruits?|berries|blueberries|strawberries|apples?|citrus|oranges?)\b/i,
    label: "Fruit and berries",
    category: "Fruit & vegetables",
  },
  {
    key: "dairy",
    pattern: /\b(?:dairy|yog(?:h)?urt|milk|cheese|kefir)\b/i,
    label: "Plain yogurt or kefir",
    category: "Dairy & eggs",
  },
  { key: "eggs", pattern: /\beggs?\b/i, label: "Eggs", category: "Dairy & eggs" },
  {
    key: "poultry",
    pattern: /\b(?:poultry|chicken|turkey)\b/i,
    label: "Chicken or turkey",
    category: "Fish & protein",
  },
  { key: "coffee", pattern: /\bcoffee\b/i, label: "Coffee", category: "Drinks" },
  { key: "tea", pattern: /\b(?:green tea|tea)\b/i, label: "Green tea", category: "Drinks" },
  {
    key: "cocoa",
    pattern: /\b(?:cocoa|dark chocolate)\b/i,
    label: "Dark chocolate (70%+) or cocoa",
    category: "Pantry",
  },
  {
    key: "red-meat",
    pattern: /\b(?:red meat|processed meats?|beef|pork|bacon|sausages?)\b/i,
    label: "Red and processed meat",
    category: "Limit",
    limit: true,
  },
  {
    key: "sugar",
    pattern: /\b(?:sugar[- ]sweetened|added sugars?|sugary drinks?|soft drinks?|sweets)\b/i,
    label: "Added sugar and sugary drinks",
    category: "Limit",
    limit: true,
  },
  {
    key: "ultra-processed",
    pattern: /\bultra[- ]processed\b/i,
    label: "Ultra-processed foods",
    category: "Limit",
    limit: true,
  },
];

const NUTRIENTS: { key: string; pattern: RegExp; label: string; foods: string[] }[] = [
  {
    key: "protein",
    pattern: /\bprotein\b/i,
    label: "Protein",
    foods: ["fish", "legumes", "dairy", "eggs", "poultry", "soy"],
  },
  {
    key: "fiber",
    pattern: /\bfib(?:er|re)\b/i,
    label: "Fibre",
    foods: ["legumes", "whole-grains", "vegetables", "fruit", "seeds"],
  },
  {
    key: "omega-3",
    pattern: /\b(?:omega-3|n-3|EPA|DHA|fish oil)\b/i,
    label: "Omega-3 fatty acids",
    foods: ["fish", "seeds", "nuts"],
  },
  {
    key: "vitamin-d",
    pattern: /\bvitamin D\d?\b|\bcholecalciferol\b/i,
    label: "Vitamin D",
    foods: ["fish", "eggs", "dairy"],
  },
  { key: "calcium", pattern: /\bcalcium\b/i, label: "Calcium", foods: ["dairy", "soy", "vegetables"] },
  {
    key: "magnesium",
    pattern: /\bmagnesium\b/i,
    label: "Magnesium",
    foods: ["nuts", "seeds", "whole-grains", "legumes"],
  },
  { key: "iron", pattern: /\biron\b/i, label: "Iron", foods: ["legumes", "vegetables", "poultry"] },
  { key: "folate", pattern: /\b(?:folate|folic acid)\b/i, label: "Folate", foods: ["vegetables", "legumes"] },
  { key: "b12", pattern: /\b(?:vitamin B12|B12|cobalamin)\b/i, label: "Vitamin B12", foods: ["fish", "eggs", "dairy"] },
  { key: "potassium", pattern: /\bpotassium\b/i, label: "Potassium", foods: ["vegetables", "fruit", "legumes"] },
  {
    key: "polyphenols",
    pattern: /\b(?:polyphenols?|flavonoids?|flavanols?)\b/i,
    label: "Polyphenols",
    foods: ["fruit", "cocoa", "tea", "olive-oil"],
  },
  { key: "sodium", pattern: /\b(?:sodium|salt)\b/i, label: "Sodium (salt)", foods: [] },
  { key: "saturated-fat", pattern: /\bsaturated fat\b/i, label: "Saturated fat", foods: [] },
  {
    key: "carbohydrate",
    pattern: /\bcarbohydrates?\b/i,
    label: "Carbohydrate",
    foods: ["whole-grains", "fruit", "legumes"],
  },
  { key: "creatine", pattern: /\bcreatine\b/i, label: "Creatine", foods: ["fish", "poultry"] },
];

const PATTERNS: { pattern: RegExp; label: string; foods: string[] }[] = [
  {
    pattern: /\bMediterranean\b/i,
    label: "Mediterranean diet",
    foods: ["olive-oil", "vegetables", "legumes", "fish", "nuts", "whole-grains", "fruit"],
  },
  {
    pattern: /\bDASH\b/,
    label: "DASH diet",
    foods: ["vegetables", "fruit", "whole-grains", "dairy", "nuts", "legumes"],
  },
  {
    pattern: /\b(?:plant[- ]based|vegetarian|vegan)\b/i,
    label: "Plant-based diet",
    foods: ["legumes", "soy", "whole-grains", "vegetables", "nuts"],
  },
  {
    pattern: /\blow[- ]carb(?:ohydrate)?\b|\bketogenic\b/i,
    label: "Lower-carbohydrate diet",
    foods: ["eggs", "fish", "vegetables", "nuts", "olive-oil"],
  },
];

/** A recipe of the template: which foods it features and what it provides. */
interface Recipe {
  slot: (typeof MEAL_SLOTS)[number];
  name: string;
  ingredients: string[];
  nutrients: string[];
  features: string[];
  prepTime?: string;
}

const RECIPES: Recipe[] = [
  {
    slot: "breakfast",
    name: "Overnight oats with berries and ground flaxseed",
    ingredients: ["rolled oats", "milk or soy drink", "berries", "ground flaxseed"],
    nutrients: ["fibre", "omega-3 (ALA)", "polyphenols"],
    features: ["whole-grains", "fruit", "seeds", "dairy"],
    prepTime: "10 min",
  },
  {
    slot: "breakfast",
    name: "Greek yogurt with walnuts and fruit",
    ingredients: ["plain Greek yogurt", "walnuts", "apple or berries"],
    nutrients: ["protein", "calcium", "omega-3 (ALA)"],
    features: ["dairy", "nuts", "fruit"],
  },
  {
    slot: "breakfast",
    name: "Vegetable omelette on wholegrain toast",
    ingredients: ["eggs", "spinach", "tomatoes", "wholegrain bread", "olive oil"],
    nutrients: ["protein", "vitamin D", "folate"],
    features: ["eggs", "vegetables", "whole-grains", "olive-oil"],
  },
  {
    slot: "breakfast",
    name: "Tofu scramble with greens",
    ingredients: ["firm tofu", "kale", "onion", "turmeric", "olive oil"],
    nutrients: ["protein", "calcium", "iron"],
    features: ["soy", "vegetables", "olive-oil"],
  },
  {
    slot: "lunch",
    name: "Lentil and vegetable soup with wholegrain bread",
    ingredients: ["red lentils", "carrots", "celery", "tomatoes", "wholegrain bread"],
    nutrients: ["fibre", "protein", "folate", "potassium"],
    features: ["legumes", "vegetables", "whole-grains"],
    prepTime: "30 min",
  },
  {
    slot: "lunch",
    name: "Chickpea, quinoa and leafy-green salad with olive oil",
    ingredients: ["chickpeas", "quinoa", "mixed leaves", "cucumber", "olive oil", "lemon"],
    nutrients: ["fibre", "protein", "magnesium"],
    features: ["legumes", "whole-grains", "vegetables", "olive-oil"],
  },
  {
    slot: "lunch",
    name: "Sardines on wholegrain toast with tomato salad",
    ingredients: ["tinned sardines", "wholegrain bread", "tomatoes", "olive oil"],
    nutrients: ["omega-3 (EPA/DHA)", "vitamin D", "calcium"],
    features: ["fish", "whole-grains", "vegetables", "olive-oil"],
    prepTime: "10 min",
  },
  {
    slot: "lunch",
    name: "Chicken and vegetable wholegrain wrap",
    ingredients: ["cooked chicken breast", "wholegrain wrap", "peppers", "lettuce", "yogurt dressing"],
    nutrients: ["protein", "fibre", "B vitamins"],
    features: ["poultry", "whole-grains", "vegetables", "dairy"],
  },
  {
    slot: "dinner",
    name: "Baked salmon with roasted vegetables and barley",
    ingredients: ["salmon fillet", "broccoli", "peppers", "barley", "olive oil"],
    nutrients: ["omega-3 (EPA/DHA)", "protein", "vitamin D", "fibre"],
    features: ["fish", "vegetables", "whole-grains", "olive-oil"],
    prepTime: "30 min",
  },
  {
    slot: "dinner",
    name: "Bean and vegetable chilli with brown rice",
    ingredients: ["kidney beans", "black beans", "tomatoes", "onion", "peppers", "brown rice"],
    nutrients: ["fibre", "protein", "iron", "potassium"],
    features: ["legumes", "vegetables", "whole-grains"],
    prepTime: "35 min",
  },
  {
    slot: "dinner",
    name: "Tofu and vegetable stir-fry with brown rice",
    ingredients: ["firm tofu", "broccoli", "pak choi", "garlic", "brown rice", "sesame seeds"],
    nutrients: ["protein", "calcium", "fibre"],
    features: ["soy", "vegetables", "whole-grains", "seeds"],
    prepTime: "25 min",
  },
  {
    slot: "dinner",
    name: "Roast chicken with lentils and greens",
    ingredients: ["chicken thighs", "green lentils", "spinach", "olive oil", "lemon"],
    nutrients: ["protein", "iron", "folate", "fibre"],
    features: ["poultry", "legumes", "vegetables", "olive-oil"],
    prepTime: "40 min",
  },
  {
    slot: "snacks",
    name: "A handful of mixed nuts and a piece of fruit",
    ingredients: ["mixed unsalted nuts", "fruit"],
    nutrients: ["magnesium", "fibre", "polyphenols"],
    features: ["nuts", "fruit"],
    prepTime: "2 min",
  },
  {
    slot: "snacks",
    name: "Plain yogurt with berries",
    ingredients: ["plain yogurt", "berries"],
    nutrients: ["protein", "calcium", "polyphenols"],
    features: ["dairy", "fruit"],
    prepTime: "2 min",
  },
  {
    slot: "snacks",
    name: "Hummus with vegetable sticks",
    ingredients: ["hummus", "carrots", "cucumber", "peppers"],
    nutrients: ["fibre", "protein", "potassium"],
    features: ["legumes", "vegetables"],
    prepTime: "5 min",
  },
  {
    slot: "snacks",
    name: "Dark chocolate squares and green tea",
    ingredients: ["dark chocolate (70%+)", "green tea"],
    nutrients: ["polyphenols", "magnesium"],
    features: ["cocoa", "tea"],
    prepTime: "2 min",
  },
];

const INGREDIENT_CATEGORY: [RegExp, string][] = [
  [/salmon|sardine|chicken|tofu|egg|fish/i, "Fish & protein"],
  [/lentil|bean|chickpea|hummus|oat|quinoa|rice|barley|bread|wrap/i, "Grains & legumes"],
  [/yogurt|milk|kefir|cheese/i, "Dairy & alternatives"],
  [/nut|walnut|flax|sesame|olive oil|seed/i, "Oils, nuts & seeds"],
  [/tea|coffee|chocolate/i, "Drinks & treats"],
];

/** What the rules read from the study. */
export interface NutritionFacts {
  pattern: Fact<string> | null;
  foods: Map<string, Fact<string>>;
  limited: Fact<string>[];
  nutrients: Map<string, Fact<string>>;
  /** "2000 IU of vitamin D", "30 g/day of fibre": amount text, the nutrient/food it goes with. */
  doses: (Fact<string> & { nutrient: string })[];
}

const DOSE =
  /\b\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)?)?\s*(?:mg|g|µg|μg|mcg|IU|kcal|servings?|portions?|cups?|ml|mL)(?:\s*(?:\/|per)\s*(?:day|d|week|kg(?:\s*(?:\/|per)\s*day)?|kg body weight))?\b/gi;

/** Reads the dietary pattern, foods, nutrients and doses the sentences report. */
export function readNutritionFacts(sentences: readonly SourceSentence[]): NutritionFacts {
  const facts: NutritionFacts = { pattern: null, foods: new Map(), limited: [], nutrients: new Map(), doses: [] };
  for (const s of sentences) {
    for (const p of PATTERNS) {
      const m = p.pattern.exec(s.text);
      if (m && !facts.pattern) facts.pattern = { value: p.label, text: m[0], source: s.id };
    }
    for (const f of FOODS) {
      const m = f.pattern.exec(s.text);
      if (!m) continue;
      if (f.limit) {
        if (!facts.limited.some((l) => l.value === f.label))
          facts.limited.push({ value: f.label, text: m[0], source: s.id });
      } else if (!facts.foods.has(f.key)) facts.foods.set(f.key, { value: f.label, text: m[0], source: s.id });
    }
    const found: { key: string; label: string; index: number }[] = [];
    for (const n of NUTRIENTS) {
      const m = n.pattern.exec(s.text);
      if (!m) continue;
      found.push({ key: n.key, label: n.label, index: m.index });
      if (!facts.nutrients.has(n.key)) facts.nutrients.set(n.key, { value: n.label, text: m[0], source: s.id });
    }
    for (const d of s.text.matchAll(DOSE)) {
      if (found.length === 0) continue;
      const nearest = [...found].sort((a, b) => Math.abs(a.index - d.index) - Math.abs(b.index - d.index))[0]!;
      if (facts.doses.some((x) => x.nutrient === nearest.label)) continue;
      facts.doses.push({ value: d[0], text: d[0], source: s.id, nutrient: nearest.label });
    }
  }
  return facts;
}

/** The foods the plan features, with the sentence each comes from (pattern foods cite the pattern). */
function featuredFoods(f: NutritionFacts): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, fact] of f.foods) out.set(key, fact.source);
  for (const [key, fact] of f.nutrients) {
    for (const food of NUTRIENTS.find((n) => n.key === key)?.foods ?? [])
      if (!out.has(food)) out.set(food, fact.source);
  }
  if (f.pattern) {
    for (const food of PATTERNS.find((p) => p.label === f.pattern!.value)?.foods ?? [])
      if (!out.has(food)) out.set(food, f.pattern.source);
  }
  return out;
}

/** Builds the 7-day plan (the offline generator). */
export function buildMealPlan(
  sentences: readonly SourceSentence[],
  meta: { studyTitle: string; studyId: number | null; model: string; now?: Date },
): MealPlan {
  const facts = readNutritionFacts(sentences);
  const featured = featuredFoods(facts);
  const weeklyMealPlan: Record<string, DayMeals> = {};
  WEEK_DAYS.forEach((day, d) => {
    const meals = {} as DayMeals;
    for (const slot of MEAL_SLOTS) {
      const options = RECIPES.filter((r) => r.slot === slot)
        .map((r) => ({ r, score: r.features.filter((f) => featured.has(f)).length }))
        .sort((a, b) => b.score - a.score);
      const best = options.filter((o) => o.score === options[0]!.score && o.score > 0);
      const pool =
        best.length >= 2
          ? best
          : options.filter((o) => o.score > 0).length >= 2
            ? options.filter((o) => o.score > 0)
            : options;
      const pick = pool[(d + MEAL_SLOTS.indexOf(slot)) % pool.length]!.r;
      const food = pick.features.find((f) => featured.has(f));
      meals[slot] = {
        name: pick.name,
        ingredients: pick.ingredients,
        nutrients: pick.nutrients,
        prepTime: pick.prepTime ?? DEFAULT_PREP_TIME,
        source: food ? featured.get(food)! : null,
        general: !food,
      };
    }
    weeklyMealPlan[day] = meals;
  });

  const dailyTargets: DailyTarget[] = facts.doses.map((dose) => ({
    nutrient: dose.nutrient,
    amount: dose.text,
    rationale: "The dose the study reports.",
    source: dose.source,
    general: false,
  }));
  if (!dailyTargets.some((t) => /vegetable|fruit/i.test(t.nutrient))) {
    dailyTargets.push({
      nutrient: "Vegetables and fruit",
      amount: "At least 400 g (5 portions)",
      rationale: "WHO healthy-diet advice.",
      source: null,
      general: true,
    });
  }
  if (!dailyTargets.some((t) => /salt|sodium/i.test(t.nutrient))) {
    dailyTargets.push({
      nutrient: "Salt",
      amount: "Under 5 g",
      rationale: "WHO healthy-diet advice.",
      source: null,
      general: true,
    });
  }

  const used = new Map<string, Set<string>>();
  for (const meals of Object.values(weeklyMealPlan)) {
    for (const slot of MEAL_SLOTS) {
      for (const ing of meals[slot].ingredients) {
        const category = INGREDIENT_CATEGORY.find(([re]) => re.test(ing))?.[1] ?? "Fruit & vegetables";
        if (!used.has(category)) used.set(category, new Set());
        used.get(category)!.add(ing);
      }
    }
  }
  const shoppingList = [...used].map(([category, items]) => ({ category, items: [...items].sort() }));

  const foodsLabel = [...facts.foods.values()].map((f) => f.value.toLowerCase());
  const nutrientsLabel = [...facts.nutrients.values()].map((n) => n.value);
  const reported = [facts.pattern?.value, ...foodsLabel, ...nutrientsLabel].filter(Boolean) as string[];
  const executiveSummary = reported.length
    ? `A 7-day plan built around what the study reports: ${reported.slice(0, 8).join(", ")}. Meals that feature a reported food cite the study sentence; the rest are general healthy-eating guidance.`
    : "The study reports no specific foods, nutrients or doses, so this 7-day plan follows general healthy-eating guidance (WHO) and every meal is labelled as general guidance.";
  const cites = [
    ...new Set(
      [
        facts.pattern?.source,
        ...[...facts.foods.values()].map((f) => f.source),
        ...facts.doses.map((d) => d.source),
      ].filter(Boolean) as string[],
    ),
  ];
  const byId = new Map(sentences.map((s) => [s.id, s]));
  const summary = cites.length
    ? `The study reports: ${cites
        .slice(0, 3)
        .map((id) => `“${byId.get(id)!.text.trim()}” [${id}]`)
        .join(" ")}`
    : "The study text names no foods or nutrients the plan could build on.";
  const limits = facts.limited.map(
    (l) => `${l.value}: the study reports “${l.text}” [${l.source}], so the plan leaves it out.`,
  );
  const researchRationale =
    [
      facts.pattern ? `Dietary pattern: ${facts.pattern.value} [${facts.pattern.source}].` : null,
      ...[...facts.foods.values()].map(
        (f) => `${f.value} appears because the study reports “${f.text}” [${f.source}].`,
      ),
      ...facts.doses.map((d) => `Daily target for ${d.nutrient.toLowerCase()}: ${d.text} as reported [${d.source}].`),
      ...limits,
    ]
      .filter(Boolean)
      .join(" ") || "No study-specific foods were found; see the general guidance labels.";

  const core: MealCore = {
    executiveSummary,
    summary,
    weeklyMealPlan,
    shoppingList,
    mealPrepTips: [
      "Cook a double batch of grains and legumes on day 1 and day 4; they keep 3 days in the fridge.",
      "Wash and chop vegetables for 3 days at once and store them in airtight boxes.",
      "Portion nuts into small containers so snacks stay at a handful.",
      ...(featured.has("fish")
        ? ["Tinned oily fish (sardines, mackerel) counts as a fish meal and needs no cooking."]
        : []),
    ],
    nutritionalGuidelines: {
      keyNutrients: nutrientsLabel.length ? nutrientsLabel : ["Fibre", "Protein", "Unsaturated fats"],
      dailyTargets,
    },
    researchRationale,
  };
  return finishMealPlan(core, sentences, meta);
}

/** The parts of a meal plan a generator supplies. */
export type MealCore = Pick<
  MealPlan,
  | "executiveSummary"
  | "summary"
  | "weeklyMealPlan"
  | "shoppingList"
  | "mealPrepTips"
  | "nutritionalGuidelines"
  | "researchRationale"
>;

/** Applies the citation check to every meal and daily target. */
export function enforceMealCitations(core: MealCore, sentences: readonly SourceSentence[]): MealCore {
  const byId = new Map(sentences.map((s) => [s.id, s]));
  const meal = (m: Meal): Meal => {
    const checked = enforceCitation(m, byId, () => "");
    return { ...checked, prepTime: m.prepTime?.trim() ? m.prepTime : DEFAULT_PREP_TIME };
  };
  return {
    ...core,
    weeklyMealPlan: Object.fromEntries(
      Object.entries(core.weeklyMealPlan).map(([day, meals]) => [
        day,
        {
          breakfast: meal(meals.breakfast),
          lunch: meal(meals.lunch),
          dinner: meal(meals.dinner),
          snacks: meal(meals.snacks),
        },
      ]),
    ),
    nutritionalGuidelines: {
      ...core.nutritionalGuidelines,
      dailyTargets: core.nutritionalGuidelines.dailyTargets.map((t) => enforceCitation(t, byId, (x) => x.amount)),
    },
  };
}

/** Checks citations and adds the study, model, cited sentences and date. */
export function finishMealPlan(
  core: MealCore,
  sentences: readonly SourceSentence[],
  meta: { studyTitle: string; studyId: number | null; model: string; now?: Date },
): MealPlan {
  const checked = enforceMealCitations(core, sentences);
  const byId = new Map(sentences.map((s) => [s.id, s]));
  const fromText = [...`${checked.summary} ${checked.researchRationale}`.matchAll(/\[(S\d+)\]/g)].map((m) => m[1]!);
  const ids = [
    ...Object.values(checked.weeklyMealPlan).flatMap((d) => MEAL_SLOTS.map((s) => d[s].source)),
    ...checked.nutritionalGuidelines.dailyTargets.map((t) => t.source),
    ...fromText,
  ];
  return {
    ...checked,
    studyId: meta.studyId,
    studyTitle: meta.studyTitle,
    model: meta.model,
    sources: citedSources(ids, byId),
    generatedAt: (meta.now ?? new Date()).toISOString(),
  };
}
