import {
  GENERAL_GUIDANCE_LABEL,
  MEAL_SLOTS,
  type MealPlan,
  type PlanItem,
  type PlanSource,
  type Workout,
} from "~/lib/plans";

function Basis({ item }: { item: { source: string | null; general: boolean } }) {
  if (item.general) return <em className="ml-1 text-xs text-amber-700">({GENERAL_GUIDANCE_LABEL})</em>;
  if (item.source) {
    return (
      <sup className="ml-0.5">
        <a href={`#source-${item.source}`} className="text-brand-600 hover:underline">
          [{item.source}]
        </a>
      </sup>
    );
  }
  return null;
}

function Items({ items }: { items: PlanItem[] }) {
  return (
    <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
      {items.map((item, i) => (
        <li key={i}>
          {item.text}
          <Basis item={item} />
        </li>
      ))}
    </ul>
  );
}

function Sources({ sources }: { sources: PlanSource[] }) {
  if (sources.length === 0) return null;
  return (
    <section className="mt-6">
      <h3 className="font-semibold text-slate-900">Study sentences cited</h3>
      <ol className="mt-2 space-y-1 text-sm text-slate-700" data-testid="plan-sources">
        {sources.map((s) => (
          <li key={s.id} id={`source-${s.id}`}>
            <strong>[{s.id}]</strong> “{s.quote}”
          </li>
        ))}
      </ol>
    </section>
  );
}

const H = ({ children }: { children: string }) => (
  <h3 className="mt-5 mb-2 font-semibold text-slate-900">{children}</h3>
);

/** A 4-week training program: what the study reports, warm-up, weeks × sessions, progression, safety. */
export function WorkoutView({ workout }: { workout: Workout }) {
  return (
    <div data-testid="workout-plan">
      <H>What the study reports</H>
      <Items items={workout.protocol} />
      <H>Warm-up</H>
      <Items items={workout.warmUp} />
      {workout.weeks.map((week) => (
        <section key={week.week} className="mt-5">
          <h3 className="font-semibold text-slate-900">
            Week {week.week}: <span className="font-normal">{week.focus}</span>
          </h3>
          {week.sessions.map((s) => (
            <div key={s.name} className="mt-2 overflow-x-auto">
              <p className="text-sm font-medium text-slate-800">
                {s.name} · {s.duration}
              </p>
              <table className="mt-1 w-full border-collapse text-left text-xs">
                <thead>
                  <tr className="border-b border-slate-200 text-slate-500">
                    <th className="py-1 pr-2">Exercise</th>
                    <th className="py-1 pr-2">Sets</th>
                    <th className="py-1 pr-2">Reps / time</th>
                    <th className="py-1 pr-2">Intensity</th>
                    <th className="py-1 pr-2">Rest</th>
                  </tr>
                </thead>
                <tbody>
                  {s.exercises.map((e, i) => (
                    <tr key={i} className="border-b border-slate-100 align-top">
                      <td className="py-1 pr-2">
                        {e.name}
                        <Basis item={e} />
                      </td>
                      <td className="py-1 pr-2">{e.sets}</td>
                      <td className="py-1 pr-2">{e.reps}</td>
                      <td className="py-1 pr-2">{e.intensity}</td>
                      <td className="py-1 pr-2">{e.rest}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </section>
      ))}
      <H>Progression</H>
      <Items items={workout.progression} />
      <H>Safety notes</H>
      <Items items={workout.safetyNotes} />
      <Sources sources={workout.sources} />
    </div>
  );
}

/** A 7-day meal plan with its guidelines, shopping list, prep tips and research rationale. */
export function MealPlanView({ plan }: { plan: MealPlan }) {
  return (
    <div data-testid="meal-plan">
      <p className="text-sm text-slate-700">{plan.executiveSummary}</p>
      <p className="mt-2 text-sm text-slate-700">{plan.summary}</p>
      <H>Nutritional guidelines</H>
      <p className="text-sm text-slate-700">Key nutrients: {plan.nutritionalGuidelines.keyNutrients.join(", ")}</p>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
        {plan.nutritionalGuidelines.dailyTargets.map((t, i) => (
          <li key={i}>
            <strong>{t.nutrient}</strong>: {t.amount} — {t.rationale}
            <Basis item={t} />
          </li>
        ))}
      </ul>
      <H>Weekly meal plan</H>
      <div className="space-y-3">
        {Object.entries(plan.weeklyMealPlan).map(([day, meals]) => (
          <section key={day} className="rounded-lg border border-slate-200 p-3" data-testid="meal-day">
            <h4 className="text-sm font-semibold text-slate-900">{day}</h4>
            <dl className="mt-1 grid gap-1 text-xs text-slate-700 sm:grid-cols-2">
              {MEAL_SLOTS.map((slot) => (
                <div key={slot}>
                  <dt className="font-medium capitalize">{slot}</dt>
                  <dd>
                    {meals[slot].name}
                    <Basis item={meals[slot]} /> · {meals[slot].prepTime}
                    <br />
                    <span className="text-slate-500">{meals[slot].ingredients.join(", ")}</span>
                  </dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
      <H>Shopping list</H>
      <div className="grid gap-2 text-sm text-slate-700 sm:grid-cols-2">
        {plan.shoppingList.map((c) => (
          <div key={c.category}>
            <p className="font-medium">{c.category}</p>
            <p>{c.items.join(", ")}</p>
          </div>
        ))}
      </div>
      <H>Meal prep tips</H>
      <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
        {plan.mealPrepTips.map((t, i) => (
          <li key={i}>{t}</li>
        ))}
      </ul>
      <H>Research rationale</H>
      <p className="text-sm text-slate-700">{plan.researchRationale}</p>
      <Sources sources={plan.sources} />
    </div>
  );
}
