/**
 * Outcome and timepoint matching for pooling: which effects of different studies measure the
 * same thing at a compatible time. Pure. The extraction core's one outcome-phrase normaliser and
 * its one synonym table: the meta-analysis rules, the model-fill path and the grouping of rows all
 * normalise outcome phrases here.
 */

/** Equivalent names (after normalisation), mapped to one canonical phrase. Unambiguous only. */
const SYNONYMS: [RegExp, string][] = [
  [
    /^(?:all[- ]cause (?:mortality|death)|deaths? from any cause|any[- ]cause (?:mortality|death)|total mortality|overall mortality|mortality from any cause)$/,
    "all-cause mortality",
  ],
  [/^(?:hba1c|hemoglobin a1c|a1c|glycated hemoglobin|glycosylated hemoglobin)(?: hba1c)?$/, "hba1c"],
  [/^(?:body ?weight|weight)$/, "body weight"],
  [/^(?:bmi|body mass index)$/, "body mass index"],
  [/^(?:sbp|systolic blood pressure|systolic bp)$/, "systolic blood pressure"],
  [/^(?:dbp|diastolic blood pressure|diastolic bp)$/, "diastolic blood pressure"],
  [/^(?:vte|venous thromboembolism|venous thromboembolic events?|venous thrombo-embolism)$/, "venous thromboembolism"],
  [/^(?:mi|myocardial infarction|heart attack)$/, "myocardial infarction"],
  [/^(?:hf|heart failure)$/, "heart failure"],
  [/^(?:ae|aes|adverse events?|any adverse events?)$/, "adverse events"],
  [/^(?:sae|saes|serious adverse events?)$/, "serious adverse events"],
  [/^(?:fpg|fasting plasma glucose|fasting blood glucose|fasting glucose)$/, "fasting plasma glucose"],
  [/^(?:ldl|ldl-c|ldl cholesterol|low-density lipoprotein cholesterol)$/, "ldl cholesterol"],
  [/^(?:qol|quality of life|health-related quality of life|hrqol)$/, "quality of life"],
  [/^(?:adl|adls|activities of daily living)$/, "activities of daily living"],
  [/^(?:pd|parkinson'?s disease|parkinson disease)$/, "parkinson's disease"],
  [/^(?:stroke|cerebrovascular accident|cva)$/, "stroke"],
];

/** Words that carry no meaning for matching. */
const FILLER =
  /\b(?:the|a|an|of|in|on|for|to|and|with|any|risk|risks|incidence|rate|rates|odds|level|levels|occurrence|number|score|scores|total)\b/g;

/**
 * Normalises an outcome phrase for matching: lower case, British/American spellings unified
 * ("haemoglobin" → "hemoglobin"), brackets and punctuation dropped, frames such as "risk of" /
 * "incidence of" and a leading article removed, markup tags dropped, plural "-s" dropped from the last word, then synonyms mapped to one name.
 * Returns "" when nothing meaningful is left.
 */
export function normaliseOutcomePhrase(phrase: string): string {
  let s = phrase
    .replace(/<[^>]+>/g, " ")
    .toLowerCase()
    .replace(/[‐‑–—]/g, "-")
    .replace(/’/g, "'")
    .replace(/\([^)]*\)|\[[^\]]*\]/g, " ")
    .replace(/haem/g, "hem")
    .replace(/oedema/g, "edema")
    .replace(/anaem/g, "anem")
    .replace(/tumour/g, "tumor")
    .replace(/isation/g, "ization")
    .replace(/\s+/g, " ")
    .trim();
  s = s.replace(/^(?:the|a|an)\s+/, "");
  s = s.replace(
    /^(?:(?:risk|incidence|rate|odds|hazard|occurrence|prevalence|levels?|number|change|changes)\s+(?:of|in)\s+)+/,
    "",
  );
  s = s
    .replace(/[.,;:]+$/g, "")
    .replace(/^[.,;:]+/g, "")
    .trim();
  for (const [re, name] of SYNONYMS) if (re.test(s)) return name;
  const singular = s.replace(/(\w{4,}[^s])s$/, "$1");
  for (const [re, name] of SYNONYMS) if (re.test(singular)) return name;
  return singular;
}

/** Content words of a normalised phrase. */
function contentWords(normalised: string): Set<string> {
  return new Set(
    normalised
      .replace(FILLER, " ")
      .split(/[\s/-]+/)
      .map((w) => w.replace(/s$/, ""))
      .filter((w) => w.length > 1),
  );
}

/**
 * True when two outcome phrases name the same outcome: equal after {@link normaliseOutcomePhrase}
 * (synonyms included), or the same content words ignoring frames and plurals ("risk of stroke" /
 * "strokes"). Empty phrases match nothing.
 */
export function outcomesMatch(a: string, b: string): boolean {
  const na = normaliseOutcomePhrase(a);
  const nb = normaliseOutcomePhrase(b);
  if (!na || !nb) return false;
  if (na === nb) return true;
  const wa = contentWords(na);
  const wb = contentWords(nb);
  if (wa.size === 0 || wa.size !== wb.size) return false;
  for (const w of wa) if (!wb.has(w)) return false;
  return true;
}

const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const UNIT_DAYS: Record<string, number> = {
  day: 1,
  week: 7,
  wk: 7,
  month: 30.44,
  mo: 30.44,
  year: 365.25,
  yr: 365.25,
  hour: 1 / 24,
  h: 1 / 24,
};

/**
 * A timepoint in days, or null when it names no duration: "12 weeks" → 84, "0-30 days" → 30
 * (a window counts by its end), "six months" → 182.6, "week 8" → 56.
 */
export function timepointDays(timepoint: string | null | undefined): number | null {
  if (!timepoint) return null;
  const s = timepoint.toLowerCase();
  const range = /(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*(day|week|wk|month|mo|year|yr|hour|h)s?\b/.exec(s);
  if (range) return Number(range[2]) * UNIT_DAYS[range[3]!]!;
  const unitFirst = /\b(day|week|month|year)\s+(\d+)\b/.exec(s);
  if (unitFirst) return Number(unitFirst[2]) * UNIT_DAYS[unitFirst[1]!]!;
  const m =
    /(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]*(day|week|wk|month|mo|year|yr|hour|h)s?\b/.exec(
      s,
    );
  if (!m) return null;
  const n = WORD_NUMBERS[m[1]!] ?? Number(m[1]);
  return n * UNIT_DAYS[m[2]!]!;
}

/** A timepoint written for grouping: its duration in days when it has one, else its words. */
export function normaliseTimepoint(timepoint: string | null | undefined): string {
  if (!timepoint) return "";
  const days = timepointDays(timepoint);
  return days === null ? timepoint.toLowerCase().replace(/\s+/g, " ").trim() : `${Math.round(days)}d`;
}

/**
 * True when two timepoints may pool: either is unstated or only one names a duration, both are the
 * same words ("end of pregnancy"), or their durations differ by at most a factor of 1.5 (12 weeks
 * with 3 months; not 30 days with 1 year).
 */
export function timepointsCompatible(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return true;
  const da = timepointDays(a);
  const db = timepointDays(b);
  if (da === null && db === null) return normaliseTimepoint(a) === normaliseTimepoint(b);
  if (da === null || db === null) return true;
  const hi = Math.max(da, db);
  const lo = Math.min(da, db);
  return lo > 0 && hi / lo <= 1.5;
}
