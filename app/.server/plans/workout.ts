/**
 * 4-week training programs grounded in the protocol a study reports (issue 14, SPEC §3 Generated
 * workout, §9 4 weeks). Offline: rules read frequency, session length, programme length,
 * intensity, sets × reps, rest and modality from the study's sentences and fill a template; every
 * prescription cites its sentence; what the study does not report is conservative general guidance
 * (ACSM's Guidelines for Exercise Testing and Prescription, 11th ed.; WHO 2020 physical-activity
 * guidelines), labelled as such. With a model: structured output (zod) passing the same citation
 * check ({@link enforceWorkoutCitations}).
 */
import type { SourceSentence } from "../ai/grounding";
import type { PlanItem, Workout, WorkoutExercise, WorkoutWeek } from "~/lib/plans";
import {
  cited,
  citedSources,
  enforceCitation,
  firstFact,
  general,
  readCount,
  sentencesMatching,
  type Fact,
} from "./facts";

export type Modality = "resistance" | "aerobic" | "interval" | "mind-body";

/** The protocol facts a study reports (each null when the study is silent). */
export interface WorkoutProtocol {
  modalities: Fact<Modality>[];
  /** Activity named for aerobic work ("walking", "cycling"). */
  activity: Fact<string> | null;
  sessionsPerWeek: Fact<number> | null;
  sessionMinutes: Fact<{ low: number; high: number }> | null;
  programWeeks: Fact<number> | null;
  intensity: Fact<string> | null;
  setsReps: Fact<{ sets: number; reps: string }> | null;
  rest: Fact<string> | null;
  warmUp: SourceSentence | null;
  safety: SourceSentence[];
}

const COUNT = String.raw`(\d+|one|once|two|twice|three|thrice|four|five|six|seven)`;

/** Reads the protocol facts from the numbered sentences. */
export function readWorkoutProtocol(sentences: readonly SourceSentence[]): WorkoutProtocol {
  const modalities: Fact<Modality>[] = [];
  const addModality = (value: Modality, pattern: RegExp) => {
    const f = firstFact(sentences, pattern, () => value);
    if (f) modalities.push(f);
  };
  addModality(
    "resistance",
    /\b(?:resistance|strength|weight)[- ]?(?:training|exercise|program(?:me)?)s?\b|\bweight[- ]lifting\b|\b1RM\b/i,
  );
  addModality("interval", /\b(?:high[- ]intensity interval|HIIT|interval training|sprint interval)\b/i);
  addModality(
    "aerobic",
    /\b(?:aerobic|endurance|walking|brisk walk|running|jogging|cycling|treadmill|swimming|cardio(?:respiratory)? training)\b/i,
  );
  addModality("mind-body", /\b(?:yoga|tai chi|pilates|balance training|stretching)\b/i);
  return {
    modalities,
    activity: firstFact(
      sentences,
      /\b(brisk walking|walking|running|jogging|cycling|treadmill (?:walking|running)|swimming|rowing|stair climbing|dancing)\b/i,
      (m) => m[1]!.toLowerCase(),
    ),
    sessionsPerWeek:
      firstFact(
        sentences,
        new RegExp(
          String.raw`\b${COUNT}\s*(?:times|sessions|days|x|×)\s*(?:(?:per|a|each)\s*week|\/\s*(?:week|wk))`,
          "i",
        ),
        (m) => readCount(m[1]),
      ) ??
      firstFact(sentences, new RegExp(String.raw`\b(twice|thrice|once)[- ]weekly\b`, "i"), (m) => readCount(m[1])) ??
      firstFact(sentences, /\b(\d)\s*d\s*\/\s*wk\b/i, (m) => readCount(m[1])),
    sessionMinutes: firstFact(
      sentences,
      /\b(\d{1,3})(?:\s*(?:-|–|to)\s*(\d{1,3}))?[- ]?(?:min|minutes?|-minute)\b(?!\s*(?:walk test|rest))/i,
      (m) => {
        const low = Number(m[1]);
        const high = m[2] ? Number(m[2]) : low;
        return low >= 5 && high <= 180 ? { low, high } : null;
      },
    ),
    programWeeks: firstFact(sentences, /\b(\d{1,2})[- ](?:weeks?|wk)\b/i, (m) => {
      const n = Number(m[1]);
      return n >= 2 && n <= 104 ? n : null;
    }),
    intensity:
      firstFact(
        sentences,
        /\b\d{1,3}(?:\s*(?:-|–|to)\s*\d{1,3})?\s*%\s*(?:of\s*(?:the\s*)?)?(?:1RM|one[- ]repetition maximum|HR ?max|maximal heart rate|maximum heart rate|heart rate reserve|HRR|VO2 ?(?:max|peak)|peak (?:heart rate|oxygen uptake))/i,
        (m) => m[0],
      ) ??
      firstFact(sentences, /\bRPE\s*(?:of\s*)?\d{1,2}(?:\s*(?:-|–|to)\s*\d{1,2})?/i, (m) => m[0]) ??
      firstFact(sentences, /\b(?:moderate[- ]to[- ]vigorous|moderate|vigorous|low|light)[- ]intensity\b/i, (m) =>
        m[0].toLowerCase(),
      ),
    setsReps:
      firstFact(
        sentences,
        /\b(\d{1,2})\s*sets?\s*(?:of|x|×)\s*(\d{1,2}(?:\s*(?:-|–|to)\s*\d{1,2})?)\s*(?:repetitions|reps)\b/i,
        (m) => ({
          sets: Number(m[1]),
          reps: m[2]!.replace(/\s*(?:to|–)\s*/, "–").replace(/\s*-\s*/, "–"),
        }),
      ) ?? firstFact(sentences, /\b(\d{1,2})\s*[x×]\s*(\d{1,2})\b/, (m) => ({ sets: Number(m[1]), reps: m[2]! })),
    rest: firstFact(
      sentences,
      /\b\d{1,3}(?:\s*(?:-|–|to)\s*\d{1,3})?\s*(?:s|sec|seconds|min|minutes?)\s*(?:of\s*)?(?:rest|recovery)\b|\brest(?:ing)?\s*(?:intervals?|periods?)?\s*of\s*\d{1,3}\s*(?:s|sec|seconds|min|minutes?)\b/i,
      (m) => m[0],
    ),
    warmUp: sentencesMatching(sentences, /\bwarm[- ]?up\b/i)[0] ?? null,
    safety: sentencesMatching(
      sentences,
      /\b(?:adverse (?:events?|effects?)|injur(?:y|ies)|well tolerated|safe(?:ly|ty)?|side effects?|no serious)\b/i,
    ).slice(0, 3),
  };
}

const RESISTANCE_EXERCISES = [
  "Leg press or goblet squat",
  "Chest press or push-up",
  "Seated row",
  "Romanian deadlift or hip hinge",
  "Overhead press",
  "Plank (hold)",
];
const MIND_BODY = [
  "Balance sequence (single-leg stance, tandem walk)",
  "Mobility flow (hips, spine, shoulders)",
  "Breathing and relaxation",
];

/** The week's multiplier of the reported dose: weeks 1–2 start lower, week 4 reaches the reported dose. */
const WEEK_STEPS = [0.7, 0.8, 0.9, 1] as const;
const WEEK_FOCUS = [
  "Learn the movements at the lower end of the reported dose",
  "Build volume",
  "Build towards the study's dose",
  "Train at the study's reported dose",
] as const;

function minutesFor(p: WorkoutProtocol, week: number): string {
  if (!p.sessionMinutes) return `${[20, 25, 30, 30][week]} min`;
  const { low, high } = p.sessionMinutes.value;
  if (low !== high) return `${week < 2 ? low : high} min`;
  return `${Math.max(10, Math.round((high * WEEK_STEPS[week]!) / 5) * 5)} min`;
}

function exercisesFor(p: WorkoutProtocol, modality: Modality, week: number): WorkoutExercise[] {
  const intensity = p.intensity ? { intensity: p.intensity.text, source: p.intensity.source } : null;
  if (modality === "resistance") {
    const sr = p.setsReps;
    const sets = sr ? String(Math.max(1, week < 2 ? sr.value.sets - 1 : sr.value.sets)) : String(week < 2 ? 2 : 3);
    return RESISTANCE_EXERCISES.slice(0, 5).map((name) => {
      if (sr) {
        return {
          name,
          sets,
          reps: sr.value.reps,
          intensity:
            intensity && intensity.source === sr.source
              ? intensity.intensity
              : "Leave 2–3 reps in reserve (general guidance)",
          rest: p.rest?.text ?? "60–90 s (general guidance)",
          source: sr.source,
          general: false,
        };
      }
      return {
        name,
        sets,
        reps: "8–12",
        intensity: intensity?.intensity ?? "Moderate: leave 2–3 reps in reserve",
        rest: p.rest?.text ?? "60–90 s",
        source: intensity?.source ?? null,
        general: !intensity,
      };
    });
  }
  if (modality === "interval") {
    return [
      {
        name: "Intervals",
        sets: String(Math.max(3, Math.round(6 * WEEK_STEPS[week]!))),
        reps: "Work bouts as the study describes",
        intensity: intensity?.intensity ?? "Hard but controlled (RPE 15–17)",
        rest: p.rest?.text ?? "Equal-length easy recovery",
        source: intensity?.source ?? null,
        general: !intensity,
      },
    ];
  }
  if (modality === "mind-body") {
    return MIND_BODY.map((name) => ({
      name,
      sets: "1",
      reps: "5–10 min",
      intensity: "Light, controlled",
      rest: "As needed",
      source: null,
      general: true,
    }));
  }
  const activity = p.activity?.value ?? "Brisk walking or cycling";
  const minutes = minutesFor(p, week);
  const source = p.sessionMinutes?.source ?? intensity?.source ?? p.activity?.source ?? null;
  return [
    {
      name: activity[0]!.toUpperCase() + activity.slice(1),
      sets: "1",
      reps: minutes,
      intensity: intensity?.intensity ?? "Moderate: you can talk but not sing",
      rest: "—",
      source,
      general: source === null,
    },
  ];
}

/** The numbers of an exercise the study must contain when it is cited (sets, reps, intensity). */
const exerciseChecked = (e: WorkoutExercise) =>
  `${e.sets} ${e.reps} ${e.intensity}`.replace(/\(general guidance\)/g, "");

/**
 * Builds the 4-week plan from the protocol (the offline generator).
 */
export function buildWorkoutPlan(
  sentences: readonly SourceSentence[],
  meta: { studyTitle: string; studyId: number | null; model: string; now?: Date },
): Workout {
  const p = readWorkoutProtocol(sentences);
  const protocol: PlanItem[] = [];
  for (const m of p.modalities)
    protocol.push(cited(`Type of training: ${m.value} (the study reports “${m.text}”)`, m.source));
  if (p.sessionsPerWeek) protocol.push(cited(`Frequency: “${p.sessionsPerWeek.text}”`, p.sessionsPerWeek.source));
  if (p.sessionMinutes) protocol.push(cited(`Session length: “${p.sessionMinutes.text}”`, p.sessionMinutes.source));
  if (p.intensity) protocol.push(cited(`Intensity: “${p.intensity.text}”`, p.intensity.source));
  if (p.setsReps) protocol.push(cited(`Volume: “${p.setsReps.text}”`, p.setsReps.source));
  if (p.rest) protocol.push(cited(`Rest: “${p.rest.text}”`, p.rest.source));
  if (p.programWeeks)
    protocol.push(
      cited(`Programme length: “${p.programWeeks.text}”; this plan covers its first 4 weeks`, p.programWeeks.source),
    );
  if (protocol.length === 0) {
    protocol.push(
      general("The study does not report an exercise protocol; the plan below follows conservative general guidance."),
    );
  }

  const modalities: Modality[] =
    p.modalities.length > 0 ? [...new Set(p.modalities.map((m) => m.value))] : ["aerobic", "resistance"];
  const perWeek = Math.min(5, Math.max(2, p.sessionsPerWeek?.value ?? 3));
  const weeks: WorkoutWeek[] = WEEK_FOCUS.map((focus, w) => ({
    week: w + 1,
    focus,
    sessions: Array.from({ length: perWeek }, (_, i) => {
      const modality = modalities[i % modalities.length]!;
      return {
        name: `Session ${i + 1} (${modality})`,
        duration: minutesFor(p, w),
        exercises: exercisesFor(p, modality, w),
      };
    }),
  }));

  const warmUp: PlanItem[] = p.warmUp
    ? [cited(`Warm up as the study did: “${p.warmUp.text.trim()}”`, p.warmUp.id)]
    : [
        general("5–10 minutes of easy walking or cycling, then dynamic mobility for hips, knees and shoulders."),
        general("One light practice set of each strength exercise before the working sets."),
      ];

  const progression: PlanItem[] = [];
  if (p.intensity)
    progression.push(
      cited(`Weeks 1–2 at the lower end, week 4 at the study's intensity (“${p.intensity.text}”).`, p.intensity.source),
    );
  if (p.sessionMinutes)
    progression.push(
      cited(
        `Session length builds from about 70% of the reported length in week 1 to “${p.sessionMinutes.text}” by week 4.`,
        p.sessionMinutes.source,
      ),
    );
  if (p.programWeeks && p.programWeeks.value > 4)
    progression.push(
      cited(
        `The study continued for “${p.programWeeks.text}”; after week 4, keep the week-4 dose.`,
        p.programWeeks.source,
      ),
    );
  progression.push(
    general("Increase load or duration by no more than about 10% a week, and only when all sessions felt manageable."),
  );

  const safetyNotes: PlanItem[] = [
    ...p.safety.map((s) => cited(`The study reports: “${s.text.trim()}”`, s.id)),
    general(
      "Check with a doctor before starting if you have heart, lung, joint or metabolic conditions, are pregnant, or have been inactive.",
    ),
    general("Stop and seek medical help for chest pain, severe breathlessness, dizziness or palpitations."),
    general("Pain in a joint (not ordinary muscle effort) means reduce the load or range; do not train through it."),
  ];

  return finishWorkout({ protocol, warmUp, weeks, progression, safetyNotes }, sentences, meta);
}

/** The parts of a workout a generator (rules or model) supplies. */
export type WorkoutCore = Pick<Workout, "protocol" | "warmUp" | "weeks" | "progression" | "safetyNotes">;

/** Applies the citation check to every item ({@link enforceCitation}). */
export function enforceWorkoutCitations(core: WorkoutCore, sentences: readonly SourceSentence[]): WorkoutCore {
  const byId = new Map(sentences.map((s) => [s.id, s]));
  const item = (i: PlanItem) => enforceCitation(i, byId, (x) => x.text.replace(/“[^”]*”/g, ""));
  return {
    protocol: core.protocol.map(item),
    warmUp: core.warmUp.map(item),
    progression: core.progression.map(item),
    safetyNotes: core.safetyNotes.map(item),
    weeks: core.weeks.map((w) => ({
      ...w,
      sessions: w.sessions.map((s) => ({
        ...s,
        exercises: s.exercises.map((e) => enforceCitation(e, byId, exerciseChecked)),
      })),
    })),
  };
}

/** The plain-text form of a workout (SPEC §3 Generated workout: text). */
export function workoutText(w: Omit<Workout, "text">): string {
  const mark = (i: { source: string | null; general: boolean }) =>
    i.general ? " (general guidance)" : i.source ? ` [${i.source}]` : "";
  const list = (title: string, items: PlanItem[]) =>
    [`${title}:`, ...items.map((i) => `- ${i.text}${mark(i)}`)].join("\n");
  const weeks = w.weeks.map((week) =>
    [
      `Week ${week.week}: ${week.focus}`,
      ...week.sessions.map(
        (s) =>
          `  ${s.name}, ${s.duration}: ${s.exercises.map((e) => `${e.name} ${e.sets} × ${e.reps}, ${e.intensity}, rest ${e.rest}${mark(e)}`).join("; ")}`,
      ),
    ].join("\n"),
  );
  return [
    w.title,
    `Based on: ${w.studyTitle}`,
    list("What the study reports", w.protocol),
    list("Warm-up", w.warmUp),
    ...weeks,
    list("Progression", w.progression),
    list("Safety notes", w.safetyNotes),
    ["Sources:", ...w.sources.map((s) => `[${s.id}] ${s.quote}`)].join("\n"),
  ].join("\n\n");
}

/** Checks citations, collects the cited sentences and adds title, text and dates. */
export function finishWorkout(
  core: WorkoutCore,
  sentences: readonly SourceSentence[],
  meta: { studyTitle: string; studyId: number | null; model: string; now?: Date },
): Workout {
  const checked = enforceWorkoutCitations(core, sentences);
  const byId = new Map(sentences.map((s) => [s.id, s]));
  const ids = [
    ...checked.protocol,
    ...checked.warmUp,
    ...checked.progression,
    ...checked.safetyNotes,
    ...checked.weeks.flatMap((w) => w.sessions.flatMap((s) => s.exercises)),
  ].map((i) => i.source);
  const base = {
    title: `4-week training program`,
    studyTitle: meta.studyTitle,
    studyId: meta.studyId,
    model: meta.model,
    ...checked,
    sources: citedSources(ids, byId),
    generatedAt: (meta.now ?? new Date()).toISOString(),
  };
  return { ...base, text: workoutText(base) };
}
