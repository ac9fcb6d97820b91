/**
 * Definitional row rules of issue 26 round 16 (docs/methods/arm-extraction.md "Round 16"): a reading whose own labels
 * state, explicitly, a unit, scale, component, analysis population or event type that contradicts the one the question
 * states is not the quantity asked, whatever its calibrated probability. Each function compares the question's outcome
 * (and, for the population, the whole question) with the labels the values were read under and returns what it found,
 * or null when the rule does not apply. A missing statement on either side is never a contradiction: only two explicit,
 * incompatible statements are. The vocabulary is general (SI and conventional units, CONSORT 2010 items 16 and 18 for
 * analysis populations, CONSORT harms and CTCAE wording for event types), never words taken from one report.
 */
import { FULL_POPULATION, restrictedPopulation } from "./provenance.ts";

/** Dimensions of the units the unit rule knows; two different units of one dimension give different numbers. */
type Dimension =
  | "mass"
  | "length"
  | "volume"
  | "concentration"
  | "pressure"
  | "energy"
  | "temperature"
  | "bmi"
  | "scale"
  | "percent"
  | "predicted"
  | "relative"
  | "absolute";

/** One unit stated in a label: its canonical spelling and dimension. */
interface Unit {
  unit: string;
  dimension: Dimension;
}

/** Wordings of a change on a relative, predicted or absolute scale, read before the units (they hold a "%"). */
const SCALE_WORDS: readonly [RegExp, Unit][] = [
  [
    /%\s*pred(?:icted)?\b|\bper\s?cent(?:age)?\s+(?:of\s+)?predicted\b/gi,
    { unit: "% predicted", dimension: "predicted" },
  ],
  [
    /%\s*(?:change|reduction|decrease|increase)\b|\bper\s?cent(?:age)?\s+(?:change|reduction|decrease|increase)\b|\brelative\s+(?:change|reduction|decrease|increase|difference)\b/gi,
    { unit: "relative (%) change", dimension: "relative" },
  ],
  [
    /\babsolute\s+(?:change|reduction|decrease|increase|difference)\b/gi,
    { unit: "absolute change", dimension: "absolute" },
  ],
];

/** Units by spelling (case-insensitive, longest first by construction of the alternation). */
const UNIT_SPELLINGS: readonly [string, Unit][] = [
  ["kg/m2|kg/m²|kg/m\\^2", { unit: "kg/m²", dimension: "bmi" }],
  ["mmol/mol", { unit: "mmol/mol", dimension: "concentration" }],
  ["mg/dl", { unit: "mg/dL", dimension: "concentration" }],
  ["mmol/l", { unit: "mmol/L", dimension: "concentration" }],
  ["[µμu]mol/l", { unit: "µmol/L", dimension: "concentration" }],
  ["nmol/l", { unit: "nmol/L", dimension: "concentration" }],
  ["pmol/l", { unit: "pmol/L", dimension: "concentration" }],
  ["meq/l", { unit: "mEq/L", dimension: "concentration" }],
  ["g/dl", { unit: "g/dL", dimension: "concentration" }],
  ["mg/l", { unit: "mg/L", dimension: "concentration" }],
  ["g/l", { unit: "g/L", dimension: "concentration" }],
  ["ng/ml", { unit: "ng/mL", dimension: "concentration" }],
  ["pg/ml", { unit: "pg/mL", dimension: "concentration" }],
  ["[µμu]g/l", { unit: "µg/L", dimension: "concentration" }],
  ["iu/l", { unit: "IU/L", dimension: "concentration" }],
  ["u/l", { unit: "U/L", dimension: "concentration" }],
  ["mm\\s?hg", { unit: "mmHg", dimension: "pressure" }],
  ["kpa", { unit: "kPa", dimension: "pressure" }],
  ["cm\\s?h2o", { unit: "cmH2O", dimension: "pressure" }],
  ["kcal", { unit: "kcal", dimension: "energy" }],
  ["kj", { unit: "kJ", dimension: "energy" }],
  ["°\\s?c", { unit: "°C", dimension: "temperature" }],
  ["°\\s?f", { unit: "°F", dimension: "temperature" }],
  ["kg|kilograms?", { unit: "kg", dimension: "mass" }],
  ["lbs?|pounds?", { unit: "lb", dimension: "mass" }],
  ["cm|centimet(?:er|re)s?", { unit: "cm", dimension: "length" }],
  ["mm|millimet(?:er|re)s?", { unit: "mm", dimension: "length" }],
  ["inch(?:es)?", { unit: "inch", dimension: "length" }],
  ["ml|millilit(?:er|re)s?", { unit: "mL", dimension: "volume" }],
  ["lit(?:er|re)s?", { unit: "L", dimension: "volume" }],
];

const UNIT_PATTERN = new RegExp(
  `(?<![\\p{L}\\d/])(?:\\d+(?:[.,·]\\d+)?\\s*-?\\s*)?(${UNIT_SPELLINGS.map(([s]) => `(?:${s})`).join("|")})(?![\\p{L}/])`,
  "giu",
);

/** Each spelling of UNIT_SPELLINGS as a whole-word pattern, to name the unit a UNIT_PATTERN match spells. */
const UNIT_EXACT: readonly [RegExp, Unit][] = UNIT_SPELLINGS.map(([s, unit]) => [new RegExp(`^(?:${s})$`, "iu"), unit]);

/** A litre written as a capital L on its own: "(L)", "FEV1, L", "in L". */
const LITRE_L = /(?:\(|,\s*|\bin\s+)L(?=\s*\)|\s*,|\s*$)/g;

/** A scale's range, "0–10", "0 to 100", "1–5" (not a time span "weeks 0–12" nor an age band). */
const SCALE_RANGE =
  /(?<![\d.,·])([01])\s*(?:-|–|—|to)\s*(\d{1,3})(?![\d.,·])(?!\s*(?:days?|weeks?|wks?|months?|years?|yrs?|hours?|h\b|min))/gi;
const NOT_A_SCALE_BEFORE = /\b(?:days?|weeks?|wks?|months?|years?|hours?|visits?|aged?|grades?|stages?|doses?)\s*$/i;

/** A percentage sign that is a CI's level ("95% CI") or a count's notation ("n (%)"), not the measure's unit. */
const NOT_A_UNIT_PERCENT =
  /\d\s*%\s*(?:CI|confidence|credible)|\b(?:n|no\.?|number|patients|participants|events?)\s*\(\s*%\s*\)|\(\s*%\s*\)\s*of\b/gi;

/**
 * The units and scales a text states for a measure (round 16 unit-other). `percent: false` ignores a bare "%" (column
 * labels and captions, where "%" is mostly the notation of counts); a "%" of a CI level or of "n (%)" is never a unit.
 * The relative, predicted and absolute wordings ("% change", "% predicted", "absolute change") are read first.
 */
export function unitsIn(text: string, percent = true): Unit[] {
  const out = new Map<string, Unit>();
  let rest = text.replace(NOT_A_UNIT_PERCENT, " ");
  for (const [pattern, unit] of SCALE_WORDS) {
    // search() ignores a global pattern's lastIndex; replace() starts from the beginning.
    if (rest.search(pattern) !== -1) {
      out.set(unit.unit, unit);
      rest = rest.replace(pattern, " ");
    }
  }
  for (const m of rest.matchAll(SCALE_RANGE)) {
    if (Number(m[2]) < 3 || NOT_A_SCALE_BEFORE.test(rest.slice(0, m.index))) continue;
    // Keyed by the upper end: "0–10" and "1–10" are one scale.
    const unit = `0–${m[2]} scale`;
    out.set(unit, { unit, dimension: "scale" });
  }
  for (const m of rest.matchAll(UNIT_PATTERN)) {
    const spelled = m[1].toLowerCase().replace(/\s+/g, "");
    const found = UNIT_EXACT.find(([exact]) => exact.test(spelled));
    if (found) out.set(found[1].unit, found[1]);
  }
  if ([...rest.matchAll(LITRE_L)].length) out.set("L", { unit: "L", dimension: "volume" });
  if (percent && /%|\bper\s?cent(?:age)?\b/i.test(rest)) out.set("%", { unit: "%", dimension: "percent" });
  return [...out.values()];
}

/** Dimensions of physical measures (a percentage or a relative change is not in these units). */
const PHYSICAL = new Set<Dimension>(["mass", "length", "volume", "concentration", "pressure", "energy", "temperature"]);

/** Two stated units that cannot both describe the same number: the numbers differ by definition. */
function incompatible(a: Unit, b: Unit): boolean {
  if (a.unit === b.unit) return false;
  if (a.dimension === b.dimension) return a.dimension !== "percent";
  const pair = (x: Dimension, y: Dimension) =>
    (a.dimension === x && b.dimension === y) || (a.dimension === y && b.dimension === x);
  for (const d of PHYSICAL)
    if (pair("percent", d) || pair("predicted", d) || pair("relative", d) || pair("relative", "scale")) return true;
  return pair("relative", "absolute");
}

/**
 * unit-other (round 16): the question's outcome states a unit or scale ("weight (kg)", "HbA1c (%)", "pain on a 0–10
 * VAS", "percent change in LDL") and the reading's labels state another of the same quantity ("lb", "mmol/mol",
 * "0–100 mm", "mg/dL"), sharing none with the question. `reading` holds the labels that describe the values read: the
 * row (with its section row) and the columns read, or the sentence; `caption` is used only when those state no unit
 * and it states exactly one. Returns what was found, or null.
 */
export function unitOther(
  questionOutcome: string,
  reading: { row?: string; columns?: readonly string[]; caption?: string; sentence?: string },
): string | null {
  const asked = unitsIn(questionOutcome);
  if (!asked.length) return null;
  let read =
    reading.sentence !== undefined
      ? unitsIn(reading.sentence)
      : [...unitsIn(reading.row ?? ""), ...unitsIn((reading.columns ?? []).join(" | "), false)];
  if (!read.length && reading.caption) {
    const caption = unitsIn(reading.caption, false);
    if (caption.length === 1) read = caption;
  }
  if (!read.length || read.some((r) => asked.some((a) => a.unit === r.unit))) return null;
  for (const a of asked)
    for (const r of read)
      if (incompatible(a, r)) return `unit-other: the question asks for ${a.unit} and the reading is in ${r.unit}`;
  return null;
}

/**
 * Mutually exclusive components or conditions of one measure: a reading naming one of them and not the question's is
 * another number (SF-36/SF-12 summary components, systolic/diastolic pressure, pain at rest/on movement, fasting/
 * postprandial glucose, anxiety/depression subscales, day/night, LDL/HDL cholesterol).
 */
const COMPONENTS: readonly (readonly [string, RegExp])[][] = [
  [
    ["physical", /\bphysical\b|\bPCS\b/i],
    ["mental", /\bmental\b|\bMCS\b/i],
  ],
  [
    ["systolic", /\bsystolic\b|\bSBP\b/i],
    ["diastolic", /\bdiastolic\b|\bDBP\b/i],
  ],
  [
    ["at rest", /\bat rest\b|\bresting\b/i],
    [
      "on movement",
      /\b(?:on|during|with) (?:movement|coughing|exertion|exercise|activity|mobili[sz]ation)\b|\bdynamic\b/i,
    ],
  ],
  [
    ["fasting", /\bfasting\b/i],
    ["postprandial", /\bpost[-\s]?prandial\b/i],
  ],
  [
    ["anxiety", /\banxiety\b/i],
    ["depression", /\bdepress(?:ion|ive)\b/i],
  ],
  [
    ["day", /\bday[-\s]?time\b|\bdiurnal\b/i],
    ["night", /\bnight[-\s]?time\b|\bnocturnal\b|\bovernight\b/i],
  ],
  [
    ["LDL", /\bLDL\b|\blow[-\s]density\b/i],
    ["HDL", /\bHDL\b|\bhigh[-\s]density\b/i],
  ],
];

/**
 * subscale-other (round 16): the question's outcome names one component or condition of a measure (COMPONENTS: "SF-36
 * mental component", "systolic blood pressure", "pain on movement") and the reading's row (with its section row) or
 * sentence names another of the same set and not the question's. Returns what was found, or null.
 */
export function subscaleOther(questionOutcome: string, readLabels: string): string | null {
  for (const set of COMPONENTS) {
    const asked = set.filter(([, p]) => p.test(questionOutcome)).map(([name]) => name);
    const read = set.filter(([, p]) => p.test(readLabels)).map(([name]) => name);
    if (asked.length && read.length && !read.some((r) => asked.includes(r)))
      return `subscale-other: the question asks for the ${asked.join("/")} measure and the reading is of the ${read.join("/")} one`;
  }
  return null;
}

/** The full randomised population (CONSORT item 16; provenance.ts FULL_POPULATION), not "modified". */
const FULL_NOT_MODIFIED = new RegExp(String.raw`(?<!modified\s)(?<!modified-)${FULL_POPULATION.source}`, "i");
const MODIFIED_ITT = /\bmodified\s+intention[-\s]to[-\s]treat\b|\bmITT\b/i;

/**
 * population-other (round 16): the question names a restricted analysis population (per-protocol, completers, a
 * subgroup or stratum: provenance.ts `restrictedPopulation`) and the reading's labels name the full randomised
 * population (intention-to-treat, all randomised, full analysis set) and not that restricted one. When the labels
 * name both, the row and columns read (`readLabels`) decide. The reverse (the reading under a restricted label the
 * question does not name) is round 5's provenance check population-named. A modified ITT is neither (reports often
 * call it their ITT population). Returns what was found, or null.
 */
export function populationOther(question: string, labels: string, readLabels?: string): string | null {
  const asked = restrictedPopulation(question);
  if (!asked) return null;
  const decide = restrictedPopulation(labels) && readLabels !== undefined ? readLabels : labels;
  if (restrictedPopulation(decide) === asked || MODIFIED_ITT.test(decide) || !FULL_NOT_MODIFIED.test(decide))
    return null;
  return `population-other: the question asks for the ${asked} population and the reading is of the intention-to-treat (all randomised) population`;
}

/** Qualifiers that restrict an event type (seriousness and severity, CTCAE grades, attribution, cause, outcome). */
const RESTRICTING =
  /\b(non[-\s]?)?(serious|severe|life[-\s]threatening|fatal|grade\s*(?:[≥>]=?\s*)?\d|(?:drug|treatment|study[-\s]drug|procedure|device)[-\s]related|(?:cardiovascular|cardiac|cancer[-\s]related)(?=\s+(?:death|deaths|mortality)))\b/gi;
/** Words stating every event of the type, whatever its qualifier. */
const EVERY_EVENT =
  /\b(?:any|all|all[-\s]cause|overall|total)\b|\bfrom any cause\b|\bof any (?:kind|grade|severity|cause)\b/i;

/** The restricting qualifiers a text names, normalised, with whether each is negated ("non-serious", "unrelated"). */
function qualifiersIn(text: string): { word: string; negated: boolean }[] {
  const out: { word: string; negated: boolean }[] = [];
  // The usual abbreviation of serious adverse events ("Any SAE").
  for (const m of text.replace(/\bSAEs?\b/g, "serious adverse events").matchAll(RESTRICTING))
    out.push({ word: m[2].toLowerCase().replace(/[-\s]+/g, " "), negated: Boolean(m[1]) });
  if (/\bunrelated\b|\bnot (?:treatment[-\s]|drug[-\s])?related\b/i.test(text))
    out.push({ word: "treatment related", negated: true });
  return out;
}

/**
 * event-other (round 16): the question's outcome restricts an event type ("serious adverse events", "fatal myocardial
 * infarction", "cardiovascular death", "non-fatal MI") and the reading's row (with its section row) or sentence states
 * the contrary explicitly: every event ("any", "all", "all-cause", "total"), or the negation ("non-serious",
 * "non-fatal"; and the reverse, "fatal" for "non-fatal") without the question's own qualifier. An unqualified row
 * ("Adverse events") states neither and is left to the calibrated confidence. Returns what was found, or null.
 */
export function eventOther(questionOutcome: string, readLabels: string): string | null {
  const asked = qualifiersIn(questionOutcome);
  if (!asked.length) return null;
  const read = qualifiersIn(readLabels);
  for (const q of asked) {
    const same = read.filter((r) => r.word === q.word);
    if (same.some((r) => r.negated === q.negated)) continue;
    if (same.length)
      return `event-other: the question asks for ${q.negated ? "non-" : ""}${q.word} events and the reading is of ${q.negated ? "" : "non-"}${q.word} ones`;
    if (!q.negated && EVERY_EVENT.test(readLabels))
      return `event-other: the question asks for ${q.word} events and the reading counts events of any kind`;
  }
  return null;
}
