/**
 * Provenance checks of one reading (issue 26 item 1, round 5): evidence of WHICH population, timepoint and
 * reading a number belongs to.
 *
 * The evidence items of extract.ts say that the arms, the outcome and the timepoint are named; the consistency
 * checks (consistency.ts) that the numbers add up. Numbers from the wrong population (per-protocol beside
 * intention-to-treat, a subgroup), the wrong time (a sentence giving two times) or a second, disagreeing reading of
 * the same outcome pass both. These checks use the general vocabulary of trial reporting (CONSORT 2010 items 16
 * and 18: analysed population, subgroup and adjusted analyses), never words taken from one report, and no
 * threshold. Each was kept only when cross-validation over folds of the open reports raised the precision of
 * the raw readings on folds it was not designed on and lowered it on none (docs/methods/arm-extraction.md,
 * "Round 5").
 */

/** The checks, in the order they run; a name is used in reasons and to switch one off (bench `--cv`). */
export const PROVENANCE_CHECKS = [
  "population-named",
  "time-in-sentence",
  "time-baseline-column",
  "row-qualifier",
  "row-sub-item",
  "row-threshold",
  "kind-asked",
] as const;

/** Name of one provenance check. */
export type ProvenanceCheckName = (typeof PROVENANCE_CHECKS)[number];

/**
 * Words that name an analysis of part of the randomised population (CONSORT 2010 items 16 and 18): per-protocol
 * or completers' analyses, subgroups, sensitivity and post-hoc analyses, analyses excluding participants, and age
 * strata. Intention-to-treat and "all randomised" name the full population and are not here.
 */
const RESTRICTED: readonly [RegExp, string][] = [
  [/\bper[-\s]?protocol\b|\bPP (?:population|analys[ie]s|set)\b/i, "per-protocol"],
  [/\bcompleters?\b|\bcomplete[-\s]cases?\b|\bcompleted the (?:study|trial)\b/i, "completers"],
  [/\bsub[-\s]?groups?\b/i, "subgroup"],
  [/\bsensitivity analys[ie]s\b/i, "sensitivity analysis"],
  [/\bpost[-\s]hoc\b/i, "post-hoc analysis"],
  [/\bexcluding\b|\bexclusion of (?:patients|participants|subjects)\b/i, "excluding participants"],
  [
    /\baged?\s*[<>≤≥]\s*\d|\b(?:aged?|years?)\s+\d+\s*(?:years?\s+)?(?:or|and)\s+(?:younger|older|over|under|above|below)\b|\b(?:younger|older) than \d+/i,
    "an age stratum",
  ],
];

/** The restricted population a text names (its label: "per-protocol", "subgroup", …), or null when it names none. */
export function restrictedPopulation(text: string): string | null {
  for (const [pattern, label] of RESTRICTED) if (pattern.test(text)) return label;
  return null;
}

/** Words naming the full randomised population (intention-to-treat, all randomised, full analysis set). */
export const FULL_POPULATION =
  /\b(intention[-\s]to[-\s]treat|ITT|all (?:randomi[sz]ed|participants|patients)|full analysis set)\b/i;

/**
 * Population check: the labels a reading was read under (caption, section, row and column labels, or its sentence)
 * name a restricted population that the question does not name. A question about that population ("… in patients
 * aged 65 or older") is answered by it; any other question is about the randomised population. When the table's
 * labels also name the full population (a caption "ITT and per-protocol analyses"), only the labels of the row and
 * columns read (`readLabels`) decide.
 */
export function populationCheck(labels: string, question: string, readLabels?: string): { ok: boolean; what: string } {
  let named = restrictedPopulation(labels);
  if (named && readLabels !== undefined && FULL_POPULATION.test(labels)) named = restrictedPopulation(readLabels);
  if (!named) return { ok: true, what: "population: no restricted analysis named" };
  if (restrictedPopulation(question) === named) return { ok: true, what: `population: ${named}, as the question asks` };
  return { ok: false, what: `population: read under a ${named} label the question does not name` };
}

/** Time expressions of follow-up ("week 12", "12 weeks", "6 months", "day 28", "2 hours", "30 min"). */
const TIME =
  /\b(?:(week|wk|month|day|year|hour)s?\s+(\d+)|(?<![\d.,·])(\d+)[-\s]?(weeks?|wks?|months?|mos?|days?|years?|yrs?|hours?|hrs?|min(?:utes?)?|mins)\b)/gi;

/**
 * Round 6's pattern (bench comparison only): its number may start inside a decimal, so the "76 min" of
 * "621.67 ± 46.76 min" counted as a follow-up time.
 */
const TIME_DECIMALS_SPLIT =
  /\b(?:(week|wk|month|day|year|hour)s?\s+(\d+)|(\d+)[-\s]?(weeks?|wks?|months?|mos?|days?|years?|yrs?|hours?|hrs?|min(?:utes?)?|mins)\b)/gi;

/** A comparison just before a duration: "more than", "longer than", "at least", "exceeding", "≥", ">", "<". */
const THRESHOLD_BEFORE =
  /(?:\b(?:more|longer|greater|less|fewer|shorter)\s+than|\bat\s+(?:least|most)|\bexceed(?:ing|s)?|\bminimum\s+of|[<>≤≥]\s*=?)\s*$/i;

/**
 * Round 19: a duration after a comparison ("diarrhoea for more than 3 days", "fever ≥ 48 hours", "hospital stay of
 * at least 7 days") is a threshold of the outcome's definition, not a time of assessment. `before` is the text just
 * before the duration's number.
 */
export function isThresholdDuration(before: string): boolean {
  return isThresholdBefore(before);
}

/**
 * Whether `before`, the text just before a number, ends with a comparison that makes the number a threshold ("more
 * than", "at least", "≥", "exceeding" …): of a duration (`isThresholdDuration`), a percentage or a score (round 20).
 */
export function isThresholdBefore(before: string): boolean {
  return THRESHOLD_BEFORE.test(before.slice(-24));
}

/** What follows a threshold's number when the comparison comes after it: "10% or more", "12 or higher" (round 20). */
export const THRESHOLD_AFTER = /^\s*%?\s*or\s+(?:more|greater|higher|above|less|lower|below|fewer)\b/i;

/** Minutes per unit, by the unit's first letters. */
function unitMinutes(unit: string): number {
  const u = unit.toLowerCase();
  if (u.startsWith("mi")) return 1;
  if (u.startsWith("mo")) return 43830;
  return { w: 10080, d: 1440, y: 525960, h: 60 }[u[0]] ?? 1;
}

/**
 * The distinct follow-up times a sentence names, in minutes. "for 12 weeks" and "at 12 weeks" are the same time;
 * a duration of treatment and an assessment time cannot be told apart, so both count. Times within 10% of each
 * other are one time (24 weeks and 6 months). A number that is one of the reading's own values (`values`: a
 * duration outcome, "613 ± 52 min") or follows "±" is a measurement, not a time of assessment. Round 8: a time's number
 * never starts inside a decimal (family: duration outcomes reported as "621.67 ± 46.76 min" in prose, whose decimal
 * parts "76 min" and "58 min" were counted as two follow-up times); `wholeNumbers: false` restores round 6's reading
 * (bench comparison only). Round 19: a duration after a comparison ("more than 3 days", `isThresholdDuration`) defines
 * the outcome and is not a time.
 */
export function timesIn(sentence: string, values: readonly number[] = [], wholeNumbers = true): number[] {
  const out = new Set<number>();
  for (const m of sentence.matchAll(wholeNumbers ? TIME : TIME_DECIMALS_SPLIT)) {
    const value = Number(m[2] ?? m[3]);
    if (!(value > 0)) continue;
    if (values.some((v) => Math.abs(v - value) < 1e-9)) continue;
    if (/[±]\s*$|\+\/-\s*$/.test(sentence.slice(Math.max(0, (m.index ?? 0) - 3), m.index))) continue;
    if (isThresholdDuration(sentence.slice(0, m.index))) continue;
    out.add(Math.round(value * unitMinutes(m[1] ?? m[4])));
  }
  const sorted = [...out].sort((a, b) => a - b);
  return sorted.filter((d, i) => i === 0 || d > 1.1 * sorted[i - 1]);
}

/** Words naming the time before treatment (baseline, pre-treatment, at entry or randomisation). */
const BASELINE_TIME =
  /\b(baseline|pre[-\s]?(?:treatment|intervention|operative|test)|before (?:treatment|the intervention|surgery|randomi[sz]ation)|at (?:entry|enrol?ment|randomi[sz]ation|inclusion|admission)|on admission|week 0|day 0)\b/i;

/**
 * "Patients assigned to A at baseline": baseline as the time an arm was assigned (round 19), not a time the outcome
 * was measured. The sentence's times are read without it.
 */
const ASSIGNED_AT_BASELINE = /(\b(?:assigned|randomi[sz]ed|allocated)\b[^.;]{0,40}?)\s+at\s+baseline\b/gi;

/** The first five letters of a word after "baseline" that make it a time or a measure, not a name ("baseline values", "baseline up to"). */
const BASELINE_NOT_NAME =
  /^(?:value|level|score|measu|chara|data|up|to|and|or|throu|until|till|in|of|at|for|with|was|were|visit)$/;

/**
 * Round 24: "baseline" as a word of the outcome's own name ("completed all recommended baseline laboratory
 * monitoring"), not a time: each "baseline X" of `outcomePhrase` (the question's outcome) is taken out of `sentence`.
 */
function withoutOutcomeBaseline(sentence: string, outcomePhrase: string): string {
  let out = sentence;
  for (const m of outcomePhrase.matchAll(
    /(?<!\b(?:from|at|since|to|than|over|vs\.?|versus|and|or)\s+)\bbaseline\s+([a-z][a-z-]+)/gi,
  )) {
    const next = m[1].toLowerCase().slice(0, 5);
    if (BASELINE_NOT_NAME.test(next)) continue;
    out = out.replace(new RegExp(String.raw`\bbaseline\s+(?=${next})`, "gi"), "");
  }
  return out;
}

/** Words naming the time after treatment. */
const AFTER_TIME =
  /\b(post[-\s]?(?:treatment|intervention|operative|test)|after|end of (?:treatment|the intervention|study|the study|trial)|final|endpoint|follow[-\s]?up)\b/i;

/**
 * Timepoint check of a sentence: a sentence naming two or more times (follow-up times, or baseline and a
 * follow-up time) holds numbers of more than one time, and which pair belongs to which cannot be shown from the
 * sentence's grammar alone; a sentence naming baseline only describes the groups before treatment. A question
 * about baseline values is answered by a sentence naming baseline only.
 */
export function sentenceTimeCheck(
  sentence: string,
  asksBaseline = false,
  values: readonly number[] = [],
  wholeNumbers = true,
  outcomePhrase = "",
): { ok: boolean; what: string } {
  const times = timesIn(sentence, values, wholeNumbers).length;
  const baseline = BASELINE_TIME.test(
    withoutOutcomeBaseline(sentence.replace(ASSIGNED_AT_BASELINE, "$1"), outcomePhrase),
  );
  if (times + (baseline ? 1 : 0) >= 2)
    return {
      ok: false,
      what: `timepoint: the sentence names ${baseline ? "baseline and a follow-up time" : `${times} follow-up times`}`,
    };
  if (baseline && !asksBaseline && !AFTER_TIME.test(sentence))
    return { ok: false, what: "timepoint: the sentence names baseline only, the question a result" };
  return { ok: true, what: "timepoint: the sentence names at most one time" };
}

/**
 * Timepoint check of a table reading: the columns read (or, for rows that are times, the row) are labelled
 * baseline/pre-treatment and not after treatment, while the question asks for a result (not a baseline value,
 * not a change, which a change table shows beside its baseline).
 */
export function baselineColumnCheck(
  columnLabels: readonly string[],
  rowLabel: string,
  asksBaseline: boolean,
): { ok: boolean; what: string } {
  if (asksBaseline) return { ok: true, what: "timepoint: baseline values, as the question asks" };
  // "Change from baseline" names a change (the change item's concern), not the time before treatment.
  const at = [...columnLabels, rowLabel].find(
    (l) =>
      BASELINE_TIME.test(l) && !AFTER_TIME.test(l) && !/\b(changes?|difference|reduction|decrease|increase)\b/i.test(l),
  );
  return at
    ? { ok: false, what: `timepoint: read under "${at}", a baseline label, for a result` }
    : { ok: true, what: "timepoint: not a baseline column" };
}

/** Decimals a number is printed with ("12.40" → 2). */
function decimalsOf(value: number): number {
  const s = String(value);
  const dot = s.indexOf(".");
  return dot < 0 ? 0 : s.length - dot - 1;
}

/**
 * Whether two printed numbers are the same number stated twice: equal, or one is the other rounded to its fewer
 * decimals (a table's 12.43 and the abstract's 12.4).
 */
export function sameNumber(a: number, b: number): boolean {
  if (a === b) return true;
  const d = Math.min(decimalsOf(a), decimalsOf(b));
  return Math.abs(a - b) <= 0.5 * 10 ** -d + 1e-9;
}

/**
 * Qualifiers that make a row a restricted part of an outcome (harms by severity or attribution as CONSORT's harms
 * extension and CTCAE grade them; a subscale or domain of a score; a condition of measurement). Consequences
 * ("leading to discontinuation", "requiring surgery") are left out: a question often names the outcome after them.
 * A row "Serious adverse events" names every concept of "adverse events", so the outcome item passes it.
 */
const QUALIFIER =
  /\b(serious|severe|mild|moderate|life[-\s]threatening|fatal|grade\s*(?:[≥>]=?\s*)?\d|(?:drug|treatment|study[-\s]drug|procedure|device)[-\s]related|sub[-\s]?scales?|domains?|at rest|on (?:movement|coughing|exertion)|during (?:movement|exercise)|nocturnal)\b/i;

/**
 * Row check: the row label the values were read on names a qualifier that the question's outcome does not
 * ("Serious adverse events" for "adverse events", "Pain at rest" for "pain").
 */
export function qualifierCheck(rowLabel: string, questionOutcome: string): { ok: boolean; what: string } {
  const m = QUALIFIER.exec(rowLabel);
  if (!m) return { ok: true, what: "row: no qualifier beyond the outcome" };
  const word = m[1].toLowerCase().replace(/[-\s]+/g, " ");
  if (
    questionOutcome
      .toLowerCase()
      .replace(/[-\s]+/g, " ")
      .includes(word)
  )
    return { ok: true, what: `row: "${m[1]}", as the question asks` };
  return { ok: false, what: `row: the label adds "${m[1]}", which the question's outcome does not name` };
}

/** Words of a row label that say when or how a value was measured, not what: times, statistics, totals. */
const NOT_AN_ITEM =
  /\b(total|overall|any|all|mean|means|sd|se|sem|median|iqr|range|n|no|number|percent|percentage|baseline|end|post|pre|after|before|treatment|follow|up|visit|time|week|weeks|wk|month|months|day|days|year|years|hour|hours|h|min|minutes|final|score|scores|value|values|change|at|of|in|the|and|or|to|from|patients|participants|subjects)\b|\d+|[^\p{L}]+/giu;

/**
 * Row check: the row's own label shares no word with the question's outcome, which is named only by the section
 * (context) row above it, and the label names something else (an item, not a time, statistic or total): the row
 * is one sub-item of the outcome ("Adverse events" › "Headache"), not the outcome.
 */
export function subItemCheck(
  rowLabel: string,
  ownScore: number,
  viaContext: string | null,
): { ok: boolean; what: string } {
  if (viaContext === null || ownScore > 0) return { ok: true, what: "row: names the outcome itself" };
  const rest = rowLabel.replace(NOT_AN_ITEM, " ").trim();
  if (!rest) return { ok: true, what: `row: a time or statistic under "${viaContext}"` };
  return { ok: false, what: `row: "${rowLabel}" is one item under "${viaContext}", not the outcome` };
}

/** A cut-off that dichotomises a measure ("Score <85", "HbA1c ≥ 7%", "more than 2 falls"). */
const CUT_OFF =
  /(?:[<>≤≥]=?\s*-?\d)|\b(?:below|above|under|over|at least|at most|more than|less than|greater than|fewer than)\s+-?\d|\d+\s*(?:or more|or less|or above|or below)\b/i;

/**
 * Row check: the row counts the participants beyond a cut-off of a measure ("Cognitive score <85") while the
 * question names no cut-off: the row is a dichotomised version of the outcome, not the outcome asked.
 */
export function thresholdCheck(rowLabel: string, questionOutcome: string): { ok: boolean; what: string } {
  const m = CUT_OFF.exec(rowLabel);
  if (!m) return { ok: true, what: "row: no cut-off" };
  if (CUT_OFF.test(questionOutcome)) return { ok: true, what: "row: a cut-off, as the question names one" };
  return { ok: false, what: `row: counts beyond a cut-off ("${m[0].trim()}") the question does not name` };
}

/** The question asks for a mean (or average) value. */
const ASKS_MEAN = /\b(mean|means|average)\b/i;

/**
 * Kind check: the question asks for a mean and the reading gives counts (participants in a category of the
 * measure). The reverse, means for a question about events, is already set aside by the reader.
 */
export function kindCheck(kind: "count" | "continuous", questionOutcome: string): { ok: boolean; what: string } {
  if (kind === "count" && ASKS_MEAN.test(questionOutcome))
    return { ok: false, what: "kind: the question asks for a mean, the reading gives counts" };
  return { ok: true, what: "kind: as asked" };
}
