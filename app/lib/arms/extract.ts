import {
  columnLabel,
  isComparisonLabel,
  type ReportTable,
  type TrialReport,
} from "../extraction/core/document/model.ts";
import {
  CONSISTENCY_CHECKS,
  type ConsistencyCheckName,
  type ConsistencyContext,
  consistencyChecks,
  percentAgrees,
} from "./consistency.ts";
import {
  PROVENANCE_CHECKS,
  type ProvenanceCheckName,
  baselineColumnCheck,
  populationCheck,
  qualifierCheck,
  sameNumber,
  sentenceTimeCheck,
  subItemCheck,
  thresholdCheck,
  kindCheck,
  isThresholdBefore,
  isThresholdDuration,
  THRESHOLD_AFTER,
  restrictedPopulation,
} from "./provenance.ts";
import { eventOther, populationOther, subscaleOther, unitOther } from "./definitions.ts";
import { countsFromPercent, roundTo, sdFromCi, sdFromSe, sdFromT, tFromP } from "./derive.ts";
import { type CellStats, type Hints, hintsOf, mergeHints, parseCell } from "./notation.ts";
import { decimalsOf, documentSentences, parseNumber, stem, words } from "../extraction/core/index.ts";
import { extractSampleSizes } from "../extraction/facts.ts";
import { type Abbreviation, armTokens, concept, contentTokens, findAbbreviations, hasStem } from "./text.ts";
import {
  type ArmExtraction,
  type ArmField,
  type ArmKey,
  type ArmQuestion,
  type ArmQuote,
  type ArmValues,
  type Derivation,
  ARM_FIELDS,
  emptyArm,
  type OutcomeType,
  type PerValue,
  perValue,
} from "./types.ts";
import { calibratedProbability, roundedConfidence, type ValueFeatures } from "./calibration.ts";
import { CALIBRATION_MODEL } from "./calibration-model.ts";

const ARMS: readonly ArmKey[] = ["intervention", "comparator"];
const BINARY_WORDS =
  /\b(rate|rates|proportion|incidence|number of (patients|participants|subjects|people|women|men|children)|events?|mortality|deaths?|died|death|survival|response|responders?|remission|relapse|recurrence|occurrence|adverse|complications?|infections?|success|failure|cure|cured|prevalence|risk|abstinence|readmissions?|admissions?|hospitali[sz]ations?|patients with|presence|use of|prescriptions?|continued|discontinu\w*|withdrawals?|dropouts?|sick leave|pregnan\w*|births?|myocardial infarction|stroke|fractures?|effective|improved|need for)\b/i;
const CONTINUOUS_WORDS =
  /\b(mean|scores?|levels?|duration|length|time|weight|concentration|index|pressure|volume|changes?|days|hours|minutes|scale|values?|intake|count|circumference|size|amount|frequency|losses|output|gain|test|fitness|behaviou?r|activity|climate|regulation|motivation|competence|autonomy|enjoyment|quality)\b/i;

/**
 * Clinical events a question may name with no cue word ("major or clinically relevant nonmajor bleeding"): they type a
 * question that nothing answers as binary, so the reviewer is offered events and group sizes (round 19). They do not
 * take part in `outcomeTypeGuess`: as cues there they changed which readings are weighed, and lowered one fold's
 * out-of-fold precision (round 16's adoption rule; docs/methods/arm-extraction.md "Round 19").
 */
const CLINICAL_EVENT =
  /\b(?:bleeding|bleeds?|ha?emorrhag\w*|thrombo\w*|embolism|diarrh\w*|nausea|vomiting|rash|pneumonia|sepsis|seizures?|toxicit(?:y|ies))\b/i;

/** Both cue lists, global, for finding every cue's position (`outcomeTypeGuess`). */
const TYPE_CUES = [
  [new RegExp(BINARY_WORDS.source, "gi"), "binary"],
  [new RegExp(CONTINUOUS_WORDS.source, "gi"), "continuous"],
] as const;

/**
 * Round 20: a threshold on a measure ("LDL cholesterol decrease of 10% or more", "HbA1c < 7%", "weight loss of at least
 * 5%", "EPDS ≥ 12") makes the outcome the event of crossing it: binary, whatever the measure's own cue words say.
 */
function statesThreshold(phrase: string): boolean {
  for (const m of phrase.matchAll(/\d+(?:[.,]\d+)?/g))
    if (isThresholdBefore(phrase.slice(0, m.index)) || THRESHOLD_AFTER.test(phrase.slice(m.index + m[0].length)))
      return true;
  return false;
}

/** A trailing qualifier naming whom an outcome is measured in ("… in patients with HbA1c ≥ 7%"): its threshold is not the outcome's. */
const POPULATION_QUALIFIER =
  /\s+(?:in|among|for|with)\s+(?:the\s+)?(?:patients|participants|subjects|women|men|children|infants|people|those|adults)\b.*$/i;

/** A trailing qualifier of an outcome phrase: when, in whom or since when ("… at end of pregnancy", "… in women"). */
const OUTCOME_QUALIFIER = /\s+(?:at|after|during|until|by|before|over|on|in|among|within|from|post)\b.*$/i;

/**
 * The outcome type a question's phrase suggests (round 18): the type of the last cue word of the phrase's head, the
 * phrase without its trailing qualifier, as the head noun of an English noun phrase comes last ("EPDS depression score
 * at end of pregnancy": "score", not "pregnancy"; "birth weight (g)": "weight"; "heart failure-related quality of
 * life": "quality"). Falls back to any cue in the whole phrase, binary first; "unknown" when none. A head stating a
 * threshold (`statesThreshold`), outside a trailing population qualifier, is binary.
 */
export function outcomeTypeGuess(phrase: string): OutcomeType {
  const head = phrase.replace(OUTCOME_QUALIFIER, "");
  if (statesThreshold(phrase.replace(POPULATION_QUALIFIER, ""))) return "binary";
  let last: { index: number; type: OutcomeType } | null = null;
  for (const [cue, type] of TYPE_CUES)
    for (const m of head.matchAll(cue)) if (!last || m.index > last.index) last = { index: m.index, type };
  if (last) return last.type;
  if (BINARY_WORDS.test(phrase)) return "binary";
  return CONTINUOUS_WORDS.test(phrase) ? "continuous" : "unknown";
}

/**
 * Words of an arm's name that name no treatment by themselves ("Treatment had no effect"): as a mention they count only
 * beside another word of the arm's name, or before "group" / "arm" ("the conventional group"), or two of them in one
 * compound ("usual-care") (round 19; stems, as `armTokens` gives them).
 */
const GENERIC_ARM_WORDS = new Set(
  ["treatment", "therapy", "care", "usual", "standard", "routine", "conventional", "management"].flatMap((w) =>
    armTokens(w),
  ),
);

/**
 * Round 22: the nouns a group label ends with are one word in a label phrase ("Genotropin arm" in the question,
 * "Genotropin™ group" in the report); the stem of any other word is itself.
 */
function groupNoun(stemmed: string): string {
  return stemmed === "arm" || stemmed === "cohort" ? "group" : stemmed;
}

/** What may stand between two words of a label phrase: spaces, a hyphen, and (round 22) a ™, ® or © sign. */
const PHRASE_GAP = /^[\s\-™®©]+$/;

/** What a before/after comparison changes: the words after "before the" / "after the" that name the change. */
const CHANGE_NOUN =
  "(?:[\\w-]+[\\s-]){0,2}?(?:intervention|implementation|change|introduction|program(?:me)?|campaign|initiative|roll-?out|launch|switch(?:ing)?)s?\\b";

/**
 * Round 23, the periods of a before/after comparison as a report names them (family: controlled and uncontrolled
 * before/after studies, audits before and after a change, switching cohorts: "591 before the intervention and 1640
 * after", "pre- and post-intervention (39.8% vs. 43.2%)", "After the KB-intervention … (48%; N=217) … than before
 * (26%; N=243)", "85 patients from the baseline observation period"). A bare "before" / "after" counts only where
 * nothing follows it in its clause ("… and 1640 after.", "than before (26%"), so "after 12 weeks" is never a period.
 */
const PERIOD_NAMES: Record<"before" | "after", RegExp[]> = {
  before: [
    new RegExp(`\\b(?:before|prior to)\\s+(?:the\\s+|its\\s+)?${CHANGE_NOUN}`, "i"),
    /\bpre-?(?:intervention|implementation|switch(?:ing)?)\b/i,
    /\bpre-(?=\s+(?:and|vs\.?|versus|to)\s+post)/i,
    /\bbaseline\s+(?:observation\s+)?(?:period|phase|audit|survey|cohort)\b/i,
    /\bbefore\b(?=\s*(?:[(,.;:)]|$|and\b|vs\b|versus\b))/i,
  ],
  after: [
    new RegExp(`\\b(?:after|following)\\s+(?:the\\s+|its\\s+)?${CHANGE_NOUN}`, "i"),
    /\bpost-?(?:intervention|implementation|switch(?:ing)?)\b/i,
    /\bintervention\s+(?:period|phase)\b/i,
    /\bafter\b(?=\s*(?:[(,.;:)]|$))/i,
  ],
};

const periodSentenceCache = new Map<string, { start: number; end: number }[]>();

/** The sentences of `text` that name a period of a before/after comparison (PERIOD_NAMES), as offsets (memoised). */
function periodSentences(text: string): { start: number; end: number }[] {
  const cached = periodSentenceCache.get(text);
  if (cached) return cached;
  const out: { start: number; end: number }[] = [];
  for (const re of [...PERIOD_NAMES.before, ...PERIOD_NAMES.after])
    for (const m of text.matchAll(new RegExp(re.source, "gi"))) {
      const at = m.index ?? 0;
      const head = text.slice(0, at).search(/[.!?]\s+(?=\S)[^.!?]*$/);
      const start = head < 0 ? 0 : head + 1;
      const tail = /[.!?](?:\s|$)/.exec(text.slice(at + m[0].length));
      out.push({ start, end: tail ? at + m[0].length + tail.index + 1 : text.length });
    }
  if (periodSentenceCache.size > 200) periodSentenceCache.clear();
  periodSentenceCache.set(text, out);
  return out;
}

/** The period a question's arm name states ("… (after the change)", "baseline observation period …"), if one. */
function periodOf(raw: string): "before" | "after" | null {
  const before =
    PERIOD_NAMES.before.some((re) => re.test(raw)) || /\b(?:historical|retrospective) controls?\b/i.test(raw);
  const after = PERIOD_NAMES.after.some((re) => re.test(raw));
  return before === after ? null : before ? "before" : "after";
}

/** Names an arm goes by: the question's words, its parenthesised short form, and the report's abbreviations. */
class ArmName {
  readonly variants: string[][] = [];
  readonly shortForms: Set<string> = new Set();
  readonly distinctive: Set<string> = new Set();

  /** The name as the question gives it. */
  readonly raw: string;

  /**
   * Round 24: words the question writes with a "+" ("BSS+"): the arm's name is that word with the "+", and the bare
   * word ("the BSS group") names another arm.
   */
  readonly plusWords: Set<string> = new Set();

  constructor(name: string, abbreviations: Abbreviation[]) {
    this.raw = name;
    for (const m of name.matchAll(/\b([A-Za-z][\w-]*)\+(?![\w])/g)) this.plusWords.add(m[1]);
    const paren = /^(.*?)\s*\(([^()]+)\)\s*(.*)$/.exec(name);
    const forms = new Set<string>([name]);
    if (paren) {
      forms.add(`${paren[1]} ${paren[3]}`.trim());
      forms.add(paren[2].trim());
    }
    for (const form of [...forms]) {
      const tokens = armTokens(form);
      for (const abbr of abbreviations) {
        if (abbr.short === form.trim()) forms.add(abbr.long);
        const longTokens = armTokens(abbr.long);
        const sameArm =
          (overlap(tokens, longTokens) >= 0.99 && overlap(longTokens, tokens) >= 0.6) ||
          (longTokens.length >= 2 && overlap(longTokens, tokens) >= 0.99);
        if (longTokens.length && tokens.length && sameArm) forms.add(abbr.short);
      }
    }
    for (const form of [name, ...(paren ? [paren[1], paren[2]] : [])]) {
      const phrase = wordsAt(form).map((w) => groupNoun(w.stem));
      if (phrase.length >= 2 && phrase.length <= 4) this.phrases.push(phrase);
    }
    for (const form of forms) {
      const trimmed = form.trim();
      if (!trimmed) continue;
      if (/^[A-Za-z][A-Za-z0-9-]{0,11}$/.test(trimmed) && /[A-Z0-9]/.test(trimmed.slice(1))) {
        this.shortForms.add(trimmed);
        // A plural definition ("… precursor cells (MPCs)") is used in the singular in group names ("MPC + HA group").
        if (/^[A-Z0-9-]{2,}s$/.test(trimmed)) this.shortForms.add(trimmed.slice(0, -1));
      }
      const tokens = armTokens(trimmed);
      if (tokens.length) this.variants.push(tokens);
    }
  }

  /** Generic names of the arm's role ("intervention group", "control group"), matched at a lower score. */
  roleWords: Set<string> = new Set();

  /**
   * Round 20: the name's own phrases of two to four words as word stems — the whole name, and each side of a bracket
   * ("dietary counselling by physician only (physician group)" → "physician group") — that the other arm's name does
   * not also give (makeArmNames). Written word for word in a text, such a phrase names the arm even when none of its
   * words is the arm's alone.
   */
  phrases: string[][] = [];

  /**
   * 0..1: the best share of a variant's tokens found in `label`; 1 when a short form appears as a
   * word; 0.45 when the label is only the arm's generic role ("Intervention", "Control group").
   */
  /**
   * Position names the report defines for this arm ("group I", "Group A"): the label as written and the
   * defining quote. A label naming the position names the arm.
   */
  positions: { re: RegExp; label: string; quote: string }[] = [];

  /**
   * Round 23: the period this arm is in a before/after comparison (periodPositions), when both arms' names state
   * opposite periods. In a sentence that names a period, such an arm is named only by its period: the intervention's
   * own words name what changed, which such sentences use before and after alike.
   */
  period: "before" | "after" | null = null;

  /** The position name in `text` and its definition, when the text names the arm by its position. */
  positionIn(text: string): { label: string; quote: string } | null {
    return this.positions.find((p) => p.re.test(text)) ?? null;
  }

  score(label: string): number {
    if (this.positions.length && this.positionIn(label)) return 1;
    if (this.period) return 0;
    const labelWords = words(label);
    for (const short of this.shortForms) {
      if (labelWords.some((w) => w === short || w === `${short}s`)) return 1;
    }
    const tokens = new Set(armTokens(label));
    if (tokens.size === 0) return 0;
    let best = 0;
    for (const variant of this.variants) {
      const hits = variant.filter((t) => hasStem(tokens, t)).length;
      best = Math.max(best, hits / variant.length);
    }
    // A short group name whose every word is in the arm's longer name ("Estriol–lactobacilli" for "vaginal estriol plus viable Lactobacillus acidophilus").
    const named = [...tokens].filter((t) => t !== "n" && !/^\d+$/.test(t));
    if (best < 0.6 && named.length >= 2 && this.variants.some((variant) => named.every((t) => variant.includes(t))))
      best = 0.6;
    if (best < 0.45 && [...tokens].some((t) => this.roleWords.has(t))) best = 0.45;
    return best;
  }

  /**
   * Words of the other arm's name that this one lacks: when this arm has no distinctive word of its
   * own ("acupuncture" against "sham acupuncture"), its name counts as a mention unless one of these
   * words stands right before it.
   */
  otherDistinctive: Set<string> = new Set();

  /** Positions in `text` where a distinctive word or a short form of this arm occurs. */
  mentions(text: string): { start: number; end: number }[] {
    const out: { start: number; end: number }[] = [];
    for (const p of this.positions) {
      const re = new RegExp(p.re.source, `g${p.re.flags.replace("g", "")}`);
      let m: RegExpExecArray | null;
      while ((m = re.exec(text))) out.push({ start: m.index, end: m.index + m[0].length });
    }
    const named = out.length;
    const all = wordsAt(text);
    const ownTokens =
      this.distinctive.size === 0 && this.otherDistinctive.size > 0 ? new Set(this.variants[0] ?? []) : null;
    all.forEach((w, k) => {
      const role =
        this.roleWords.has(w.stem) &&
        /^\s+(group|arm|participants|patients|subjects|practices|women|men|children)\b/i.test(
          text.slice(w.end, w.end + 14),
        );
      const own = w.parts.filter((part) => this.distinctive.has(part));
      if (this.plusWords.has(w.word) && text[w.end] !== "+") return;
      let hit =
        role ||
        this.shortForms.has(w.word) ||
        this.shortForms.has(w.word.replace(/s$/, "")) ||
        (own.length > 0 &&
          (own.length >= 2 ||
            !own.every((part) => GENERIC_ARM_WORDS.has(part)) ||
            this.besideOwnWord(all, k) ||
            /^[\s-]+(?:group|arm)s?\b/i.test(text.slice(w.end, w.end + 8))));
      if (!hit && ownTokens && w.parts.some((part) => ownTokens.has(part))) {
        const previous = all.slice(Math.max(0, k - 2), k).filter((p) => w.start - p.end < 20);
        hit = !previous.some(
          (p) => p.parts.some((part) => this.otherDistinctive.has(part)) || p.parts.some((part) => ownTokens.has(part)),
        );
      }
      if (hit) out.push({ start: w.start, end: w.end + (this.plusWords.has(w.word) ? 1 : 0) });
    });
    for (const phrase of this.phrases)
      all.forEach((w, k) => {
        const run = all.slice(k, k + phrase.length);
        if (
          run.length === phrase.length &&
          run.every(
            (r, j) =>
              groupNoun(r.stem) === phrase[j] && (j === 0 || PHRASE_GAP.test(text.slice(run[j - 1].end, r.start))),
          ) &&
          !out.some((m) => m.start < run[run.length - 1].end && m.end > w.start)
        )
          out.push({ start: w.start, end: run[run.length - 1].end });
      });
    if (this.period) {
      // In a sentence that names a period, the arm is its period; elsewhere its words still name it ("9.2% for
      // infliximab original vs 11.2% for infliximab biosimilar").
      const spans = periodSentences(text);
      const kept = out.filter((m, k) => k < named || !spans.some((s) => m.start >= s.start && m.end <= s.end));
      return kept.sort((a, b) => a.start - b.start);
    }
    return out.sort((a, b) => a.start - b.start);
  }

  /** Every word of the arm's names (variants are fixed once the name is built; set on first use). */
  private nameWords: Set<string> | undefined;

  /**
   * Round 19: whether the word at `k` stands beside another word of this arm's name (at most one word between:
   * "treatment as usual", "usual care", "standard medical therapy"), so that a generic word of the name names the arm.
   */
  private besideOwnWord(all: WordAt[], k: number): boolean {
    this.nameWords ??= new Set(this.variants.flat());
    const names = this.nameWords;
    if (names.size <= 1) return true;
    return [all[k - 2], all[k - 1], all[k + 1], all[k + 2]].some(
      (n) =>
        n !== undefined &&
        Math.abs(n.start - all[k].start) < 30 &&
        n !== all[k] &&
        n.parts.some((p) => names.has(p) && p !== all[k].parts[0]),
    );
  }

  /** Share of the label's tokens that the best-matching variant covers (breaks ties between "acupuncture" and "sham acupuncture"). */
  coverage(label: string): number {
    const tokens = armTokens(label);
    if (tokens.length === 0) return 0;
    let best = 0;
    for (const variant of this.variants)
      best = Math.max(best, tokens.filter((t) => variant.includes(t)).length / tokens.length);
    return best;
  }
}

interface WordAt {
  word: string;
  stem: string;
  parts: string[];
  start: number;
  end: number;
}

const wordCache = new Map<string, WordAt[]>();

/** Words of a text with their offsets and stems (memoised per text: a report's text is scanned once). */
function wordsAt(text: string): WordAt[] {
  const cached = wordCache.get(text);
  if (cached) return cached;
  const out: WordAt[] = [];
  const re = /[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f'-]*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const word = m[0];
    out.push({ word, stem: stem(word), parts: word.split("-").map(stem), start: m.index, end: m.index + word.length });
  }
  if (wordCache.size > 200) wordCache.clear();
  wordCache.set(text, out);
  return out;
}

function overlap(a: string[], b: string[]): number {
  if (a.length === 0) return 0;
  const set = new Set(b);
  return a.filter((t) => set.has(t)).length / a.length;
}

const POSITION = /\b([Gg]roup|[Aa]rm)\s+(I{1,3}|IV|[A-D]|[1-4])\b(?![\w-])/g;

/** The pattern of a POSITION match in any text: "Group A" or "group A", the label's own number or letter. */
function positionPattern(m: RegExpMatchArray): RegExp {
  return new RegExp(`\\b[${m[1][0].toUpperCase()}${m[1][0].toLowerCase()}]${m[1].slice(1)}\\s+${m[2]}\\b(?![\\w-])`);
}

/**
 * Arms named by position (family: trials whose tables and results say "group I / group II" or
 * "Group A / Group B" after defining them in the methods, "In group I (120 people) intravenous
 * lidocaine was administered", "Group II: ropivacaine + clonidine"): the text from a position name to
 * the next one (at most 160 characters, within its sentence) is its definition; the position is an
 * arm's when that text names the arm fully and the other arm less (when both are named fully, the arm
 * with the longer name, whose words include the other's). The first definition of each position counts.
 */
function definePositions(text: string, names: Record<ArmKey, ArmName>): void {
  const seen = new Set<string>();
  const all = [...text.matchAll(POSITION)];
  for (const [k, m] of all.entries()) {
    const key = `${m[1].toLowerCase()} ${m[2].toUpperCase()}`;
    if (seen.has(key)) continue;
    const start = (m.index ?? 0) + m[0].length;
    const next = all[k + 1]?.index ?? text.length;
    let window = text.slice(start, Math.min(next, start + 160));
    const stop = /[.;](?=\s+[A-Z])/.exec(window);
    if (stop) window = window.slice(0, stop.index);
    if (!/[A-Za-z]{4,}/.test(window)) continue;
    seen.add(key);
    const si = names.intervention.score(window);
    const sc = names.comparator.score(window);
    let arm: ArmKey | null = null;
    if (si >= 0.99 && sc < 0.99) arm = "intervention";
    else if (sc >= 0.99 && si < 0.99) arm = "comparator";
    else if (si >= 0.99 && sc >= 0.99) {
      const li = names.intervention.variants[0]?.length ?? 0;
      const lc = names.comparator.variants[0]?.length ?? 0;
      if (li !== lc) arm = li > lc ? "intervention" : "comparator";
    }
    if (!arm) continue;
    const other = arm === "intervention" ? "comparator" : "intervention";
    if (names[other].positions.some((p) => p.label.toLowerCase() === key.toLowerCase())) continue;
    names[arm].positions.push({
      re: positionPattern(m),
      label: key,
      quote: clip(`${m[0]}${window}`, 120),
    });
  }
}

/**
 * Round 19, ties between readings of one outcome: when the report gives the outcome for all randomised and for a
 * restricted population ("In ITT analysis … In PP analysis …"), the reading whose population is the one the question
 * asks (a restricted one it names, or none) goes first (1; others 0). Without it the first in text order won, and the
 * population checks (`population-other`, `population-named`) then withheld it. Ranks; never changes a score.
 */
function populationRank(candidate: Candidate, asked: string | null): number {
  return restrictedPopulation(candidate.labels ?? candidate.where) === asked ? 1 : 0;
}

/**
 * The reading rules of issue 26 round 8 (docs/methods/arm-extraction.md "Round 8"), each with its family:
 * - arm-labels: arms named by a short label defined at first mention with a bracketed description and n
 *   (see defineLabels);
 * - decimal-times: a time's number never starts inside a decimal ("46.76 min" is not "76 min"; provenance.ts timesIn).
 * The third rule, inline figures as paragraph breaks, lives in the markdown parser (parseMarkdown's `inlineFigures`).
 * Round 22 (docs/methods/arm-extraction.md "Round 22"):
 * - bare-means: a sentence that states a mean and gives no spread reads its bare numbers as means ("The mean DAS28 at
 *   week 134 was 3.166 in the maintenance group and 3.955 in the switch group"; `bareMeanValues`).
 */
export const RECALL_RULES = ["arm-labels", "decimal-times", "bare-means"] as const;

/** A reading rule of round 8. */
export type RecallRuleName = (typeof RECALL_RULES)[number];

/**
 * The round-8 rules on in the product: none. Round 8's adoption rule, fixed before the run, kept no rule (nested CV:
 * none raised out-of-fold exact match; docs/methods/arm-extraction.md "Round 8"). The tests and the bench switch them on.
 */
export const RECALL_RULES_ON: readonly RecallRuleName[] = [];

/**
 * The definitional corrections of issue 26 round 11 (docs/methods/arm-extraction.md "Round 11"): places where the
 * core would give a number that is wrong by definition, not by estimate.
 * - sentence-se: a results sentence that states its own notation as the standard error ("3.1 ± 0.4 (mean ± SE)",
 *   "(mean ± SEM)", "mean (s.e.)", "± standard error") has its "a ± b" and "a (b)" values read as mean and SE, and the
 *   SD derived as SE × √n with the formula in the reason (Cochrane Handbook 6.5.2.2, which also notes that SDs and
 *   SEs are sometimes confused in reports); a sentence stating both SD and SE gives no "a ± b" or "a (b)" value (which spread it is
 *   cannot be told); a number with its own label ("(SE 0.4)", "(SD 0.4)") keeps it. Without it, "±" in prose is
 *   always an SD and an explicit "(SE b)" in a sentence that mentions SD is read as an SD.
 * - pooled-sd-offer: the pooled SD from an exact t or p (Handbook 6.5.2.3) assumes equal SDs in both arms, so it is
 *   offered (value null, the derivation in the reason, its quote in `candidates`) and never given, whatever its
 *   calibrated probability. Without it, only the fitted weight of the `assumption` feature keeps it below the threshold.
 * - report-se (round 15): the report declares its notation once, outside its tables ("Data are presented as mean ±
 *   SEM", "Values are means (SE)"; `reportNotation`), and a value's spread has no notation of its own (no label in the
 *   cell; none in the table's caption, footnotes, row or column labels; none in its sentence). Then the spread is an SE
 *   by definition and the SD is derived as SE × √n with the formula and the declaration in the reason (Handbook
 *   6.5.2.2). A report declaring both SD and SE for its values: the unlabelled spread cannot be told, so its SD is
 *   withheld (value null, the rule in the reason, the quote in `candidates`); the mean is kept. A table's own notation
 *   wins over the report's, and a cell's own label wins over both.
 */
export const DEFINITIONAL_CORRECTIONS = ["sentence-se", "pooled-sd-offer", "report-se"] as const;

/** A definitional correction of round 11 (or round 15's report-se). */
export type CorrectionName = (typeof DEFINITIONAL_CORRECTIONS)[number];

/** The round-11 corrections on in the product (the bench switches them off with `corrections` to measure the baseline). */
export const CORRECTIONS_ON: readonly CorrectionName[] = DEFINITIONAL_CORRECTIONS;

/**
 * The definitional hard rules of issue 26 round 14 (docs/methods/arm-extraction.md "Round 14"): a value whose reading
 * is wrong by definition is withheld whatever its calibrated probability (value null, the rule in the reason, its
 * quote in `candidates`), like round 11's pooled-sd-offer. The value stays a training value of the calibration model
 * (its features are unchanged); the bench's evaluation never gives it, as the product does not.
 * - timepoint-other: the question names a timepoint (makeOutcome) and the reading's table or sentence shows one other
 *   single time and not the question's (no column or label of the question's time: a number at another time is not
 *   the number asked for). A reading that shows no time, or several, is left to the calibrated confidence.
 * - median-not-mean (round 15): a median is not a mean. The reading's sentence states the median as its statistic
 *   ("the median pain score was 3.1 ± 0.4"; not "a median follow-up of", "after a median of 12 months") and names no
 *   mean, or the report declares medians and no means for its data ("Data are presented as median (IQR)") and an
 *   unlabelled "a (b)" cell was read as mean and SD: the mean and the SD are withheld.
 * - range-not-ci (round 15): a range or IQR is not a CI. A table whose caption or footnotes state both 95% CIs and
 *   medians with an IQR or range ("Data are mean (95% CI) or median (IQR)") gives an "a (b–c)" cell with no notation on
 *   its row or columns: it may be a median with its IQR, so the mean and the SD derived through the CI formula are
 *   withheld.
 * - unit-other (round 16; definitions.ts `unitOther`): the question's outcome states a unit or scale ("weight (kg)",
 *   "HbA1c (%)", "pain on a 0–10 VAS", "percent change") and the labels of a continuous reading (its row and columns, or
 *   its sentence; the caption when it states the only unit) state another, incompatible one of the same quantity ("lb",
 *   "mmol/mol", "0–100 mm", "mg/dL") and none of the question's.
 * - subscale-other (round 16; `subscaleOther`): the question names one component or condition of a measure (SF-36
 *   mental component, systolic, at rest, fasting, …) and the reading's row (with its section row) or sentence names
 *   another of the same set and not the question's.
 * - population-other (round 16; `populationOther`): the question names a restricted analysis population (per-protocol,
 *   completers, a subgroup) and the reading's labels name the intention-to-treat (all randomised) population.
 * - event-other (round 16; `eventOther`): the question restricts an event type (serious, fatal, treatment-related,
 *   cardiovascular death, …) and a count reading's row or sentence states every event ("any", "all", "total") or the
 *   negation ("non-serious"), without the question's qualifier.
 * - outcome-elsewhere (round 18; `outcomeElsewhere`): a prose reading's sentence names the question's outcome only in
 *   part, and a word of the outcome it lacks is in another sentence of the report that gives numbers: that sentence,
 *   not this one, is about the outcome asked ("appropriate decisions for angiography" read at "Decisions for exercise
 *   electrocardiography were more appropriate …" while "The effect was stronger for angiography (1274/1595 …)").
 * - subsample-n (round 21; `sentenceStatesOtherN`): the arm's n comes from elsewhere in the text (randomised or
 *   allocated) and the sentence that gives the outcome's values states an n that is neither arm's nor their sum
 *   ("apoptotic cells 5 ± 3 vs 35 ± 6; n = 6, A vs B", in a report that randomised 27 per arm): the values were
 *   measured in another number of participants, so the arm's n is withheld.
 * - abstract-outcome-elsewhere (round 22): outcome-elsewhere in a report of an abstract's size (no table, at most
 *   ABSTRACT_MAX_CHARS characters). There a sentence with numbers that names what the read sentence lacks of the
 *   outcome is the outcome's own ("AP was indicated in 43.9% (187/426) …" read for "appropriate antibiotic prophylaxis
 *   use", which the next sentence gives); in a full text, methods, tables and discussion name such words beside other
 *   numbers, which is why round 18 did not keep the rule there.
 */
export const HARD_GATES = [
  "timepoint-other",
  "median-not-mean",
  "range-not-ci",
  "unit-other",
  "subscale-other",
  "population-other",
  "event-other",
  "outcome-elsewhere",
  "subsample-n",
  "abstract-outcome-elsewhere",
] as const;

/** Round 22: the most characters a report may have to count as an abstract (abstract-outcome-elsewhere). */
export const ABSTRACT_MAX_CHARS = 6000;

/** A definitional hard rule of round 14. */
export type HardGateName = (typeof HARD_GATES)[number];

/**
 * The hard rules on in the product (the bench switches them off with `hardGates` to measure the baseline): all but
 * round 18's outcome-elsewhere, which its adoption rule did not keep (docs/methods/arm-extraction.md "Round 18").
 */
export const HARD_GATES_ON: readonly HardGateName[] = HARD_GATES.filter((name) => name !== "outcome-elsewhere");

/** Generic words that are never an arm's label, however a bracket follows them. */
const NOT_A_LABEL = new Set(
  [
    "group",
    "groups",
    "arm",
    "arms",
    "patients",
    "participants",
    "subjects",
    "children",
    "women",
    "men",
    "adults",
    "volunteers",
    "individuals",
    "people",
    "persons",
    "cases",
    "controls",
    "trial",
    "study",
    "randomized",
    "randomised",
    "allocated",
    "assigned",
    "received",
    "receiving",
    "treated",
    "included",
    "enrolled",
    "total",
    "and",
    "or",
    "the",
    "a",
    "an",
    "of",
    "to",
    "in",
    "with",
    "either",
    "each",
    "both",
    "all",
  ].map((w) => w.toLowerCase()),
);

const bracketCache = new Map<string, RegExpMatchArray[]>();

/** Words directly followed by a bracket holding "n = N" (memoised per text: a report is scanned once, not per question). */
function bracketedWords(text: string): RegExpMatchArray[] {
  const cached = bracketCache.get(text);
  if (cached) return cached;
  const out = [...text.matchAll(/(?<![\w-])([A-Za-z][A-Za-z-]{2,19})\s+\(([^()]{6,240})\)/g)].filter((m) =>
    /\bn\s*=\s*\d/i.test(m[2]),
  );
  if (bracketCache.size > 200) bracketCache.clear();
  bracketCache.set(text, out);
  return out;
}

/**
 * Arm labels defined with a description and n (issue 26 round 8; family: trials that name their arms in tables and
 * results by a short label defined at first mention, CONSORT-style: "a basic (tailored advice on …; n=456), plus
 * (…; n=459), and control (generic information; n=434) group", "the low-dose (drug 5 mg daily, n = 40) arm"), while
 * the question names the arm by its description. A word directly before a bracket that holds a description of two
 * or more words and "n = N" is a label of the arm whose name the description covers in full (and the other arm's
 * not), when the word is not a word of either arm's name nor a generic word (NOT_A_LABEL). The first definition of a
 * label counts. Of several labels naming one arm, those whose description the arm's name covers most are kept. A
 * label is added as a position name (quoted in the reason, as "group I" is).
 */
function defineLabels(text: string, names: Record<ArmKey, ArmName>): void {
  const seen = new Set<string>();
  const found: { arm: ArmKey; label: string; fit: number; quote: string }[] = [];
  const own = new Set([...names.intervention.variants.flat(), ...names.comparator.variants.flat()]);
  for (const m of bracketedWords(text)) {
    const label = m[1];
    const key = label.toLowerCase();
    if (seen.has(key) || NOT_A_LABEL.has(key)) continue;
    const n = /[;,]?\s*\bn\s*=\s*\d[\d,]*\s*$/i.exec(m[2]);
    if (!n) continue;
    const description = m[2].slice(0, n.index);
    if ((description.match(/[A-Za-z]{2,}/g) ?? []).length < 2) continue;
    seen.add(key);
    if (own.has(stem(key)) || armTokens(label).some((t) => own.has(t))) continue;
    const si = names.intervention.score(description);
    const sc = names.comparator.score(description);
    const arm: ArmKey | null = si >= 0.99 && sc < 0.99 ? "intervention" : sc >= 0.99 && si < 0.99 ? "comparator" : null;
    if (!arm) continue;
    const other = arm === "intervention" ? "comparator" : "intervention";
    if (names[other].positions.some((p) => p.label.toLowerCase() === key)) continue;
    // How much of the description the arm's name covers: of two labels whose descriptions both name the arm in full
    // ("plan with reminders" and "plan with reminders and a pedometer"), the closer one is the arm's.
    const described = armTokens(description);
    const fit = Math.max(0, ...names[arm].variants.map((v) => overlap(described, v)));
    found.push({ arm, label, fit, quote: clip(m[0], 120) });
  }
  for (const arm of ARMS) {
    const mine = found.filter((f) => f.arm === arm);
    const best = Math.max(0, ...mine.map((f) => f.fit));
    for (const f of mine.filter((x) => x.fit === best)) {
      const escaped = f.label.replace(/[-]/g, "\\-");
      names[arm].positions.push({
        re: new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, "i"),
        label: f.label,
        quote: f.quote,
      });
    }
  }
}

/** Units of time, stemmed: words an arm's name may hold that are never its own mention (round 24). */
const TIME_UNITS = new Set(["week", "wk", "month", "day", "year", "hour", "minut"].map(stem));

function makeArmNames(question: ArmQuestion, abbreviations: Abbreviation[]): Record<ArmKey, ArmName> {
  const names = {
    intervention: new ArmName(question.intervention, abbreviations),
    comparator: new ArmName(question.comparator, abbreviations),
  };
  const all = (arm: ArmName) => new Set(arm.variants.flat());
  const roles = {
    intervention: ["intervention", "experimental", "treatment", "active", "study", "case"].map(stem),
    comparator: ["control", "comparison", "placebo", "usual", "standard", "sham", "reference"].map(stem),
  };
  const iAll = all(names.intervention);
  const cAll = all(names.comparator);
  if (!roles.comparator.some((w) => iAll.has(w)))
    for (const w of roles.intervention) if (!cAll.has(w)) names.intervention.roleWords.add(w);
  if (!roles.intervention.some((w) => cAll.has(w)))
    for (const w of roles.comparator) if (!iAll.has(w)) names.comparator.roleWords.add(w);
  const iTokens = all(names.intervention);
  const cTokens = all(names.comparator);
  // Round 24: a unit of time in an arm's name ("switch … at week 24") names when, not which arm: "up to week 48" is no
  // mention of it.
  const own = (t: string, other: Set<string>) =>
    !other.has(t) && t.length > 1 && !/^\d+$/.test(t) && !TIME_UNITS.has(t);
  for (const t of iTokens) if (own(t, cTokens)) names.intervention.distinctive.add(t);
  for (const t of cTokens) if (own(t, iTokens)) names.comparator.distinctive.add(t);
  for (const t of names.comparator.distinctive) names.intervention.otherDistinctive.add(t);
  const key = (phrase: string[]) => phrase.join(" ");
  const iPhrases = new Set(names.intervention.phrases.map(key));
  const cPhrases = new Set(names.comparator.phrases.map(key));
  names.intervention.phrases = names.intervention.phrases.filter((p) => !cPhrases.has(key(p)));
  names.comparator.phrases = names.comparator.phrases.filter((p) => !iPhrases.has(key(p)));
  for (const t of names.intervention.distinctive) names.comparator.otherDistinctive.add(t);
  questionPositions(names);
  periodPositions(names);
  return names;
}

/**
 * Round 23, arms that are periods (family: before/after comparisons; PERIOD_NAMES): when one arm's name states the
 * period after a change and the other's the period before it ("… template (after the change)" against "template before
 * the change (before the intervention)"), each arm is named by its period's names in the report and by nothing else
 * (ArmName.period), quoted from the question.
 */
function periodPositions(names: Record<ArmKey, ArmName>): void {
  const periods = { intervention: periodOf(names.intervention.raw), comparator: periodOf(names.comparator.raw) };
  if (!periods.intervention || !periods.comparator || periods.intervention === periods.comparator) return;
  for (const arm of ARMS) {
    const period = periods[arm]!;
    names[arm].period = period;
    for (const re of PERIOD_NAMES[period])
      names[arm].positions.push({
        re,
        label: `${period} the change`,
        quote: clip(`the question names the period: ${names[arm].raw}`, 120),
      });
  }
}

/**
 * Round 23, positions the question names (family: reports that call their arms "group 1 / group 2" or "Group A /
 * Group B" and define them before the label, "… treated with CT-P10 (group 1)", or not at all, where definePositions,
 * which reads a definition after the label, finds none): a reviewer who writes the report's position label into an
 * arm's name ("biosimilar rituximab CT-P10 (group 1)") says which arm it is. An arm's name that holds exactly one
 * position, not one of a combination ("group D/E", "group A + B") and not the other arm's, adds it as the arm's
 * position name, quoted from the question. Runs before definePositions, which then leaves these labels alone.
 */
function questionPositions(names: Record<ArmKey, ArmName>): void {
  const named = (raw: string) =>
    [...raw.matchAll(POSITION)]
      .filter((m) => !/^\s*[/+&]/.test(raw.slice((m.index ?? 0) + m[0].length)))
      .map((m) => ({ m, key: `${m[1].toLowerCase()} ${m[2].toUpperCase()}` }));
  const found = { intervention: named(names.intervention.raw), comparator: named(names.comparator.raw) };
  for (const arm of ARMS) {
    const other = arm === "intervention" ? "comparator" : "intervention";
    if (found[arm].length !== 1) continue;
    const [{ m, key }] = found[arm];
    if (found[other].some((f) => f.key === key)) continue;
    names[arm].positions.push({
      re: positionPattern(m),
      label: key,
      quote: clip(`the question names it: ${names[arm].raw}`, 120),
    });
  }
}

interface Outcome {
  /** The question's outcome phrase. */
  phrase: string;
  /** Alternative names of the outcome as concept lists: the phrase, its bracketed short form, long forms of its abbreviations. */
  variants: string[][];
  /**
   * Round 23: the variants that name the whole outcome asked — all but a report's short form for a part of it ("AE"
   * for "immune-mediated adverse events"), which names a broader outcome (outcomeElsewhere).
   */
  namedInFull: string[][];
  timepoint: string | null;
  typeGuess: OutcomeType;
  /** The question asks for a change from baseline ("change in HbA1c"), not the value at a time. */
  change: boolean;
  /** The question asks for baseline values. */
  baseline: boolean;
}

const TIMEPOINT = /(\d+)\s*[-‐]?\s*(weeks?|wks?|months?|mos?|days?|years?|yrs?|hours?|hrs?|h|d)\b/i;

const DAYS_PER_UNIT: Record<string, number> = { w: 7, m: 30.44, d: 1, y: 365.25, h: 1 / 24 };

/** Whether two normalised timepoints ("26w", "6m") name the same time (within 10%: 24 weeks ≈ 6 months). */
function sameTime(a: string, b: string): boolean {
  if (a === b) return true;
  const pa = /^(\d+)([wmdyh])$/.exec(a);
  const pb = /^(\d+)([wmdyh])$/.exec(b);
  if (!pa || !pb) return false;
  const da = Number(pa[1]) * DAYS_PER_UNIT[pa[2]];
  const db = Number(pb[1]) * DAYS_PER_UNIT[pb[2]];
  return Math.abs(da - db) <= 0.1 * Math.max(da, db);
}

const TIMEPOINT_UNIT_FIRST = /\b(weeks?|wks?|months?|mos?|days?|years?|yrs?)\s*(\d+)\b(?!\s*(?:[-–]|to)\s*\d)/i;

/** TIMEPOINT and TIMEPOINT_UNIT_FIRST, global: every time a text names. */
const TIMEPOINTS_ALL = [TIMEPOINT, TIMEPOINT_UNIT_FIRST].map((re) => new RegExp(re.source, "gi"));

/**
 * "12 weeks", "12-week", "week 12", "wk 12" → "12w"; months "m", days "d", years "y", hours "h". Round 19: a duration
 * after a comparison ("for more than 3 days", provenance.ts `isThresholdDuration`) defines the outcome and is not its
 * timepoint.
 */
function normaliseTimepoint(text: string): string | null {
  const m = [...text.matchAll(TIMEPOINTS_ALL[0])].find((t) => !isThresholdDuration(text.slice(0, t.index))) ?? null;
  const first = m ? null : TIMEPOINT_UNIT_FIRST.exec(text);
  const value = m ? m[1] : first?.[2];
  const unitWord = (m ? m[2] : first?.[1])?.toLowerCase();
  if (value === undefined || unitWord === undefined) return null;
  const unit = unitWord[0] === "w" ? "w" : unitWord.startsWith("mo") ? "m" : unitWord[0];
  return `${Number(value)}${unit}`;
}

/**
 * Every time a text names, normalised ("12w", "6m"), by either spelling ("12 weeks", "week 12"); not a duration after
 * a comparison (round 19).
 */
function timepointsIn(text: string): string[] {
  const out: string[] = [];
  for (const re of TIMEPOINTS_ALL)
    for (const m of text.matchAll(re)) {
      if (isThresholdDuration(text.slice(0, m.index))) continue;
      const t = normaliseTimepoint(m[0]);
      if (t) out.push(t);
    }
  return out;
}

function conceptsOf(text: string): string[] {
  return [...new Set(contentTokens(text.replace(TIMEPOINT, " ")).map(concept))].filter((t) => !/^\d+$/.test(t));
}

/** "Baseline", "pre-treatment", "pretest": the time before the intervention. */
const BASELINE_WORD = /\b(baseline|pre[- ]?(test|treatment|intervention))\b/i;
/** Baseline named as the reference of a change or an adjustment ("compared with baseline", "baseline-adjusted"). */
const BASELINE_AS_REFERENCE =
  /\b(from|since|relative to|compared (with|to)|vs\.?|versus|over)\s+(the\s+)?(baseline|pre[- ]?(test|treatment|intervention))\b|\bbaseline[- ]adjusted\b|\badjusted for baseline\b/i;

/** A question's trailing period: "during the extension follow-up", "over the entire study", "throughout the trial". */
const PERIOD_QUALIFIER =
  /\s+(?:during|over|throughout)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:follow-up|followup|period|phase|study|extension|trial)\s*$/i;

function makeOutcome(question: ArmQuestion, abbreviations: Abbreviation[]): Outcome {
  const phrase = question.outcome;
  const forms = [phrase];
  const paren = /^(.*?)\s*\(([^()]+)\)\s*(.*)$/.exec(phrase);
  if (paren) forms.push(`${paren[1]} ${paren[3]}`, paren[2]);
  // Round 22: a trailing period ("… during the extension follow-up") says when, like a timepoint; the outcome is
  // also named without it.
  const withoutPeriod = phrase.replace(PERIOD_QUALIFIER, "").trim();
  if (withoutPeriod && withoutPeriod !== phrase) forms.push(withoutPeriod);
  const phraseConcepts = new Set(conceptsOf(phrase));
  const broader = new Set<string>();
  for (const abbr of abbreviations) {
    const ws = words(phrase);
    if (ws.includes(abbr.short)) forms.push(phrase.replace(abbr.short, abbr.long));
    // The question spells out what the report abbreviates ("Hamilton Depression Rating Scale score" for "HAM-D").
    const longConcepts = conceptsOf(abbr.long);
    if (longConcepts.length >= 2 && longConcepts.every((c) => phraseConcepts.has(c))) {
      forms.push(abbr.short);
      // Round 23: a long form that is only part of the outcome ("immune-mediated adverse events" for "AE") makes the
      // short form alone a broader outcome than the one asked.
      if ([...phraseConcepts].filter((c) => !longConcepts.includes(c)).length > 1) broader.add(abbr.short);
    }
  }
  // "Change from baseline to week 12": baseline is the change's reference, and the question asks for the change.
  const baseline = BASELINE_WORD.test(phrase) && !(CHANGE.test(phrase) || BASELINE_AS_REFERENCE.test(phrase));
  // "Baseline diabetes": like a timepoint, "baseline" says when, and a table of baseline characteristics says it for
  // every row. As a change's reference it is not part of the outcome's name either.
  const baselineConcepts = baseline
    ? new Set(conceptsOf("baseline characteristics data values"))
    : BASELINE_WORD.test(phrase)
      ? new Set(conceptsOf((phrase.match(new RegExp(BASELINE_WORD.source, "gi")) ?? []).join(" ")))
      : new Set<string>();
  const conceptForms = forms.map((f) => ({
    concepts: conceptsOf(f).filter((c) => !baselineConcepts.has(c)),
    broader: broader.has(f),
  }));
  const kept = conceptForms.filter((f) => f.concepts.length > 0);
  const variants = kept.map((f) => f.concepts);
  const namedInFull = kept.filter((f) => !f.broader).map((f) => f.concepts);
  const typeGuess = outcomeTypeGuess(phrase);
  return {
    phrase,
    variants,
    namedInFull,
    timepoint: normaliseTimepoint(phrase),
    typeGuess,
    change: CHANGE.test(phrase),
    baseline,
  };
}

/**
 * How well `text` names the outcome (0..1): for the best variant, the share of its concepts present,
 * times 0.8 + 0.2 · the share of the text's own concepts that are the outcome's (a tighter label wins).
 */
function outcomeScore(outcome: Outcome, text: string, tight = true): number {
  const present = conceptsOf(text);
  if (present.length === 0) return 0;
  const set = new Set(present);
  let best = 0;
  for (const variant of outcome.variants) {
    const hits = variant.filter((c) => hasStem(set, c)).length;
    if (hits === 0) continue;
    const score = (hits / variant.length) * (tight ? 0.8 + (0.2 * hits) / present.length : 1);
    best = Math.max(best, score);
  }
  return best;
}

interface ArmData {
  stats: CellStats;
  quote: ArmQuote;
  quoteFields: ArmField[];
  groupSize: number | null;
  groupSizeQuote: ArmQuote | null;
  /** Where groupSize was read: the header over the arm's own columns, or elsewhere in the same table. */
  groupSizeOrigin?: "header" | "table";
}

interface Candidate {
  score: number;
  kind: "count" | "continuous";
  arms: Record<ArmKey, ArmData>;
  source: "table" | "prose";
  /** The evidence in words: the table with its row and column labels, or the sentence. */
  where: string;
  /** How the timepoint was chosen ("" when the table has one time only). */
  timeNote: string;
  /** The weaker of the two arms' label matches (1 = the arm's name or abbreviation, 0.45 = only its role word). */
  armScore: number;
  /** The table reports changes from baseline (its caption says so) while the question asks for values, or the reverse. */
  changeMismatch?: boolean;
  /** The question asks for a baseline value and the table is neither a baseline table nor read at a baseline column. */
  baselineMismatch?: boolean;
  /** The row pools alternatives ("ACEI or ARB") of which the question names one. */
  pooledRow?: boolean;
  /** An exact two-sample test on the same row (a p or t column), for a pooled SD when no SD is given. */
  test?: { p?: number; t?: number; text: string };
  /** The comparator's column was found by elimination (the only other group column of a two-arm table). */
  byElimination?: boolean;
  /** Prose: the sentence read. */
  sentence?: string;
  /** Another reading as good (same outcome match, arms as well matched) gives other numbers: where it was read. */
  rival?: string;
  /** The labels the values were read under, unclipped: caption, row (and context row) and column labels, or the sentence. */
  labels?: string;
  /** The labels of the columns read (arms as columns), for the baseline-column check. */
  columnLabels?: string[];
  /** The label of the outcome row (or column, arms as rows) read, for the row checks. */
  rowLabel?: string;
  /** The row's own outcome match and, when the outcome is named only with the section row above it, that row. */
  ownScore?: number;
  viaContext?: string | null;
  /** Provenance checks of the reading (provenance.ts): population, time in the sentence, a fully named rival, the row. */
  provenance?: { name: ProvenanceCheckName; ok: boolean; what: string }[];
  /** An arm was matched by a position the report defines ("group I" = "…lidocaine…"). */
  byPosition?: boolean;
  /** Other readings of the same kind, at another place, naming the outcome in full, with other numbers (rivalCount). */
  rivals?: number;
  /**
   * Round 15: the spread was read with no notation of its own (no label in the cell, its table's labels or its
   * sentence): "pm" from "a ± b" (an SD by convention), "pair" from "a (b)" (an SD by the table reader's default).
   */
  unlabelledSpread?: "pm" | "pair";
  /** Round 15 report-se: the report's declaration that made the unlabelled spread an SE (shown in the SD's reason). */
  spreadNote?: string;
  /**
   * Round 15 range-not-ci: "a (b–c)" read as a mean and its 95% CI under a caption or footnote that states both CIs and
   * medians with an IQR or range, with no notation on the row or columns read: that caption and footnotes.
   */
  rangeOrCi?: string;
  /** The table's caption and the section (context) row above the row read, for the round-16 rules. */
  caption?: string;
  contextRow?: string;
  /** Round 16: a definitional row rule the reading fails (unit-other, subscale-other, population-other, event-other). */
  rowGate?: string | null;
  /** Round 15: fields withheld by a definitional rule (report-se with both spreads declared; median-not-mean; range-not-ci). */
  notationGate?: { rule: string; fields: ArmField[] };
}

const N_IN_LABEL = /\b[nN]\s*[=:]\s*(\d[\d,]*)|\((\d+)\)\s*$|\b(\d+)\s*(?:patients|participants|subjects)\b/;

function groupSizeFromLabel(label: string): number | null {
  const m = N_IN_LABEL.exec(label);
  if (!m) return null;
  const value = parseNumber(m[1] ?? m[2] ?? m[3]);
  return Number.isInteger(value) && value > 0 ? value : null;
}

const N_ROW =
  /^(n|no\.?|number|number of (patients|participants|subjects|children|women|men|cases)|participants|patients|subjects|sample size|randomi[sz]ed|analy[sz]ed|total|n \(%\))\s*$/i;
const STAT_LABEL = /^(n|no\.?|%|\(%\)|mean|sd|s\.d\.|se|sem|χ|x̄|median|iqr|range|95% ci|ci|p|p-value|p value|value)$/i;

/**
 * Statistic role of a sub-column from the words its label adds to the arm's name: "Mean" or "Mean days
 * of sick leave" (a mean), "SD", "SE", "n", "%", "n (%)" (a count with its percentage), or a comparison
 * of the arms ("p", "P for difference", "χ2", "ES"). Combined notations ("Mean (SD)", "Mean ± SD") and
 * anything else give null.
 */
function columnRole(label: string): "mean" | "sd" | "se" | "n" | "pct" | "npct" | "p" | null {
  const raw = label.replace(/[*†‡§¶]/g, "").trim();
  const t = raw.replace(/[()]/g, " ").replace(/\s+/g, " ").trim().toLowerCase();
  if (/^(mean|χ|x̄|average|m)$/.test(t)) return "mean";
  if (/^(sd|s\.d\.|standard deviation)$/.test(t)) return "sd";
  if (/^(se|sem|s\.e\.|standard error)$/.test(t)) return "se";
  if (/^(n|no\.?|number|events)$/.test(t)) return "n";
  if (/^(%|percent|percentage)$/.test(t)) return "pct";
  if (/^(n|no\.?|number|n\s*\/\s*n|number of (patients|participants|subjects|cases|events))\s*%$/.test(t))
    return "npct";
  if (/^(p|p-value|p value)$/.test(t) || isComparisonLabel(raw)) return "p";
  if (/^(mean|average)\s+\S/i.test(raw)) {
    const rest = raw.replace(/^(mean|average)\s*/i, "");
    if (!/^[([±+]|^(sd|se|sem|difference|diff|change)\b/i.test(rest)) return "mean";
  }
  return null;
}

function isBaseline(label: string): boolean {
  return /\b(baseline|pre[- ]?(test|treatment|intervention)?|before|initial|week 0|day 0|t0|admission|screening)\b/i.test(
    label,
  );
}

/** A column's timepoint: "12 weeks" → "12w"; the codes "T1", "T2" (T0 is baseline) → "t1", "t2". */
function timepointOf(label: string): string | null {
  const code = /\bT([1-9])\b/.exec(label);
  return normaliseTimepoint(label) ?? (code ? `t${code[1]}` : null);
}

interface TableArms {
  kind: "columns" | "rows" | "paired";
  /** The comparator is the one group column left after the intervention's (a generically named control). */
  byElimination?: boolean;
  intervention: number[];
  comparator: number[];
}

function bestIndices(scores: number[], threshold: number): number[] {
  const max = Math.max(0, ...scores);
  if (max < threshold) return [];
  return scores.map((s, i) => (s === max ? i : -1)).filter((i) => i >= 0);
}

function assignArms(
  labels: string[],
  names: Record<ArmKey, ArmName>,
  offset: number,
): { intervention: number[]; comparator: number[] } | null {
  const si = labels.map((l) => names.intervention.score(l));
  const sc = labels.map((l) => names.comparator.score(l));
  // A label both names match fully ("Sham acupuncture" for "acupuncture" and "sham acupuncture") goes to the name that covers more of it.
  labels.forEach((l, k) => {
    if (si[k] !== sc[k] || si[k] === 0) return;
    const ci = names.intervention.coverage(l);
    const cc = names.comparator.coverage(l);
    if (ci > cc) si[k] += 0.001;
    else if (cc > ci) sc[k] += 0.001;
  });
  const iBest = bestIndices(
    si.map((s, k) => (s > sc[k] ? s : 0)),
    0.3,
  );
  const cBest = bestIndices(
    sc.map((s, k) => (s > si[k] ? s : 0)),
    0.3,
  );
  if (iBest.length === 0 || cBest.length === 0) return null;
  return { intervention: iBest.map((k) => k + offset), comparator: cBest.map((k) => k + offset) };
}

/** An exact p ("0.032", not "<0.05" or "NS") or t in a row's p / t column, for Cochrane Handbook 6.5.2.3. */
function rowTest(table: ReportTable, r: number): { p?: number; t?: number; text: string } | undefined {
  const width = table.rows[r]?.length ?? 0;
  for (let c = 1; c < width; c += 1) {
    const label = columnLabel(table, c)
      .replace(/[*†‡§¶]/g, "")
      .trim();
    const cell = (table.rows[r][c] ?? "").replace(/[*†‡§¶a-d]$/g, "").trim();
    if (/^(p|p[- ]?values?)$/i.test(label) && /^0?\.\d*[1-9]\d*$/.test(cell))
      return { p: Number(cell), text: `p = ${cell}` };
    if (/^(t|t[- ]?values?|t[- ]?test)$/i.test(label) && /^-?\d+(\.\d+)?$/.test(cell) && Number(cell) !== 0)
      return { t: Number(cell), text: `t = ${cell}` };
  }
  return undefined;
}

/** A comparator named only generically ("Control", "the control group", "Comparator"): any one group that is not the intervention. */
const GENERIC_COMPARATOR =
  /^\s*(the\s+)?(control|controls|comparison|comparator|reference)(\s+(group|arm|condition))?\s*$/i;
/** Column labels that are not a group: totals, tests, effects. */
const NOT_A_GROUP =
  /^\s*(total|all|overall|p|p[- ]?values?|sig\.?|significance|difference|diff\.?|mean difference|effect size|es|or|rr|hr|95\s*%\s*ci|ci|statistic|t|f|z|χ2|chi)\b/i;

/**
 * Two-arm tables whose control group has its own name ("HA alone", "Saline") while the question calls
 * it "control" (family: trials that name the comparator by what it received): when the intervention
 * has one column by name and exactly one other group column is left, that column is the comparator.
 */
function comparatorByElimination(
  labels: string[],
  names: Record<ArmKey, ArmName>,
): { intervention: number[]; comparator: number[]; byElimination: true } | null {
  if (!GENERIC_COMPARATOR.test(names.comparator.raw)) return null;
  const si = labels.map((l) => names.intervention.score(l));
  const best = bestIndices(si, 0.5);
  if (best.length !== 1) return null;
  const rest = labels
    .map((l, k) => ({ l, k }))
    .filter(
      ({ l, k }) =>
        k !== best[0] && l.trim() !== "" && !NOT_A_GROUP.test(l) && !isComparisonLabel(l) && !EFFECT_COLUMN.test(l),
    );
  if (rest.length !== 1 || names.intervention.score(rest[0].l) > 0) return null;
  return { intervention: [best[0] + 1], comparator: [rest[0].k + 1], byElimination: true };
}

function detectTableArms(table: ReportTable, names: Record<ArmKey, ArmName>): TableArms | null {
  const width = table.header[0]?.length ?? table.rows[0]?.length ?? 0;
  const labels = Array.from({ length: width - 1 }, (_, k) => columnLabel(table, k + 1));
  const byColumn = assignArms(labels, names, 1) ?? comparatorByElimination(labels, names);
  if (byColumn) return { kind: "columns", ...byColumn };
  const rowLabels = table.rows.map((row) => row[0] ?? "");
  const byRow = assignArms(rowLabels, names, 0);
  if (byRow) return { kind: "rows", ...byRow };
  const paired = labels
    .map((label, k) => ({ k: k + 1, m: /([^();]*?)\s*\(([^()]+)\)\s*$/.exec(label) }))
    .filter(
      ({ m }) =>
        m &&
        names.intervention.score(m[1]) > names.comparator.score(m[1]) &&
        names.comparator.score(m[2]) > names.intervention.score(m[2]) &&
        names.comparator.score(m[2]) >= 0.3,
    )
    .map(({ k }) => k)
    .filter((k) => !/^(p|p[- ]?values?|sig\.?|significance)\b/i.test(labels[k - 1].trim()));
  if (paired.length) return { kind: "paired", intervention: paired, comparator: paired };
  return null;
}

/** Splits a cell written "intervention value (comparator value)" into its two halves. */
function splitPaired(cell: string): [string, string] | null {
  const m = /^(.*?\S)\s*\((.*\d.*)\)\s*$/.exec(cell.trim());
  if (!m || !/\d/.test(m[1])) return null;
  return [m[1].trim(), m[2].trim()];
}

/**
 * Hints from a table's caption and footnotes. A footnote listing several notations ("Data are mean
 * (SD), n (%), or median (IQR)") does not make every cell a median: then each cell's own form decides
 * (a bracketed range "6 (4–9)" is never read as mean and SD), and row and column labels that say
 * median still blank their cells.
 */
function tableLevelHints(text: string): Hints {
  const hints = hintsOf(text);
  if (hints.median && (hints.meanSd || hints.se || hints.count)) hints.median = false;
  return hints;
}

function describe(table: ReportTable): string {
  return `${table.caption} ${table.footnotes.join(" ")}`;
}

function isContextRow(row: string[]): boolean {
  return row[0] !== "" && row.slice(1).every((cell) => cell === "");
}

/** "a ± b" in a cell or sentence. */
const PLUS_MINUS = /±|\+\/-|\+\/−/;
/** A spread labelled in its own cell: "3.1 (SD 0.4)", "3.1 ± 0.4 SE". */
const OWN_SPREAD_LABEL = /\b(?:SDs?|SEMs?|SEs?)\b|\bs\.\s?[de]\./i;

/** A sentence that declares the notation of the report's data ("Data are presented as …", "Values are means (SE)"). */
const DECLARES =
  /\b(?:presented|expressed|shown|given|reported|summari[sz]ed|described|displayed|depicted)\b|\b(?:are|were)\s+(?:the\s+)?(?:means?|medians?)\b/i;
const SPREAD_LINK = String.raw`\bmeans?\s*(?:±|\+\/-|\+\/−|\(|\[|with(?:\s+the(?:ir)?)?|and(?:\s+the(?:ir)?)?|plus\s+or\s+minus)\s*`;
const DECLARED_SE = new RegExp(`${SPREAD_LINK}(?:SEMs?\\b|SEs?\\b|s\\.\\s?e\\.|standard\\s+errors?\\b)`, "i");
const DECLARED_SD = new RegExp(`${SPREAD_LINK}(?:SDs?\\b|s\\.\\s?d\\.|standard\\s+deviations?\\b)`, "i");
const DECLARED_MEDIAN =
  /\bmedians?\s*(?:\(|\[|with(?:\s+the(?:ir)?)?|and(?:\s+the(?:ir)?)?|,)\s*(?:IQR|inter-?quartile|range|min|Q1|quartiles?|25)/i;
/** Declarations about figures only ("error bars show the SEM") say nothing of the tables' and sentences' values. */
const FIGURES_ONLY = /\b(?:figures?|fig\.|graphs?|plots?|error bars?|bars?)\b/i;

/** The notation a text declares once for its data (`declaredNotation`): each declaring sentence's quote, or null. */
export interface DeclaredNotation {
  se: string | null;
  sd: string | null;
  median: string | null;
  /** Some declaration names means. */
  mean: boolean;
}

/**
 * Round 15: the notation a report declares once for its data, in its prose outside the tables (a table's caption
 * and footnotes are that table's own notation): the quote of the sentence declaring "mean ± SE(M)" / "mean (SE)" /
 * "mean ± standard error", "mean ± SD" / "mean (SD)", and "median (IQR / range / Q1, Q3)", each null when not
 * declared. A declaring sentence has a declaring verb ("presented", "expressed", "are means"), gives no value itself
 * (no "a ± b") and is not about figures. `mean` is true when any declaration names means.
 */
export function reportNotation(report: TrialReport): DeclaredNotation {
  let declared = notationCache.get(report);
  if (!declared) {
    declared = declaredNotation(documentSentences(report).map((span) => report.text.slice(span.start, span.end)));
    notationCache.set(report, declared);
  }
  return declared;
}

/** reportNotation per parsed report: read once for all the questions asked of it. */
const notationCache = new WeakMap<TrialReport, DeclaredNotation>();

/** `reportNotation` over any list of prose sentences (the meta-analysis path's sentence list). */
export function declaredNotation(sentences: Iterable<string>): DeclaredNotation {
  const out: DeclaredNotation = { se: null, sd: null, median: null, mean: false };
  for (const raw of sentences) {
    const sentence = raw.replace(/\s+/g, " ").trim();
    if (!DECLARES.test(sentence) || FIGURES_ONLY.test(sentence) || /\d\s*(?:±|\+\/-)\s*\d/.test(sentence)) continue;
    const quote = clip(sentence, 120);
    if (DECLARED_SE.test(sentence)) out.se ??= quote;
    if (DECLARED_SD.test(sentence)) out.sd ??= quote;
    if (DECLARED_MEDIAN.test(sentence)) out.median ??= quote;
    if (/\bmeans?\b/i.test(sentence)) out.mean = true;
  }
  return out;
}

/** A sentence stating the median as its statistic ("the median pain score was"), not a median follow-up or time. */
const MEDIAN_STATISTIC =
  /\bmedians?\b(?!\s+(?:follow|duration|time|age|length|period|observation|treatment|exposure|of\s+\d|\d|\())/i;

/**
 * Round 15's definitional notation rules on the readings of one report (see DEFINITIONAL_CORRECTIONS report-se and
 * HARD_GATES median-not-mean and range-not-ci): an unlabelled spread under a report-level SE declaration becomes an SE (the SD is then
 * derived as SE × √n in `finalise`), or its SD is withheld when the report declares both spreads; a mean read from a
 * sentence stating a median, or from an unlabelled "a (b)" cell of a report declaring medians only, is withheld; so is
 * a mean with a "CI" read where the table states both CIs and medians with IQR/range and the row states neither.
 */
function applyNotationRules(
  candidates: Candidate[],
  report: TrialReport,
  corrections: ReadonlySet<CorrectionName>,
  hardGates: ReadonlySet<HardGateName>,
): void {
  const reportSe = corrections.has("report-se");
  const medianRule = hardGates.has("median-not-mean");
  const rangeRule = hardGates.has("range-not-ci");
  if (!reportSe && !medianRule && !rangeRule) return;
  const declared = reportNotation(report);
  for (const candidate of candidates) {
    if (candidate.kind !== "continuous") continue;
    if (rangeRule && candidate.rangeOrCi) {
      candidate.notationGate = {
        rule: `range-not-ci: the table states both CIs and medians with an IQR or range ("${candidate.rangeOrCi}") and the row has no notation of its own, so the bracket may be a range, not a CI`,
        fields: ["mean", "sd"],
      };
      continue;
    }
    if (medianRule) {
      const sentence = candidate.source === "prose" ? (candidate.sentence ?? "") : "";
      if (sentence && MEDIAN_STATISTIC.test(sentence) && !/\bmeans?\b|\baverage\b/i.test(sentence)) {
        candidate.notationGate = {
          rule: "median-not-mean: the sentence states a median, and a median is not a mean",
          fields: ["mean", "sd"],
        };
        continue;
      }
      if (candidate.unlabelledSpread === "pair" && declared.median && !declared.mean) {
        candidate.notationGate = {
          rule: `median-not-mean: the report states its data as medians ("${declared.median}") and the cell has no notation of its own`,
          fields: ["mean", "sd"],
        };
        continue;
      }
    }
    if (!reportSe || !candidate.unlabelledSpread || !declared.se) continue;
    if (declared.sd) {
      candidate.notationGate = {
        rule: `report-se: the report states both SD ("${declared.sd}") and SE ("${declared.se}") and the spread has no notation of its own, so which it is cannot be told`,
        fields: ["sd"],
      };
      continue;
    }
    for (const arm of ARMS) {
      const st = candidate.arms[arm].stats;
      if (st.kind === "continuous" && st.sd !== undefined && st.se === undefined)
        candidate.arms[arm].stats = { ...st, sd: undefined, se: st.sd };
    }
    candidate.spreadNote = `the spread is an SE by the report's notation (report-se: "${declared.se}")`;
  }
}

const CHANGE =
  /\b(changes?|changed|delta|difference from baseline|(reduction|decrease|increase|improvement) from baseline)\b|Δ/i;

/**
 * Picks, among columns of one arm, those of the question's timepoint (or the end of treatment after
 * baseline). Change-from-baseline columns are taken only when the question asks for a change, and
 * are set aside otherwise.
 */
function pickTimepoint(
  table: ReportTable,
  allCols: number[],
  outcome: Outcome,
  armLabelScore: (label: string) => number,
  note: { text: string } = { text: "" },
): number[] {
  const changeCols = allCols.filter((c) => CHANGE.test(columnLabel(table, c)));
  let cols = allCols;
  note.text = "";
  if (changeCols.length > 0 && changeCols.length < allCols.length) {
    cols = outcome.change ? changeCols : allCols.filter((c) => !changeCols.includes(c));
    note.text = outcome.change
      ? "change-from-baseline column, as the question asks"
      : "value columns (change-from-baseline columns set aside)";
    if (outcome.change && cols.length === 1) return cols;
  }
  const keyed = cols.map((c) => {
    const role = columnRole(table.header[table.header.length - 1]?.[c] ?? "");
    // A statistic sub-column ("n (%)", "Mean days", "SD") is keyed by the labels above it, so the sub-columns of one time stay together.
    const label =
      role !== null && table.header.length > 1
        ? columnLabel({ ...table, header: table.header.slice(0, -1) }, c)
        : columnLabel(table, c);
    return { c, tp: timepointOf(label), base: isBaseline(label), role, label, armScore: armLabelScore(label) };
  });
  const groups = new Map<string, number[]>();
  for (const k of keyed) {
    const key = k.tp ?? (k.base ? "base" : stripRoleWords(k.label));
    groups.set(key, [...(groups.get(key) ?? []), k.c]);
  }
  if (groups.size <= 1) return cols;
  if (outcome.timepoint) {
    const asked = outcome.timepoint;
    const same = [...groups.keys()].find((key) => sameTime(key, asked));
    note.text = `the question's timepoint (${asked})`;
    if (same) return groups.get(same) ?? cols;
    // The question names a time the table's timed columns do not have: a blank beats another time's values.
    if (keyed.some((k) => k.tp !== null && /^\d/.test(k.tp))) return [];
  }
  const timed = keyed.filter((k) => k.tp !== null || k.base || POST.test(k.label) || FOLLOW_UP.test(k.label));
  if (timed.length < keyed.length) {
    const overall = keyed.filter((k) => /\b(overall|total|all|combined|pooled)\b/i.test(k.label));
    note.text = "the overall/total columns (the question names no timepoint)";
    return overall.length ? overall.map((k) => k.c) : [];
  }
  const keys = [...groups.keys()].filter((k) => k !== "base");
  if (keys.length === 0) return [];
  const post = keys.find((k) => (groups.get(k) ?? []).some((c) => POST.test(columnLabel(table, c))));
  const picked = groups.get(post ?? keys[keys.length - 1]) ?? [];
  note.text = `the ${post ? "post-treatment" : "last"} timepoint "${picked.length ? columnLabel(table, picked[0]) : ""}" (the question names none)`;
  return picked;
}

const EFFECT_COLUMN =
  /\b(p|p[- ]value|odds ratio|risk ratio|hazard ratio|OR|RR|HR|IRR|CI|confidence|difference|diff|effect size|ES|t|F|χ2|chi|test|statistic|z)\b/i;
const POST =
  /\b(post[- ]?(test|treatment|intervention|trial)?|after|end of (treatment|intervention|study|trial)|final|endpoint)\b/i;
const FOLLOW_UP = /\bfollow[- ]?up\b/i;

function stripRoleWords(label: string): string {
  return label
    .split(/\s+/)
    .filter((w) => !columnRole(w) && !STAT_LABEL.test(w.replace(/[()]/g, "")))
    .join(" ");
}

/**
 * Without a timepoint in the question, the end of the intervention is the usual primary time: data
 * read from columns labelled as a later follow-up rank slightly below the same outcome elsewhere.
 */
function followUpFactor(table: ReportTable, cols: number[], outcome: Outcome): number {
  if (outcome.timepoint) return 1;
  return cols.some((c) => FOLLOW_UP.test(columnLabel(table, c))) ? 0.9 : 1;
}

/** A row that sums a scale ("Total score", "Overall", "Global index"); "Total cholesterol" is not one. */
const TOTAL_ROW =
  /^(the\s+)?(total|overall|global|composite|summary|sum)(\s+(score|scale|index|points?|sum score))?\s*(\([^()]*\))?$/i;
/** A period row that covers the whole follow-up ("Total 0–12 months", "Overall"). */
const TOTAL_PERIOD = /^(total|overall|cumulative|whole|entire)\b/i;
const PERIOD_ROW =
  /^(total\s+|overall\s+|cumulative\s+)?((\d+\s*(?:[-–]|to)\s*)?\d+\s*(weeks?|wks?|months?|mo|days?|years?|hours?|h|d)|(week|month|day|year|visit)\s*\d+(\s*(?:[-–]|to)\s*\d+)?|baseline|pre[- ]?(test|treatment|intervention)|post[- ]?(test|treatment|intervention)|follow[- ]?up|end of (treatment|study|intervention)|t\d)\b/i;

/**
 * A table whose caption names the outcome while no row label does ("Sick leave by period" with rows
 * "0–3 months", "4–12 months", "Total 0–12 months"; "Nursing competence" with rows "Total score" and
 * subscales): the one row that stands for the outcome. Rows that are all periods give the question's
 * timepoint, else the single total/overall row, else the single row after baseline; other rows give
 * their single total/overall row. Nothing when the choice is not unique. Score 0.85 × caption match.
 */
function captionOnlyRow(table: ReportTable, outcome: Outcome, arms: TableArms): { row: number; score: number } | null {
  const captionScore = outcomeScore(outcome, table.caption, false);
  if (captionScore < 0.5) return null;
  const data = table.rows
    .map((row, r) => ({ r, label: row[0] ?? "" }))
    .filter(
      ({ r }) => !isContextRow(table.rows[r]) && arms.intervention.some((c) => /\d/.test(table.rows[r][c] ?? "")),
    );
  if (data.length === 0 || table.rows.some((row) => outcomeScore(outcome, row[0] ?? "") > 0)) return null;
  const pick = (rows: { r: number }[]) => (rows.length === 1 ? { row: rows[0].r, score: 0.85 * captionScore } : null);
  if (data.every(({ label }) => PERIOD_ROW.test(label.trim()))) {
    const asked = outcome.timepoint;
    if (asked) {
      return pick(
        data.filter(({ label }) => {
          const tp = timepointOf(label.replace(/^.*?(?:[-–]|to)\s*(?=\d+\s*[a-z])/i, ""));
          return tp !== null && sameTime(tp, asked);
        }),
      );
    }
    const totals = data.filter(({ label }) => TOTAL_PERIOD.test(label.trim()));
    if (totals.length) return pick(totals);
    return pick(data.filter(({ label }) => !isBaseline(label)));
  }
  return pick(data.filter(({ label }) => TOTAL_ROW.test(label.trim())));
}

/** Parses the cells of one arm at one row, combining sub-columns (mean | SD, n | %) by their roles. */
function readArmCells(
  table: ReportTable,
  r: number,
  cols: number[],
  hints: Hints,
  groupSize: number | null,
  prefer: OutcomeType = "unknown",
): { stats: CellStats; col: number; text: string } | null {
  const usable = cols.filter((c) => columnRole(table.header[table.header.length - 1]?.[c] ?? "") !== "p");
  const cells = usable.map((c) => ({
    c,
    text: table.rows[r][c] ?? "",
    role: columnRole(table.header[table.header.length - 1]?.[c] ?? ""),
  }));
  const filled = cells.filter((cell) => cell.text !== "");
  if (filled.length === 0) return null;
  if (filled.length === 1) {
    const only = filled[0];
    const roleHints =
      only.role === "pct"
        ? mergeHints(hints, hintsOf("%"))
        : only.role === "n"
          ? { ...hints, count: true, meanSd: false }
          : hints;
    const stats = parseCell(
      only.text,
      only.role === "pct" ? { ...roleHints, percentOnly: true } : roleHints,
      groupSize,
    );
    return { stats, col: only.c, text: only.text };
  }
  const byRole = new Map(filled.map((cell) => [cell.role, cell]));
  const countCell = byRole.get("npct");
  const readCount = () => {
    if (!countCell || filled.filter((cell) => cell.role === "npct").length !== 1) return null;
    const stats = parseCell(countCell.text, hintsOf("n (%)"), groupSize);
    return stats.kind === "count" ? { stats, col: countCell.c, text: countCell.text } : null;
  };
  if (prefer === "binary") {
    const count = readCount();
    if (count) return count;
  }
  const num = (text: string | undefined) => {
    if (text === undefined) return NaN;
    const m = /^\(?\s*([-−–]?\d+(?:[.,·]\d+)?)\s*%?\s*\)?$/.exec(text.replace(/[*†‡§¶#¤]/g, "").trim());
    return m ? parseNumber(m[1]) : NaN;
  };
  if (byRole.has("mean") && (byRole.has("sd") || byRole.has("se"))) {
    const mean = num(byRole.get("mean")?.text);
    const sd = num(byRole.get("sd")?.text);
    const se = num(byRole.get("se")?.text);
    if (Number.isFinite(mean) && (Number.isFinite(sd) || Number.isFinite(se))) {
      const first = byRole.get("mean");
      const n = byRole.has("n") ? num(byRole.get("n")?.text) : NaN;
      const size = Number.isInteger(n) && n > 0 ? { groupSize: n } : {};
      // An arm block with both a count column and a mean column, for an outcome whose wording names neither: a blank beats a guess.
      if (prefer === "unknown" && readCount()) return null;
      return {
        stats: Number.isFinite(sd)
          ? { kind: "continuous", mean, sd, ...size }
          : { kind: "continuous", mean, se, ...size },
        col: first?.c ?? usable[0],
        text: filled.map((cell) => cell.text).join(" "),
      };
    }
  }
  if (byRole.has("n") && byRole.has("pct")) {
    const events = num(byRole.get("n")?.text);
    const pctText = byRole.get("pct")?.text ?? "";
    const percent = num(pctText);
    if (Number.isInteger(events) && Number.isFinite(percent)) {
      return {
        stats: { kind: "count", events, percent, percentDecimals: /[.,](\d+)/.exec(pctText)?.[1].length ?? 0 },
        col: byRole.get("n")?.c ?? usable[0],
        text: filled.map((cell) => cell.text).join(" "),
      };
    }
  }
  if (prefer !== "continuous") {
    const count = readCount();
    if (count) return count;
  }
  if (filled.length === 2 && filled.every((cell) => cell.role === null)) {
    const joined = `${filled[0].text} (${filled[1].text.replace(/^\(|\)$/g, "")})`;
    return {
      stats: parseCell(joined, hints, groupSize),
      col: filled[0].c,
      text: filled.map((cell) => cell.text).join(" "),
    };
  }
  return null;
}

function tableGroupSizes(
  table: ReportTable,
  arms: TableArms,
): Record<ArmKey, { n: number; quote: ArmQuote | null } | null> {
  const out: Record<ArmKey, { n: number; quote: ArmQuote | null } | null> = { intervention: null, comparator: null };
  for (const arm of ARMS) {
    const idx = arms[arm];
    if (arms.kind === "columns") {
      const sizes = new Set(
        idx.map((c) => groupSizeFromLabel(columnLabel(table, c))).filter((n): n is number => n !== null),
      );
      if (sizes.size === 1) {
        const n = [...sizes][0];
        out[arm] = {
          n,
          quote: {
            arm,
            field: "groupSize",
            table: table.label,
            row: -1,
            column: idx[0],
            text: columnLabel(table, idx[0]),
          },
        };
        continue;
      }
      const nRow = table.rows.findIndex((row) => N_ROW.test(row[0].replace(/[*:]/g, "").trim()));
      if (nRow >= 0) {
        const values = new Set(
          idx
            .map((c) => table.rows[nRow][c])
            .filter((v) => /^\d+$/.test(v.trim()))
            .map((v) => Number(v.trim())),
        );
        if (values.size === 1)
          out[arm] = {
            n: [...values][0],
            quote: {
              arm,
              field: "groupSize",
              table: table.label,
              row: nRow,
              column: idx[0],
              text: table.rows[nRow][idx[0]],
            },
          };
      }
    } else {
      const sizes = new Set(
        idx.map((r) => groupSizeFromLabel(table.rows[r][0])).filter((n): n is number => n !== null),
      );
      if (sizes.size === 1)
        out[arm] = {
          n: [...sizes][0],
          quote: { arm, field: "groupSize", table: table.label, row: idx[0], column: 0, text: table.rows[idx[0]][0] },
        };
    }
  }
  return out;
}

/** Candidates from one table: rows (or blocks) that name the outcome, read at the arms' columns (or rows). */
const BASELINE_TABLE =
  /\b(baseline|demographics?|demographic and clinical|(patient|participant|subject|sample|clinical) characteristics|characteristics of (the )?(study )?(participants|patients|subjects|sample|groups?|population))\b/i;
const OUTCOME_TABLE =
  /\b(outcomes?|results?|follow[- ]?up|after|post[- ]?(test|treatment|intervention)|end of|changes?|effects?|at (\d+|one|two|three|six|twelve) (weeks?|months?|years?|days?)|efficacy|adverse)\b/i;

/** A table of the participants at baseline ("Baseline characteristics", "Demographics"): not where an outcome's result is. */
function isBaselineTable(table: ReportTable): boolean {
  return BASELINE_TABLE.test(table.caption) && !OUTCOME_TABLE.test(table.caption.replace(BASELINE_TABLE, " "));
}

function tableCandidates(
  table: ReportTable,
  names: Record<ArmKey, ArmName>,
  outcome: Outcome,
  textSizes: Record<ArmKey, SizeFact | null>,
): Candidate[] {
  if (isBaselineTable(table) && !outcome.baseline) return [];
  const arms = detectTableArms(table, names);
  if (!arms) return [];
  const captionScore = outcomeScore(outcome, table.caption);
  const sizes: Record<ArmKey, { n: number; quote: ArmQuote | null } | null> = tableGroupSizes(table, arms);
  const sizeOf = (arm: ArmKey) => sizes[arm]?.n ?? textSizes[arm]?.n ?? null;
  const tableHints = tableLevelHints(describe(table));
  // Round 15 range-not-ci: the caption or footnotes state both CIs and medians with an IQR or range.
  const mixedRangeCi = tableHints.ci && hintsOf(describe(table)).median;
  const out: Candidate[] = [];
  const build = (
    rowFor: Record<ArmKey, number>,
    colsFor: Record<ArmKey, number[]>,
    score: number,
    hints: Hints,
    timeNote = "",
    context = "",
  ) => {
    const data: Partial<Record<ArmKey, ArmData>> = {};
    let unlabelledSpread: Candidate["unlabelledSpread"];
    for (const arm of ARMS) {
      const n = sizeOf(arm);
      const read = readArmCells(table, rowFor[arm], colsFor[arm], hints, n, outcome.typeGuess);
      let form: "pm" | "pair" | undefined;
      if (!read || read.stats.kind === "unknown") {
        if (read?.stats.ambiguous && outcome.typeGuess !== "binary" && !hints.count) {
          read.stats = { kind: "continuous", mean: read.stats.ambiguous.a, sd: read.stats.ambiguous.b };
          form = "pair";
        } else return;
      } else if (read.stats.kind === "continuous" && read.stats.sd !== undefined && PLUS_MINUS.test(read.text))
        form = "pm";
      // Round 15: a spread with no notation of its own, in its cell or in any of its table's labels.
      if (form && !hints.meanSd && !hints.se && !hints.ci && !hints.median && !OWN_SPREAD_LABEL.test(read.text))
        unlabelledSpread ??= form;
      const st = read.stats;
      if (
        outcome.typeGuess === "binary" &&
        st.kind === "continuous" &&
        st.sd === undefined &&
        st.se === undefined &&
        st.ciLow === undefined &&
        /^\d+$/.test(read.text.trim()) &&
        !hints.meanSd
      ) {
        // A bare whole number on the row of an event-type outcome ("Hospitalization | 4 | 9") is a count, not a mean.
        read.stats = { kind: "count", events: Number(read.text.trim()) };
      }
      data[arm] = {
        stats: read.stats,
        quote: {
          arm,
          field: read.stats.kind === "count" ? "events" : "mean",
          table: table.label,
          row: rowFor[arm],
          column: read.col,
          text: read.text,
        },
        quoteFields: [],
        groupSize: sizes[arm]?.n ?? null,
        groupSizeQuote: sizes[arm]?.quote ?? null,
        groupSizeOrigin: sizes[arm] ? "table" : undefined,
      };
    }
    for (const arm of ARMS) {
      const armData = data[arm];
      if (!armData || arms.kind !== "columns") continue;
      // The group size written over the columns read (the analysed n at that time) beats one written elsewhere.
      const own = new Set(
        colsFor[arm].map((col) => groupSizeFromLabel(columnLabel(table, col))).filter((n): n is number => n !== null),
      );
      if (own.size === 1) {
        const col = colsFor[arm][0];
        armData.groupSize = [...own][0];
        armData.groupSizeQuote = {
          arm,
          field: "groupSize",
          table: table.label,
          row: -1,
          column: col,
          text: columnLabel(table, col),
        };
        armData.groupSizeOrigin = "header";
      }
    }
    const i = data.intervention;
    const c = data.comparator;
    if (!i || !c || i.stats.kind !== c.stats.kind || i.stats.kind === "unknown") return;
    const labelOf = (arm: ArmKey) =>
      arms.kind === "rows" ? (table.rows[rowFor[arm]][0] ?? "") : columnLabel(table, colsFor[arm][0] ?? 0);
    const armScore =
      arms.kind === "paired"
        ? 1
        : Math.min(names.intervention.score(labelOf("intervention")), names.comparator.score(labelOf("comparator")));
    const rowLabel =
      arms.kind === "rows"
        ? columnLabel(
            table,
            data.intervention?.quote && "column" in data.intervention.quote ? data.intervention.quote.column : 0,
          )
        : (table.rows[rowFor.intervention][0] ?? "");
    const where = `${table.label}${table.caption ? ` ("${clip(table.caption)}")` : ""}: ${arms.kind === "rows" ? "column" : "row"} "${clip(rowLabel)}", ${arms.kind === "rows" ? "rows" : "columns"} "${clip(labelOf("intervention"))}" / "${clip(labelOf("comparator"))}"`;
    const readColumns = arms.kind === "columns" ? [...colsFor.intervention, ...colsFor.comparator] : [];
    const labels = [
      table.caption,
      context,
      rowLabel,
      labelOf("intervention"),
      labelOf("comparator"),
      ...readColumns.map((col) => columnLabel(table, col)),
    ].join(" | ");
    const changeTable =
      CHANGE.test(table.caption) ||
      [...colsFor.intervention, ...colsFor.comparator].some(
        (col) => arms.kind === "columns" && CHANGE.test(columnLabel(table, col)),
      );
    // A row that pools alternatives ("ACEI or ARB") while the question names one of them is not its outcome.
    const ownLabel = arms.kind === "rows" ? "" : (table.rows[rowFor.intervention][0] ?? "");
    // Units ("m/s", "(mg/dl)") are not alternatives: only the label before its unit is split.
    const parts = ownLabel
      .replace(/\([^()]*\)/g, " ")
      .split(",")[0]
      .split(/\s+or\s+|\s*\/\s*/i)
      .filter((p) => p.trim().length > 1);
    const pooledRow =
      parts.length >= 2 &&
      !/\bor\b|\//i.test(outcome.phrase) &&
      parts.some((p) => outcomeScore(outcome, p) >= 0.5) &&
      parts.some((p) => outcomeScore(outcome, p) === 0);
    const baselineMismatch =
      outcome.baseline &&
      !isBaselineTable(table) &&
      ![...colsFor.intervention].some((col) => arms.kind === "columns" && isBaseline(columnLabel(table, col)));
    const bracketAsCi =
      mixedRangeCi &&
      ARMS.some((arm) => data[arm]?.stats.ciLow !== undefined) &&
      !hintsOf([context, rowLabel, ...readColumns.map((col) => columnLabel(table, col))].join(" ")).ci;
    out.push({
      score,
      kind: i.stats.kind,
      arms: { intervention: i, comparator: c },
      source: "table",
      ...(bracketAsCi ? { rangeOrCi: clip(describe(table), 120) } : {}),
      where,
      timeNote,
      armScore,
      changeMismatch: changeTable !== outcome.change && i.stats.kind === "continuous",
      baselineMismatch,
      ...(unlabelledSpread && i.stats.kind === "continuous" ? { unlabelledSpread } : {}),
      pooledRow,
      test: arms.kind === "columns" ? rowTest(table, rowFor.intervention) : undefined,
      byElimination: arms.byElimination,
      labels,
      rowLabel,
      columnLabels: readColumns.map((col) => columnLabel(table, col)),
      caption: table.caption,
      contextRow: context,
    });
  };
  if (arms.kind === "paired") {
    const pairedNote = { text: "" };
    const chosen = pickTimepoint(table, arms.intervention, outcome, () => 0, pairedNote);
    if (chosen.length !== 1) return out;
    const c = chosen[0];
    table.rows.forEach((row, r) => {
      const score = outcomeScore(outcome, row[0]);
      if (score < 0.5) return;
      const halves = splitPaired(row[c] ?? "");
      if (!halves) return;
      const hints = mergeHints(tableHints, hintsOf(row[0]), hintsOf(columnLabel(table, c)));
      const data = {} as Record<ArmKey, ArmData>;
      for (const [k, arm] of ARMS.entries()) {
        const stats = parseCell(halves[k], hints, sizeOf(arm));
        if (stats.kind === "unknown") return;
        data[arm] = {
          stats,
          quote: { arm, field: "mean", table: table.label, row: r, column: c, text: row[c] },
          quoteFields: [],
          groupSize: null,
          groupSizeQuote: null,
        };
      }
      if (data.intervention.stats.kind !== data.comparator.stats.kind) return;
      const where = `${table.label}${table.caption ? ` ("${clip(table.caption)}")` : ""}: row "${clip(row[0])}", column "${clip(columnLabel(table, c))}" (intervention value, comparator value in brackets)`;
      out.push({
        score,
        kind: data.intervention.stats.kind === "count" ? "count" : "continuous",
        arms: data,
        source: "table",
        where,
        timeNote: pairedNote.text,
        armScore: 1,
        labels: [table.caption, row[0], columnLabel(table, c)].join(" | "),
      });
    });
    return out;
  }
  if (arms.kind === "columns") {
    let context = "";
    const captionRow = captionOnlyRow(table, outcome, arms);
    table.rows.forEach((row, r) => {
      if (isContextRow(row)) {
        context = row[0];
        return;
      }
      const own = outcomeScore(outcome, row[0]);
      const withContext = outcomeScore(outcome, `${context} ${row[0]}`);
      let score = Math.max(
        own,
        0.9 * withContext,
        own > 0 ? 0.9 * outcomeScore(outcome, `${row[0]} ${table.caption}`, false) : 0,
      );
      if (captionRow && captionRow.row === r) score = captionRow.score;
      else if (score < 0.5 || (own === 0 && withContext === 0)) return;
      const hints = mergeHints(
        tableHints,
        hintsOf(row[0]),
        hintsOf(context),
        ...arms.intervention.map((c) => hintsOf(columnLabel(table, c))),
      );
      const note = { text: "" };
      const colsFor = {
        intervention: pickTimepoint(table, arms.intervention, outcome, (l) => names.intervention.score(l), note),
        comparator: pickTimepoint(table, arms.comparator, outcome, (l) => names.comparator.score(l)),
      };
      const before = out.length;
      build(
        { intervention: r, comparator: r },
        colsFor,
        score * followUpFactor(table, colsFor.intervention, outcome),
        hints,
        note.text,
        context,
      );
      const made = out.length > before ? out[out.length - 1] : null;
      if (made && !(captionRow && captionRow.row === r)) {
        made.ownScore = own;
        // Named through the section row: the row's own label does not carry the outcome.
        made.viaContext = context && own < OUTCOME_FULL && 0.9 * withContext > own ? context : null;
      }
    });
  } else {
    const width = table.rows[0]?.length ?? 0;
    const stub = table.header
      .map((row) => row[0])
      .filter(Boolean)
      .join(" ");
    const contextOf = (r: number) => {
      for (let k = r - 1; k >= 0; k -= 1) if (isContextRow(table.rows[k])) return table.rows[k][0];
      return stub;
    };
    for (const ri of arms.intervention) {
      for (const rc of arms.comparator) {
        if (contextOf(ri) !== contextOf(rc)) continue;
        const context = contextOf(ri);
        const contextScore = context ? outcomeScore(outcome, context) : 0;
        const blockScore = context
          ? contextScore > 0
            ? Math.max(contextScore, 0.9 * outcomeScore(outcome, `${context} ${table.caption}`, false))
            : context === stub
              ? captionScore * 0.9
              : 0
          : captionScore * 0.9;
        const columns = Array.from({ length: width - 1 }, (_, k) => k + 1);
        const colScores = columns.map((c) => outcomeScore(outcome, columnLabel(table, c)));
        const bestCol = Math.max(0, ...colScores);
        let chosen: number[];
        let score: number;
        if (bestCol >= 0.5 && bestCol > blockScore) {
          chosen = columns.filter((_, k) => colScores[k] === bestCol);
          score = bestCol;
        } else {
          chosen = columns;
          score = blockScore;
        }
        if (score < 0.5) continue;
        const timed = chosen.filter(
          (c) =>
            timepointOf(columnLabel(table, c)) !== null ||
            isBaseline(columnLabel(table, c)) ||
            POST.test(columnLabel(table, c)),
        );
        const note = { text: "" };
        if (timed.length >= 2) chosen = pickTimepoint(table, timed, outcome, () => 0, note);
        const nColumn = columns.find((c) =>
          /^(n|no\.?|number|n analy[sz]ed|n randomi[sz]ed|total|total n|n total|patients|participants|analy[sz]ed|randomi[sz]ed|no\.? of (patients|participants))$/i.test(
            columnLabel(table, c).trim(),
          ),
        );
        for (const arm of ARMS) {
          const r = arm === "intervention" ? ri : rc;
          const value = nColumn !== undefined ? table.rows[r][nColumn]?.trim() : "";
          if (nColumn !== undefined && /^\d+$/.test(value ?? "") && !sizes[arm]) {
            sizes[arm] = {
              n: Number(value),
              quote: { arm, field: "groupSize", table: table.label, row: r, column: nColumn, text: value ?? "" },
            };
          }
        }
        const statColumns = chosen.filter((c) => c !== nColumn && !EFFECT_COLUMN.test(columnLabel(table, c)));
        const before = out.length;
        const lastHeader = table.header[table.header.length - 1] ?? [];
        if (
          statColumns.length >= 2 &&
          statColumns.length <= 3 &&
          statColumns.every((c) => columnRole(lastHeader[c] ?? "") !== null)
        ) {
          const hints = mergeHints(
            tableHints,
            hintsOf(context),
            hintsOf(table.rows[ri][0]),
            ...statColumns.map((c) => hintsOf(columnLabel(table, c))),
          );
          build(
            { intervention: ri, comparator: rc },
            { intervention: statColumns, comparator: statColumns },
            score,
            hints,
            note.text,
            context,
          );
          if (out.length > before) continue;
        }
        for (const c of statColumns) {
          const hints = mergeHints(
            tableHints,
            hintsOf(context),
            hintsOf(table.rows[ri][0]),
            hintsOf(columnLabel(table, c)),
          );
          build(
            { intervention: ri, comparator: rc },
            { intervention: [c], comparator: [c] },
            score,
            hints,
            note.text,
            context,
          );
          if (out.length > before) break;
        }
      }
    }
  }
  return out;
}

interface SizeFact {
  n: number;
  quote: ArmQuote;
  /** "text": stated with the arm in the report's text (randomised or analysed); "tables": the most frequent n over the arm's columns in the report's tables. */
  origin: "text" | "tables";
  /** How many different n the text states for the arm (randomised and analysed numbers differ when some dropped out). */
  distinct?: number;
  /** Every n the text states for the arm (randomised, allocated, analysed). */
  stated?: number[];
}

/** A label or sentence shortened for a reason string. */
function clip(text: string, max = 80): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

const NUMBER_WORDS: Record<string, number> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

function wordNumber(raw: string): number | null {
  if (/^\d+$/.test(raw)) return Number(raw);
  const parts = raw.toLowerCase().split(/[-\s]/);
  let total = 0;
  for (const part of parts) {
    const v =
      NUMBER_WORDS[part] ??
      ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"].indexOf(part);
    if (v === undefined || v < 0) return null;
    total += v;
  }
  return total > 0 ? total : null;
}

/** A verb that makes a number before an arm name a count of events ("45 in the drug group had …", "as did 30 in …"). */
const OUTCOME_VERB =
  /\b(had|has|have|did|developed|experienced|reported|achieved|responded|died|showed|occurred|required|needed)\b/i;

/** "… excluded from the full analysis and safety set for B": participants of an arm left out of an analysis set. */
const EXCLUDED_FROM_SET =
  /\bexcluded from (?:the )?(?:full |modified |primary )?(?:analys[ie]s|safety|efficacy|intention[- ]to[- ]treat|ITT|per[- ]protocol)\b[^.;)]{0,60}/i;

/**
 * Round 19: whether the sentence that states an arm's n (from `from`, the arm's mention) goes on to say that some of
 * this arm's participants were excluded from an analysis set ("241 to CT-P13; one patient was excluded from the full
 * analysis and safety set for CT-P13"). The randomised n is then not the n analysed, and is not given.
 */
function excludedFromAnalysis(text: string, from: number, arm: ArmName): boolean {
  const rest = text.slice(from, from + 240);
  const sentenceEnd = rest.search(/[.!?](?:\s+[A-Z]|\s*$)/);
  const m = EXCLUDED_FROM_SET.exec(sentenceEnd < 0 ? rest : rest.slice(0, sentenceEnd));
  return m !== null && arm.mentions(m[0]).length > 0;
}

/**
 * Round 21: whether a prose reading's sentence states an n ("n = 9", "N=6") that is no n the text states for either
 * arm and not the two arms' together: the sentence's values then belong to another number of participants (a
 * subsample, the animals of one test) than the arms' randomised or allocated n (`sizes`).
 */
function sentenceStatesOtherN(sentence: string, sizes: Record<ArmKey, SizeFact | null>): boolean {
  const own = new Set(ARMS.flatMap((arm) => sizes[arm]?.stated ?? []));
  const together = (sizes.intervention?.n ?? 0) + (sizes.comparator?.n ?? 0);
  for (const m of sentence.matchAll(SENTENCE_N)) {
    const n = parseNumber(m[1]!);
    if (n > 0 && !own.has(n) && n !== together) return true;
  }
  // Round 22: a number stated for a group that is larger than every n of either arm ("4639 health care opportunities
  // (2374 in the Coupler group and 2265 in the usual-care group)" in a trial of 936 and 966 patients) counts another
  // unit, so the outcome's percentages are not of the arms' n.
  const largest = Math.max(0, ...own);
  if (largest > 0)
    for (const m of sentence.matchAll(GROUP_STATED_NUMBER)) {
      const k = parseNumber(m[1]!);
      if (k > largest && k !== together) return true;
    }
  return false;
}

/**
 * Group sizes stated in the text: "ARM (n = 120)" (round 22: also "ARM (n = 63; what they received)"), "120 patients
 * were randomised to ARM", "30 received ARM".
 */
/** Round 23: what a before/after comparison counts in each period (periodSize): people, or their records and visits. */
const COUNTED_UNITS =
  /\b(?:patients|participants|subjects|persons|people|individuals|adults|children|infants|women|men|residents|physicians|nurses|clinicians|records|charts|cases|visits|admissions|episodes|encounters|prescriptions|orders|consultations|respondents|questionnaires|surveys)\b/i;

/**
 * Round 23: the size of a period of a before/after comparison (ArmName.period), stated as a number before the period's
 * name with at most eight words between ("591 before the intervention and 1640 after", "301 records were reviewed after
 * implementation", "85 patients from the baseline observation period"), in a sentence that gives no result (no
 * percentage, no ±), with no outcome verb, no other number and no name of the other period between. `mention` is the
 * period's name in `text`; returns the number and where it starts, or null.
 */
function periodSize(
  text: string,
  mention: { start: number; end: number },
  other: ArmName,
): { n: number; start: number } | null {
  const from = Math.max(0, mention.start - 160);
  const head =
    text
      .slice(from, mention.start)
      .split(/[.!?]\s+(?=[A-Z])/)
      .pop() ?? "";
  const tail = /^[^.!?]*/.exec(text.slice(mention.end))?.[0] ?? "";
  if (/[%±]|\+\/-/.test(head + tail)) return null;
  const m = /(?:^|[\s,:;(])(\d[\d,]*)\s+((?:[A-Za-z][\w'-]*,?\s+){0,8}?)$/.exec(head);
  if (!m || OUTCOME_VERB.test(m[2])) return null;
  // What is counted: nothing ("1640 after"), or people or records ("301 records were reviewed"), not a unit ("20 mL").
  if (m[2].trim() && !COUNTED_UNITS.test(m[2])) return null;
  const start = mention.start - head.length + m.index + m[0].indexOf(m[1]);
  const between = text.slice(start, mention.start);
  if (other.positions.some((p) => p.re.test(between))) return null;
  const n = parseNumber(m[1]);
  return Number.isInteger(n) && n > 0 ? { n, start } : null;
}

function textGroupSizes(report: TrialReport, names: Record<ArmKey, ArmName>): Record<ArmKey, SizeFact | null> {
  const out: Record<ArmKey, SizeFact | null> = { intervention: null, comparator: null };
  const text = report.text;
  for (const arm of ARMS) {
    const counts = new Map<number, { count: number; quote: ArmQuote }>();
    for (const mention of names[arm].mentions(text)) {
      const other = arm === "intervention" ? "comparator" : "intervention";
      const after = text.slice(mention.end, mention.end + 40);
      const before = text.slice(Math.max(0, mention.start - 70), mention.start);
      const wide = text.slice(Math.max(0, mention.start - 160), mention.start);
      let n: number | null = null;
      let start = mention.start;
      let end = mention.end;
      const a =
        /^[\w\s-]{0,25}?\(\s*[nN]\s*=\s*(\d+)\s*[);,]|^[\w\s-]{0,12}?[,:]?\s*[nN]\s*=\s*(\d+)\b|^[\w\s-]{0,25}?\(\s*(\d+)\s+(?:patients|participants|subjects|children|infants|women|men|people)\s*\)|^\s+(?:group|arm)\s+(?:comprised|consisted of|included)\s+(\d+)\s+(?:patients|participants|subjects|children|infants|women|men|people)\b/.exec(
          after,
        );
      // "… and the placebo group 118 patients": the verb of an earlier clause ("comprised") carries over.
      const elliptic = a
        ? null
        : /^\s+(?:group|arm)\s+(\d+)\s+(?:patients|participants|subjects|children|infants|women|men|people)\b/.exec(
            after,
          );
      const ellipticOk = elliptic !== null && /\b(comprised|consisted of)\b/i.test(wide);
      const enrolment =
        /\b(randomi[sz]ed|randomly|assigned|allocated|enrolled|included|recruited|a total of|of (the|all|these)?\s*\d+ (patients|participants|subjects|children|infants|women|men))\b/i;
      const d0 =
        a || ellipticOk
          ? null
          : /(?:^|[\s,:;(])(\d+)\s+(?:(?:patients|participants|subjects|children|infants|women|men)\s+)?(?:were\s+)?(?:(?:randomly\s+)?(?:randomi[sz]ed|assigned|allocated)\s+)?(?:to|into|in)\s+(?:the\s+)?$/i.exec(
              before,
            );
      // Round 22: the second number of an allocation ratio ("randomized 1:1 to the reference sequence") is no group size.
      const d = d0 && /\d\s*:\s*$/.test(before.slice(0, d0.index + d0[0].indexOf(d0[1]))) ? null : d0;
      // Only in a sentence about enrolment or allocation, and not "45 in the drug group had a response".
      const sentenceBefore =
        wide
          .slice(0, wide.length - (d ? before.length - d.index : 0))
          .split(/[.!?]\s+(?=[A-Z])/)
          .pop() ?? "";
      const sinceEnrolment = sentenceBefore.split(new RegExp(enrolment.source, "gi")).pop() ?? "";
      const dOk =
        d !== null &&
        enrolment.test(sentenceBefore) &&
        !OUTCOME_VERB.test(sinceEnrolment) &&
        !/^(?:\s+(?:group|arm)s?)?\s*(?:had|has|have|developed|experienced|died|reported|achieved|responded|showed|did|was|were|required|needed)\b/i.test(
          after,
        );
      const periodN = names[arm].period ? periodSize(text, mention, names[other]) : null;
      // Round 23: in a list of group sizes written "n = N name" ("( n = 367 FKB327, n = 363 RP)"), the n before a name
      // is its own and the "n = …" after it the next name's.
      const nFirst0 = /(?:^|[(,;]\s*)[nN]\s*=\s*(\d+(?:,\d{3})*)\s+$/.exec(before);
      const nFirst =
        nFirst0 &&
        (/^\s*,\s*[nN]\s*=\s*\d/.test(after) ||
          /[nN]\s*=\s*\d+(?:,\d{3})*\s+[^,;()=]{1,30},\s*$/.test(before.slice(0, nFirst0.index + 1)))
          ? nFirst0
          : null;
      if (periodN) {
        n = periodN.n;
        start = periodN.start;
      } else if (nFirst) {
        n = parseNumber(nFirst[1]);
        start = mention.start - before.length + nFirst.index + nFirst[0].search(/[nN]/);
      } else if (a && !names[other].mentions(after.slice(0, a.index + a[0].length)).length) {
        n = Number(a[1] ?? a[2] ?? a[3] ?? a[4]);
        end = mention.end + a[0].length;
      } else if (elliptic && ellipticOk) {
        n = Number(elliptic[1]);
        end = mention.end + elliptic[0].length;
      } else if (d && dOk && !names[other].mentions(before.slice(d.index)).length) {
        n = Number(d[1]);
        start = mention.start - before.length + d.index + d[0].indexOf(d[1]);
      } else {
        const b =
          /\b(\d+|[A-Za-z]+(?:-[a-z]+)?)\s+(?:[a-z]+\s+){0,3}?(?:were\s+(?:randomly\s+)?(?:randomi[sz]ed|assigned|allocated|fed|given|treated with)|randomi[sz]ed|received|randomly assigned|randomly allocated|were included)\s+(?:(?:to|with|in|into)\s+)?(?:the\s+)?(?:[a-z]+\s+){0,3}$/i.exec(
            before,
          );
        const c = b
          ? null
          : /\b(?:randomi[sz]ed|randomly assigned|assigned|allocated)\b[^.;]{0,80}?\band\s+(\d+|[A-Za-z]+(?:-[a-z]+)?)\s+(?:(?:patients|participants|subjects|children|women|men)\s+)?(?:to|into|in)\s+(?:the\s+)?(?:[a-z]+\s+){0,2}$/i.exec(
              wide,
            );
        if (c) {
          n = wordNumber(c[1]);
          if (n !== null && n < 5) n = null;
          start = mention.start - wide.length + c.index + c[0].lastIndexOf(c[1], c[0].length);
          if (n !== null && names[other].mentions(text.slice(start, mention.start)).length) n = null;
        }
        if (b) {
          n = wordNumber(b[1]);
          if (n !== null && n < 5) n = null;
          start = mention.start - before.length + b.index;
          if (n !== null && names[other].mentions(text.slice(start, mention.start)).length) n = null;
        }
      }
      if (n === null || n <= 0 || n > 100000) continue;
      if (excludedFromAnalysis(text, mention.end, names[arm])) continue;
      const entry = counts.get(n);
      if (entry) entry.count += 1;
      else counts.set(n, { count: 1, quote: { arm, field: "groupSize", text: text.slice(start, end), start, end } });
    }
    let best: SizeFact | null = null;
    let bestCount = 0;
    for (const [n, entry] of counts) {
      if (entry.count > bestCount) {
        best = { n, quote: entry.quote, origin: "text", distinct: counts.size, stated: [...counts.keys()] };
        bestCount = entry.count;
      }
    }
    out[arm] = best;
  }
  return out;
}

export interface ProseValue {
  start: number;
  end: number;
  stats: CellStats;
  /** "a ± b" read as an SD by convention: the sentence states no notation (round 15 report-se decides it). */
  unlabelled?: "pm";
}

/** What follows a confidence level's percentage: "95% CI", "95% confidence interval", "90% CrI", "95% PI", "95% UI". */
const CONFIDENCE_LEVEL =
  /^\s*(?:CIs?\b|C\.I\.|CrIs?\b|PIs?\b|UIs?\b|(?:confidence|credible|credibility|prediction|uncertainty|compatibility)\s+(?:intervals?|limits?|bounds?))/i;

/** A confidence level's percentage with what follows it ("95% CI", "90 % credible interval"), for removal. */
const CONFIDENCE_LEVEL_PERCENT = new RegExp(
  String.raw`\b\d{2}(?:\.\d)?\s*%(?=${CONFIDENCE_LEVEL.source.slice(1)})`,
  "gi",
);

/**
 * What follows an event rate's percentage: "6.5% per year", "4.8%/yr", "2.1% per 100 patient-years", "1.2% per
 * month". A rate per unit of time is not the share of the arm's n who had the event (round 19).
 */
const RATE_PER_TIME =
  /^\s*(?:per\s+(?:(?:\d+\s+)?(?:person|patient|participant|subject|woman|man|child)[-\s]?(?:years?|months?|weeks?|days?)|years?|annum|months?|weeks?|days?|yr)|\/\s*(?:years?|yrs?|months?|mo|weeks?|wk|days?|d)\b|(?:a|each|every)\s+(?:years?|months?|weeks?|days?))\b/i;

/**
 * A signed decimal as the core's number reader accepts it in prose (point or middle dot; unicode minus); round 20: with
 * its thousands written with commas ("10,503", "2,237"), which `parseNumber` reads as one number.
 */
const P_NUM = String.raw`[-−–]?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+)(?:[.·]\d+)?`;
/** A whole number, its thousands written with commas or not ("2,237", "2237"); read with `parseNumber`. */
const P_INT = String.raw`(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+)`;
/** Round 22: a number a sentence states for a group, "2374 in the Coupler group" (`sentenceStatesOtherN`). */
const GROUP_STATED_NUMBER = new RegExp(
  String.raw`(?<![\w.,])(${P_INT})(?![.,]\d)\s+(?:[a-z-]+\s+){0,2}?in\s+the\s+(?:[\w-]+\s+){0,3}?(?:group|arm|cohort)s?\b`,
  "g",
);
/** An n a sentence states, "n = 9", "N=2,237" (round 21, `sentenceStatesOtherN`). */
const SENTENCE_N = new RegExp(String.raw`(?<![\w.,])[nN]\s*=\s*(${P_INT})(?![\d.,]\d)`, "g");
/**
 * A percentage's confidence interval written inside its parenthesis, after a comma or in brackets: ", 95% CI 43-53",
 * ", 35–46", "; 95% CI, 41.4% to 49.4%", " [CI, 41.4% to 49.4%]" (round 19).
 */
const PERCENT_CI = String.raw`(?:\s*(?:[,;]\s*\[?|\[)\s*(?:(?:9[059]\s*%\s*)?(?:CI|confidence interval)[\s:,]*)?${P_NUM}\s*%?\s*(?:[-–]|to)\s*${P_NUM}\s*%?\s*\]?)?`;

/** A confidence interval and its bounds: "95% CI 43-53", "CI, 41.4% to 49.4%", "95% confidence interval [CI], 0.52 to 1.05". */
const CI_SPAN = new RegExp(
  String.raw`\b(?:9[059]\s*%\s*)?(?:CI|CrI|confidence interval|credible interval)s?\b(?:\s*\[CI\])?[\s:,=]*[[(]?\s*${P_NUM}\s*%?\s*(?:to|[-–]|,)\s*${P_NUM}\s*%?`,
  "gi",
);

/** A unit written between a number and its spread: "g", "kg", "mm Hg", "mmol/L", "ng/mL", "%" (round 19). */
const UNIT = String.raw`(?:[a-zA-Zµμ]{1,5}(?:\s?Hg)?(?:\/[a-zA-Z0-9²]{1,5})?|%)`;

/**
 * A count with its group size and percentage as written ("Eighteen", "75", "24.0"): the count may be a number word;
 * null when it is no number or exceeds the group size.
 */
function countWithPercent(events: string, groupSize: string, percent: string): CellStats | null {
  const k = wordNumber(events);
  const n = parseNumber(groupSize);
  return k !== null && k <= n ? { kind: "count", events: k, groupSize: n, percent: parseNumber(percent) } : null;
}

/** "a (b)" in prose: a mean with its SD or SE only when the sentence says which. */
type ProseStats = CellStats | { kind: "ambiguous-pair"; mean: number; sd: number };

/** A prose pattern; `plusMinus` marks "a ± b", whose spread the sentence's notation decides (round 11 sentence-se). */
const PROSE_PATTERNS: { re: RegExp; read: (m: RegExpExecArray) => ProseStats | null; plusMinus?: true }[] = [
  {
    // Round 22: the percentage first, then its count after a comma ("(74%, 458 of 621)", "(66%; 428/650)").
    re: new RegExp(
      String.raw`(${P_NUM})\s*%\s*[,;]\s*(\d+|[A-Za-z]+(?:-[a-z]+)?)\s*(?:\/|\s(?:out\s+)?of\s+(?:the\s+)?)\s*(${P_INT})\b`,
      "g",
    ),
    read: (m) => countWithPercent(m[2], m[3], m[1]),
  },
  {
    // "45% (12/27)"; round 19: also "67% (36 of 54)"; round 22: with up to three words of what was counted after the n
    // ("57.2% (111 of 194 hard stop alerts)", "85.2% (785 of 921 eligible cases)").
    re: new RegExp(
      String.raw`(${P_NUM})\s*%\s*[([]\s*(\d+)\s*(?:\/|of)\s*(\d+)(?:\s+[A-Za-z][\w-]*){0,3}\s*[)\]]`,
      "g",
    ),
    read: (m) => ({ kind: "count", events: Number(m[2]), groupSize: Number(m[3]), percent: parseNumber(m[1]) }),
  },
  {
    // Not inside decimals: "129.7/76.6 mm Hg" is a blood pressure, not 7 of 76 (round 18).
    re: new RegExp(String.raw`(?<![.,·])\b(\d+)\s*\/\s*(\d+)(?![.,·]\d)(?:\s*[,(;[]\s*(${P_NUM})\s*%\s*[)\]]?)?`, "g"),
    read: (m) =>
      Number(m[1]) <= Number(m[2]) ? { kind: "count", events: Number(m[1]), groupSize: Number(m[2]) } : null,
  },
  {
    // "12 of 100 patients (12%)"; round 19: the percentage may carry its CI ("275 of 606 (45.4% [CI, 41.4% to 49.4%])").
    re: new RegExp(
      String.raw`\b(\d+|[A-Za-z]+(?:-[a-z]+)?)\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?(${P_INT})(?:\s+(?:patients|participants|subjects|children|infants|women|men|people|persons|individuals))?\b(?:\s*[([]\s*(\d+(?:\.\d+)?)\s*%${PERCENT_CI}\s*[)\]])?`,
      "g",
    ),
    read: (m) => {
      const events = wordNumber(m[1]);
      if (events === null && !/^(no|none)$/i.test(m[1])) return null;
      const k = events ?? 0;
      return k <= parseNumber(m[2]) ? { kind: "count", events: k, groupSize: parseNumber(m[2]) } : null;
    },
  },
  {
    // "172 (48%) of 358"; round 19: also with the percentage's CI inside ("172 (48%, 95% CI 43-53) of 358").
    re: new RegExp(
      String.raw`\b(\d+|[A-Za-z]+(?:-[a-z]+)?)\s*[([]\s*(${P_NUM})\s*%${PERCENT_CI}\s*[)\]]\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?(${P_INT})\b`,
      "g",
    ),
    // Round 22: the count may be a number word ("Eighteen (24.0 per cent) of the 75").
    read: (m) => countWithPercent(m[1], m[3], m[2]),
  },
  {
    // Round 19: the count may be a number word ("nine [4%]").
    re: new RegExp(
      String.raw`\b(\d+|[A-Za-z]+(?:-[a-z]+)?)\s*(?:patients|participants|subjects|cases|children|women|men)?\s*[([]\s*(${P_NUM})\s*%\s*[)\]]`,
      "g",
    ),
    read: (m) => {
      const events = wordNumber(m[1]);
      return events === null
        ? null
        : { kind: "count", events, percent: parseNumber(m[2]), percentDecimals: decimalsOf(m[2]) };
    },
  },
  {
    // Round 20: also with its unit, a percent sign, after each number ("7% +/- 11%").
    re: new RegExp(String.raw`(${P_NUM})\s*%?\s*(?:±|\+\/-|\+\/−)\s*(${P_NUM})(?:\s*%(?=\W|$))?`, "g"),
    read: (m) => ({ kind: "continuous", mean: parseNumber(m[1]), sd: parseNumber(m[2]) }),
    plusMinus: true,
  },
  {
    // "5.2 (SD 1.1)"; round 19: also with the unit written after the mean and the SD ("3140 g (SD 600 g)").
    re: new RegExp(
      String.raw`(${P_NUM})\s*(?:${UNIT}\s*)?\(\s*(?:SD|s\.d\.)\s*[=:,]?\s*(${P_NUM})\s*(?:${UNIT}\s*)?\)`,
      "g",
    ),
    read: (m) => ({ kind: "continuous", mean: parseNumber(m[1]), sd: parseNumber(m[2]) }),
  },
  {
    re: new RegExp(
      String.raw`\bmean\s*(?:[=:]\s*)?(${P_NUM})\s*(?:[a-zA-Z/%]+\s*)?[,;(]\s*(?:SD|s\.d\.|standard deviation)\s*[=:]?\s*(${P_NUM})\)?`,
      "gi",
    ),
    read: (m) => ({ kind: "continuous", mean: parseNumber(m[1]), sd: parseNumber(m[2]) }),
  },
  {
    re: new RegExp(String.raw`(${P_NUM})\s*[([]\s*(?:SE|SEM|s\.e\.)\s*[=:,]?\s*(${P_NUM})\s*[)\]]`, "g"),
    read: (m) => ({ kind: "continuous", mean: parseNumber(m[1]), se: parseNumber(m[2]) }),
  },
  {
    // Round 22: also in square brackets inside a parenthesis ("(5.62 [0.16] vs 6.15 [0.16]", JAMA style).
    re: new RegExp(String.raw`(?<![\d.])(${P_NUM})\s*(?:\(\s*(\d+(?:\.\d+)?)\s*\)|\[\s*(\d+(?:\.\d+)?)\s*\])`, "g"),
    read: (m) => ({ kind: "ambiguous-pair", mean: parseNumber(m[1]), sd: parseNumber(m[2] ?? m[3]) }),
  },
  {
    // Round 20: a list's one percent sign after its last number makes every number of it a percentage ("13.2 and 15.0%").
    re: new RegExp(
      String.raw`(?<![\d.,·%])(${P_NUM})(?=(?:\s*,\s*${P_NUM})*\s*,?\s*(?:and|or|vs\.?|versus)\s*${P_NUM}\s*%)`,
      "g",
    ),
    read: (m) => ({ kind: "count", percent: parseNumber(m[1]), percentDecimals: decimalsOf(m[1]) }),
  },
  {
    re: new RegExp(String.raw`(?<![\d.])(${P_NUM})\s*%`, "g"),
    read: (m) => ({ kind: "count", percent: parseNumber(m[1]), percentDecimals: decimalsOf(m[1]) }),
  },
];

/**
 * Round 11 (sentence-se): the sentence states its notation as the standard error: "SE"/"SEM" as a word in capitals
 * (not "per se"; not "SEM images", scanning electron microscopy), "s.e."/"s.e.m.", "standard error", or a lower-case
 * "mean ± se(m)" / "mean (se)".
 */
const SENTENCE_SE = /\bSEM?s?\b(?!\s+(?:images?|micrographs?|microscop))/;
const SENTENCE_SE_ANY_CASE =
  /\bs\.\s?e\.|\bstandard\s+errors?\b|\bmeans?\s*(?:±|\+\/-|\+\/−|\(|\[|with|and)\s*sem?\b(?!\s+(?:images?|micrographs?|microscop))/i;

/** True when a prose sentence states its own notation as the standard error (round 11 sentence-se). */
export function sentenceStatesSe(sentence: string): boolean {
  return SENTENCE_SE.test(sentence) || SENTENCE_SE_ANY_CASE.test(sentence);
}

/**
 * Arm-level values written in a prose sentence, in text order, with offsets into `sentence`:
 * counts ("12/100", "12 of 100 patients", "90 [8%] of 1088", "45 (37.5%)"), means with their SD or
 * SE ("5.2 ± 1.1", "5.2 (SD 1.1)", "5.2 (SE 0.4)"); "a (b)" only when the sentence's hints say which. Values right
 * after a CI, p or an effect measure are not arm data.
 *
 * With `sentenceSe` (round 11's correction, default on; docs/methods/arm-extraction.md "Round 11"): the sentence's own
 * notation decides the spread of "a ± b" and "a (b)": SE when it states SE (`sentenceStatesSe`), SD otherwise
 * ("± " by convention) or when it states SD; no such value when it states both. A number with its own label keeps it.
 * Off (bench only): "±" is always an SD, "a (b)" follows `sentenceHints`, and an explicit SE in a sentence that also
 * mentions SD is read as an SD (the behaviour before round 11).
 */
export function proseValues(
  written: string,
  sentenceHints: Hints,
  options: { sentenceSe?: boolean; bareMeans?: boolean } = {},
): ProseValue[] {
  const taken: ProseValue[] = [];
  // Round 22: "24.0 per cent", "12 percent" are read as "24.0%", "12%" (British and older journals): the word is
  // replaced by spaces and a percent sign of its length, so every offset, and each quote, stays the sentence's.
  const sentence = written.replace(
    /(\d)(\s?(?:per\s?cent|percent)\b)/gi,
    (_, d: string, word: string) => `${d}${" ".repeat(word.length - 1)}%`,
  );
  // Round 19: the bounds of a confidence interval ("[CI, 41.4% to 49.4%]") are not arm data; a value may hold a whole
  // interval ("172 (48%, 95% CI 43-53) of 358") but not part of one.
  const intervals = [...sentence.matchAll(CI_SPAN)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const corrected = options.sentenceSe ?? CORRECTIONS_ON.includes("sentence-se");
  const statesSe = corrected ? sentenceStatesSe(sentence) : sentenceHints.se;
  const bothSpreads = corrected && statesSe && sentenceHints.meanSd;
  // Round 22: a confidence level's percent sign ("95% confidence interval") is no count hint: "a (b)" is still read.
  const countsOutsideCi = sentenceHints.count && hintsOf(sentence.replace(CONFIDENCE_LEVEL_PERCENT, "")).count;
  for (const pattern of PROSE_PATTERNS) {
    pattern.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = pattern.re.exec(sentence))) {
      const start = m.index;
      const end = m.index + m[0].length;
      if (taken.some((v) => start < v.end && end > v.start)) continue;
      // Round 20: a value never starts inside a number ("503 ± 7389" of "10,503 ± 7389").
      if (/(?:\d|\d[,.·])$/.test(sentence.slice(Math.max(0, start - 2), start))) continue;
      if (intervals.some((ci) => start < ci.end && end > ci.start && !(start <= ci.start && end >= ci.end))) continue;
      const before = sentence.slice(Math.max(0, start - 25), start);
      if (
        /(95\s*%\s*CI|confidence interval|p\s*[=<>]|OR|RR|HR|odds ratio|risk ratio|difference)[\s:,=]*\(?$/i.test(
          before,
        )
      )
        continue;
      // Round 19: a design figure ("equivalence margins of 13%", "a power of 90%") is not arm data.
      if (/\b(?:margins?|power|significance level)\s+(?:of|was|is|=)\s*$/i.test(before)) continue;
      let stats = pattern.read(m);
      if (!stats) continue;
      // "95% CI", "90% credible interval": a confidence level, not a group's percentage (round 18).
      if (stats.kind === "count" && stats.events === undefined && CONFIDENCE_LEVEL.test(sentence.slice(end, end + 30)))
        continue;
      // "a decrease of 10% or more", "at least 50%": a threshold that defines the outcome, not a group's share (round 20).
      if (
        stats.kind === "count" &&
        stats.events === undefined &&
        (THRESHOLD_AFTER.test(sentence.slice(end, end + 20)) || isThresholdBefore(before))
      )
        continue;
      // "6.5% per year": an event rate per unit of time, not a group's percentage (round 19).
      if (stats.kind === "count" && stats.events === undefined && RATE_PER_TIME.test(sentence.slice(end, end + 40)))
        continue;
      if (stats.kind === "ambiguous-pair") {
        if (sentenceHints.median || countsOutsideCi || bothSpreads) continue;
        if (statesSe && !sentenceHints.meanSd) stats = { kind: "continuous", mean: stats.mean, se: stats.sd };
        else if (sentenceHints.meanSd) stats = { kind: "continuous", mean: stats.mean, sd: stats.sd };
        else continue;
      } else if (corrected && pattern.plusMinus && stats.kind === "continuous") {
        // "a ± b": an SD by convention, an SE when the sentence says so, nothing when it names both spreads.
        if (bothSpreads) continue;
        if (statesSe) stats = { kind: "continuous", mean: stats.mean, se: stats.sd };
        else if (!sentenceHints.meanSd && !sentenceHints.ci) {
          taken.push(detachedSign(sentence, { start, end, stats, unlabelled: "pm" }));
          continue;
        }
      }
      if (!corrected && stats.kind === "continuous" && stats.se !== undefined && sentenceHints.meanSd)
        stats = { kind: "continuous", mean: stats.mean, sd: stats.se };
      taken.push(detachedSign(sentence, { start, end, stats }));
    }
  }
  if (
    (options.bareMeans ?? RECALL_RULES_ON.includes("bare-means")) &&
    !taken.some((v) => v.stats.kind === "continuous")
  )
    taken.push(...bareMeanValues(sentence, taken));
  return withoutOwnPercents(
    sentence,
    taken.sort((a, b) => a.start - b.start),
  );
}

/** The words between a count and its own percentage: "control patients (", " possible cases (", " (". */
const TO_OWN_PERCENT = /^(?:\s+[A-Za-z][\w-]*){0,3}\s*[([]\s*$/;

/**
 * Round 24: a count's own percentage written a few words after it ("186 of 205 control patients (91%)", "92/96
 * possible cases (95.8%)") is part of the count, not another value: it is dropped when the count's events over its n
 * round to it at its decimals. `values` in sentence order; returns them without such percentages.
 */
function withoutOwnPercents(sentence: string, values: ProseValue[]): ProseValue[] {
  const own = new Set<ProseValue>();
  for (let k = 0; k + 1 < values.length; k += 1) {
    const count = values[k].stats;
    const next = values[k + 1];
    const p = next.stats;
    if (count.kind !== "count" || count.events === undefined || !count.groupSize || count.percent !== undefined)
      continue;
    if (p.kind !== "count" || p.events !== undefined || p.percent === undefined) continue;
    if (!TO_OWN_PERCENT.test(sentence.slice(values[k].end, next.start))) continue;
    const decimals = p.percentDecimals ?? 0;
    if (Number(((100 * count.events) / count.groupSize).toFixed(decimals)) === p.percent) own.add(next);
  }
  return own.size ? values.filter((v) => !own.has(v)) : values;
}

/** A minus sign set apart from its number, after a bracket, a list's comma or colon, or "vs": "(− 2.16)", "− 3.09 vs − 3.05". */
const DETACHED_MINUS = /(?:^|[([,:;]|\bvs\.?|\bversus)\s?[-−–]\s$/i;

/**
 * Round 24: a mean whose minus sign is set apart by a space ("(- 2.90 [0.12], n = 148)", "(− 2.16)", typeset so in
 * some journals and abstracts) is negative: `value` with its mean negated and its quote widened to the sign. Values
 * of other kinds, and signs after a number or word (a range "1.2 - 2.9", a subtraction), are returned unchanged.
 */
function detachedSign(sentence: string, value: ProseValue): ProseValue {
  const { stats } = value;
  if (stats.kind !== "continuous" || stats.mean === undefined || stats.mean < 0) return value;
  if (!DETACHED_MINUS.test(sentence.slice(Math.max(0, value.start - 12), value.start))) return value;
  // The sign is the character before the space that ends the slice.
  return { ...value, start: value.start - 2, stats: { ...stats, mean: -stats.mean } };
}

/** A sentence stating a mean ("the mean DAS28", "a mean reduction of", "averaged"), not a median or a geometric mean. */
const STATES_MEAN = /\b(?:means?|averaged?)\b/i;
const STATES_OTHER_CENTRE = /\b(?:medians?|geometric\s+means?|IQR|interquartile|modes?)\b/i;
/** Words before a number that make it a time, a label, a dose or a test statistic, not an arm's value. */
const BARE_NOT_AFTER =
  /(?:\b(?:weeks?|wks?|months?|days?|years?|hours?|visits?|doses?|grades?|stages?|phases?|cycles?|sessions?|aged?|versions?|types?|class|groups?|arms?|cohorts?|steps?|levels?|trials?|studies|figure|fig\.?|table|n|p|OR|RR|HR|ratio|difference|ICC|kappa|r|t|F|z|df|χ2|chi2)\s*|[=<>≤≥/^×]\s*|\d\s*:\s*|\b(?:to|from)\s+|[-–]\s*)$/i;
/** What follows a number that makes it a percentage, a range, a dose, a count of people or a duration of follow-up. */
const BARE_NOT_BEFORE =
  /^(?:\s*(?:%|percent|[-–]\s*[-−]?\d|to\s+[-−]?\d|-fold|\s*fold|×|times\b)|[.,·]\d|\s*(?:mg|µg|μg|mcg|g|IU|mL|ml)\s*\/\s*(?:kg|m2|m²|day|d)\b|\s*(?:mg|µg|μg|mcg)\b(?!\s*\/))/i;
const BARE_TIME_AFTER = /^\s*(?:weeks?|wks?|months?|mos?|days?|years?|yrs?)\b/i;
const BARE_TIME_BEFORE =
  /\b(?:at|after|for|over|within|by|during|until|through|every|per|each|first|last|past|next|up to)\s*$/i;
const BARE_PEOPLE_AFTER =
  /^\s*(?:patients|participants|subjects|people|persons|women|men|children|infants|individuals|cases|mice|rats|animals|pups|eyes|teeth)\b/i;

/**
 * Round 22 (recall rule "bare-means", docs/methods/arm-extraction.md "Round 22"): the bare numbers of a sentence that
 * states a mean and gives no spread ("The mean DAS28 (ESR) at Week 134 was 3.166 in the maintenance group and 3.955
 * in the switch group", "a mean reduction of 10.32 in SPARX and 7.59 in treatment as usual"), each read as a mean
 * without SD or SE (issue 26 item 4 derives no SD from nothing). Not read: a sentence naming a median, a geometric
 * mean or an IQR; numbers inside another value (`taken`), a confidence interval or a range, or after a p, n,
 * effect measure or comparison sign; times ("Week 134", "at 12 months"), labels ("group 2"), doses ("500 mg/kg"),
 * percentages and whole numbers of people ("12 patients"). Offsets into `sentence`, in text order.
 */
function bareMeanValues(sentence: string, taken: readonly ProseValue[]): ProseValue[] {
  const mean = STATES_MEAN.exec(sentence);
  if (!mean || STATES_OTHER_CENTRE.test(sentence)) return [];
  const intervals = [...sentence.matchAll(CI_SPAN)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const out: ProseValue[] = [];
  for (const m of sentence.matchAll(new RegExp(String.raw`(?<![\w.,·%/])${P_NUM}(?![\w%])`, "g"))) {
    const start = m.index;
    const end = start + m[0].length;
    if (start < mean.index) continue;
    if ([...taken, ...intervals].some((v) => start < v.end && end > v.start)) continue;
    const before = sentence.slice(Math.max(0, start - 30), start);
    const after = sentence.slice(end, end + 30);
    if (BARE_NOT_AFTER.test(before) || BARE_NOT_BEFORE.test(after)) continue;
    if (BARE_TIME_AFTER.test(after) && BARE_TIME_BEFORE.test(before)) continue;
    if (/^[-−–]?\d+$/.test(m[0]) && BARE_PEOPLE_AFTER.test(after)) continue;
    if (
      /(95\s*%\s*CI|confidence interval|p\s*[=<>]|odds ratio|risk ratio|hazard ratio|difference)[\s:,=]*\(?$/i.test(
        before,
      )
    )
      continue;
    out.push({ start, end, stats: { kind: "continuous", mean: parseNumber(m[0]) } });
  }
  return out;
}

const ZERO =
  /\b(no (?:cases?|episodes?|events?|patients?|participants?|subjects?|instances?|occurrences?) of|no (?:patients?|participants?|subjects?|one) (?:in|from|of) the|none of the (?:patients|participants|subjects))\b/i;

/** Candidates from sentences that name the outcome and both arms (or list values "respectively"). */
function proseCandidates(
  report: TrialReport,
  names: Record<ArmKey, ArmName>,
  outcome: Outcome,
  corrections: ReadonlySet<CorrectionName> = new Set(CORRECTIONS_ON),
  recallRules: ReadonlySet<RecallRuleName> = new Set(RECALL_RULES_ON),
): Candidate[] {
  const out: Candidate[] = [];
  const text = report.text;
  // The document's one shared sentence list (split once per document, whatever the question).
  for (const span of documentSentences(report)) {
    const sentence = text.slice(span.start, span.end);
    if (!/\d|\bno\b|\bnone\b/i.test(sentence)) continue;
    // A sentence about the groups at baseline describes them before treatment, not the outcome.
    const score =
      outcomeScore(outcome, sentence, false) *
      (!outcome.baseline &&
      /\b(at|from|before) baseline\b|\bbaseline (values?|characteristics|scores?|levels?)\b/i.test(sentence) &&
      !CHANGE.test(sentence)
        ? 0.7
        : 1);
    if (score < 0.5) continue;
    const hints = hintsOf(sentence);
    const values = afterValues(
      sentence,
      proseValues(sentence, hints, {
        sentenceSe: corrections.has("sentence-se"),
        bareMeans: recallRules.has("bare-means"),
      }),
      outcome.baseline,
    );
    const mentions = {
      intervention: names.intervention.mentions(sentence),
      comparator: names.comparator.mentions(sentence),
    };
    const armScore = Math.min(names.intervention.score(sentence), names.comparator.score(sentence));
    const assigned = assignProse(sentence, values, mentions, names, outcome.typeGuess);
    const zero = ZERO.exec(sentence);
    if (!assigned && zero) {
      for (const arm of ARMS) {
        const near = mentions[arm].find((mm) => mm.start > zero.index && mm.start - zero.index < 120);
        const other = arm === "intervention" ? "comparator" : "intervention";
        if (near && !mentions[other].some((mm) => mm.start > zero.index && mm.start < near.start)) {
          const otherValues = values.filter((v) => v.stats.kind === "count");
          if (otherValues.length === 1) {
            const zeroStats: CellStats = { kind: "count", events: 0 };
            const pieces = {
              [arm]: { stats: zeroStats, start: zero.index, end: near.end },
              [other]: otherValues[0],
            } as Record<ArmKey, ProseValue>;
            out.push(
              proseCandidate(
                pieces,
                span.start,
                text,
                clauseScore(outcome, sentence, pieces, score),
                sentence,
                armScore,
              ),
            );
          }
        }
      }
    }
    if (assigned)
      out.push(
        proseCandidate(assigned, span.start, text, clauseScore(outcome, sentence, assigned, score), sentence, armScore),
      );
    else if (!zero) {
      const paired =
        trailerPair(sentence, values, mentions, outcome) ??
        clausePairs(sentence, values, mentions, outcome) ??
        leaderPair(sentence, values, mentions, outcome);
      if (paired)
        out.push(proseCandidate(paired.pieces, span.start, text, Math.min(score, paired.score), sentence, armScore));
    }
  }
  return out;
}

/** The words between an arm's value before and after treatment: "2.6 ± 0.5 to 1.6 ± 0.7", "28% (17/60) to 57% (26/46)". */
const BEFORE_TO_AFTER = /^\s*to\s*$/i;

/**
 * Round 20: a sentence giving each arm's value before and after treatment ("a reduction in asthma severity in the
 * intervention group, 2.6 ± 0.5 to 1.6 ± 0.7 (mean ± SD) versus the control group, 2.3 ± 0.7 to 2.4 ± 0.5"). When
 * every value of a kind comes in such a pair (two values of that kind joined by "to" alone), each pair is one arm's:
 * the value after "to" for an outcome question, the one before it for a baseline question; the other is set aside,
 * so the arms are read from one value each. Values in no such pair are kept as they are; `values` in sentence order.
 */
function afterValues(sentence: string, values: ProseValue[], baseline: boolean): ProseValue[] {
  const dropped = new Set<ProseValue>();
  for (const kind of ["count", "continuous"] as const) {
    const vs = values.filter((v) => v.stats.kind === kind);
    if (vs.length < 4 || vs.length % 2 !== 0) continue;
    let paired = true;
    for (let k = 0; k < vs.length && paired; k += 2)
      paired =
        BEFORE_TO_AFTER.test(sentence.slice(vs[k].end, vs[k + 1].start)) &&
        !values.some((v) => v.start >= vs[k].end && v.end <= vs[k + 1].start);
    if (!paired) continue;
    for (let k = 0; k < vs.length; k += 2) dropped.add(baseline ? vs[k + 1] : vs[k]);
  }
  return dropped.size ? values.filter((v) => !dropped.has(v)) : values;
}

/** "a vs b" between two values of one outcome. */
const VS_BETWEEN = /^[\s,;%)\]]*(?:vs\.?|versus|v\.?|compared with|compared to)[\s([]*$/i;
/**
 * "… for A vs B", "… with A versus B": the arms named once, after every value, in the values' order (a dose or number
 * may end A's name); round 24: "between those who switched to A and those who continued B" (who was in the arm).
 */
const VS_ARMS =
  /^(?:\s+[\w.-]{1,8})?\s*(?:vs\.?|versus|v\.?|and|compared with|compared to)(?:\s+the)?(?:\s+(?:those|patients|participants|subjects|people)(?:\s+(?:who|that|in|on|receiving|treated with))?)?\s*$/i;

/**
 * Round 18: a sentence listing several outcomes' values in pairs and naming the arms once, after them ("Adverse events
 * (67.2% [117/174] vs 63.6% [110/173]) and antidrug antibody incidence (55.2% [96/174] vs 63.6% [110/173]) for ABP 501
 * vs adalimumab"). Each pair is joined by "vs"; both arms are named only after the last value, the one right after the
 * other ("A vs B", "A and B"), which gives each pair's order. The question's pair is the one whose own words (from the
 * previous pair to it) name the outcome best, when one does; its outcome match is those words'. Null otherwise.
 */
function trailerPair(
  sentence: string,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
  outcome: Outcome,
): PairReading | null {
  return pairsOfArmsNamedOnce(sentence, values, mentions, outcome, "after");
}

/**
 * Round 22: the mirror of trailerPair: the arms named once, one right after the other, before every value ("the
 * intervention group compared with the usual care group at 12 months had lower mean (SE) scores for pain intensity
 * (5.62 [0.16] vs 6.15 [0.16]; …), interference … (4.40 [0.18] vs 4.99 [0.17]; …)"). Each pair is joined by "vs" and
 * keeps the order the arms were named in; no arm is named after the first value, and "Compared with B, A …" (a comma
 * between the names) is not such a list. The question's pair is chosen as in trailerPair (bestPair). Null otherwise.
 */
function leaderPair(
  sentence: string,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
  outcome: Outcome,
): PairReading | null {
  return /\brespectively\b/i.test(sentence)
    ? null
    : pairsOfArmsNamedOnce(sentence, values, mentions, outcome, "before");
}

/**
 * Pairs of values joined by "vs" whose arms are named only `side` every value, once each, one right after the other
 * ("A vs B", "A compared with B"), which gives each pair's order: the question's pair (bestPair) or null.
 */
function pairsOfArmsNamedOnce(
  sentence: string,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
  outcome: Outcome,
  side: "before" | "after",
): PairReading | null {
  const vs = pairedValues(values, outcome);
  if (!vs) return null;
  const i = mentions.intervention;
  const c = mentions.comparator;
  const outside =
    side === "after"
      ? (m: { start: number }) => m.start >= vs[vs.length - 1].end
      : (m: { end: number }) => m.end <= vs[0].start;
  if (!i.length || !c.length || ![...i, ...c].every(outside)) return null;
  // The first-named arm's words all come before the other's: "ABP 501 vs adalimumab".
  const interventionFirst = i[i.length - 1].end <= c[0].start;
  if (!interventionFirst && c[c.length - 1].end > i[0].start) return null;
  const between = interventionFirst
    ? sentence.slice(i[i.length - 1].end, c[0].start)
    : sentence.slice(c[c.length - 1].end, i[0].start);
  if (!VS_ARMS.test(between)) return null;
  for (let k = 0; k < vs.length; k += 2) if (!VS_BETWEEN.test(sentence.slice(vs[k].end, vs[k + 1].start))) return null;
  return bestPair(outcome, sentence, vs, interventionFirst);
}

/** One pair of a list of value pairs, assigned to the arms, with the outcome match of its own words. */
type PairReading = { pieces: Record<ArmKey, ProseValue>; score: number };

/** The values of a list of pairs: four or more of the outcome's kind, an even number, and no value of another kind. */
function pairedValues(values: ProseValue[], outcome: Outcome): ProseValue[] | null {
  // Round 22: an outcome of no known type takes the kind of the values, when they are all of one kind.
  const kind =
    outcome.typeGuess === "continuous" ||
    (outcome.typeGuess === "unknown" && values.length > 0 && values.every((v) => v.stats.kind === "continuous"))
      ? "continuous"
      : "count";
  const vs = values.filter((v) => v.stats.kind === kind);
  return vs.length < 4 || vs.length % 2 !== 0 || values.length !== vs.length ? null : vs;
}

/**
 * Of values in pairs (`vs`: pair k is vs[2k], vs[2k+1]), the pair whose own words (from the previous pair to it) name
 * the outcome best, when exactly one does at 0.5 or more, with those words' outcome match; each pair in the arms'
 * order (`interventionFirst`). Null otherwise. Shared by trailerPair and clausePairs.
 */
function bestPair(
  outcome: Outcome,
  sentence: string,
  vs: ProseValue[],
  interventionFirst: boolean,
): PairReading | null {
  const scores: number[] = [];
  for (let k = 0; k < vs.length; k += 2)
    scores.push(outcomeScore(outcome, sentence.slice(k === 0 ? 0 : vs[k - 1].end, vs[k].start), false));
  const best = Math.max(...scores);
  if (best < 0.5 || scores.filter((x) => x === best).length !== 1) return null;
  const k = 2 * scores.indexOf(best);
  const pieces = interventionFirst
    ? { intervention: vs[k], comparator: vs[k + 1] }
    : { intervention: vs[k + 1], comparator: vs[k] };
  return { pieces, score: best };
}

/**
 * Round 19: a sentence giving several outcomes, one clause each, separated by semicolons, the arms named only in the
 * first ("… (for serious adverse events, 24 [10%] for A vs 21 [9%] for B; for overall adverse events, 168 [70%] vs
 * 164 [68%]; and for adverse events leading to discontinuation, nine [4%] vs eight [3%], respectively)"). Each clause
 * holds one pair joined by "vs"; the first clause names each arm once, the first-named arm with the first value, and
 * no later clause names an arm, so every pair keeps the first one's order. The question's pair is the one whose
 * clause (from the previous pair to it) names the outcome best, when one does; its outcome match is those words'.
 * Null otherwise.
 */
function clausePairs(
  sentence: string,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
  outcome: Outcome,
): PairReading | null {
  const vs = pairedValues(values, outcome);
  if (!vs) return null;
  // One name written as several mentions ("infliximab" "originator") is one mention.
  const joined = (ms: { start: number; end: number }[]) =>
    ms.reduce<{ start: number; end: number }[]>((acc, m) => {
      const prev = acc[acc.length - 1];
      if (prev && /^\s*$/.test(sentence.slice(prev.end, m.start))) prev.end = m.end;
      else acc.push({ ...m });
      return acc;
    }, []);
  const i = joined(mentions.intervention);
  const c = joined(mentions.comparator);
  if (i.length !== 1 || c.length !== 1) return null;
  const firstClauseEnd = vs[2].start;
  const [first, second] = i[0].start < c[0].start ? [i[0], c[0]] : [c[0], i[0]];
  // First arm named before the second value, the second arm after the first value; both within the first clause.
  if (!(first.end <= vs[1].start && second.start >= vs[0].end && second.end <= firstClauseEnd)) return null;
  if (sentence.slice(vs[0].end, vs[1].start).includes(";")) return null;
  for (let k = 2; k < vs.length; k += 2) {
    if (!sentence.slice(vs[k - 1].end, vs[k].start).includes(";")) return null;
    if (!VS_BETWEEN.test(sentence.slice(vs[k].end, vs[k + 1].start))) return null;
  }
  return bestPair(outcome, sentence, vs, first === i[0]);
}

/** Round 23: a comparison's object right before an arm's name ("compared with control", "than the usual care group"). */
const COMPARISON_OBJECT =
  /\b(?:compared (?:with|to)|than|versus|vs\.?|relative to)\s+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,2}$/i;

/**
 * Round 23 (docs/methods/arm-extraction.md "Round 23"): whether the order of the arms' first mentions may decide which
 * of two untied values is whose. It may not when both values come before either arm is named ("a high acceptance of
 * 89% (89/100) and a 72% (64/89) retention rate … in a cohort … switched from OI to CT-P13 …, a historic cohort"), nor
 * when the arm named first is the object of a comparison and the other is not ("Trust rose compared with control …
 * for the group visit (8.8 (1.5) and 7.1 (2.2))"): a sentence gives its subject's value first. Found on the first
 * runs of the eighteenth and twentieth blind sets, where every wrong value came from such a sentence.
 */
function orderDecides(
  sentence: string,
  vs: ProseValue[],
  first: { start: number },
  second: { start: number },
): boolean {
  if (vs[vs.length - 1].end <= first.start) return false;
  const object = (at: number) => COMPARISON_OBJECT.test(sentence.slice(Math.max(0, at - 40), at));
  return !(object(first.start) && !object(second.start));
}

/**
 * The outcome match of the part of a sentence that holds its numbers: from the sentence start to 40
 * characters past the last value read ("108 patients in group I responded …, and there were differences
 * in pain relief" names response with its numbers, not pain relief). Never above the whole sentence's.
 */
function clauseScore(outcome: Outcome, sentence: string, pieces: Record<ArmKey, ProseValue>, whole: number): number {
  const end = Math.max(pieces.intervention.end, pieces.comparator.end) + 40;
  return Math.min(whole, outcomeScore(outcome, sentence.slice(0, end), false));
}

function proseCandidate(
  pieces: Record<ArmKey, ProseValue>,
  offset: number,
  text: string,
  score: number,
  sentence: string,
  armScore: number,
): Candidate {
  const arms = {} as Record<ArmKey, ArmData>;
  for (const arm of ARMS) {
    const v = pieces[arm];
    const start = offset + v.start;
    const end = offset + v.end;
    arms[arm] = {
      stats: v.stats,
      quote: { arm, field: v.stats.kind === "count" ? "events" : "mean", text: text.slice(start, end), start, end },
      quoteFields: [],
      groupSize: null,
      groupSizeQuote: null,
    };
  }
  const where = `the sentence "${clip(sentence, 200)}"`;
  return {
    score: score * 0.95,
    kind: pieces.intervention.stats.kind === "count" ? "count" : "continuous",
    arms,
    source: "prose",
    where,
    timeNote: "",
    armScore,
    sentence,
    labels: sentence,
    ...(ARMS.some((arm) => pieces[arm].unlabelled) ? { unlabelledSpread: "pm" as const } : {}),
  };
}

function assignProse(
  sentence: string,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
  names: Record<ArmKey, ArmName>,
  typeGuess: OutcomeType = "unknown",
): Record<ArmKey, ProseValue> | null {
  // Counts first for an event-type outcome: a sentence may also carry means of something else.
  const kinds: ("count" | "continuous")[] = typeGuess === "binary" ? ["count", "continuous"] : ["continuous", "count"];
  for (const kind of kinds) {
    const vs = values.filter((v) => v.stats.kind === kind);
    if (vs.length < 2) continue;
    const resp = /\brespectively\b/i.exec(sentence);
    // Round 24: values in a later clause of their own (after a ";" past the "respectively") are not the list's ("At
    // week 12, 67.0% and 61.1% … of patients receiving A (n=324) and B (n=321), respectively, achieved ACR20; at week
    // 24 …, 69.0% and 64.5%").
    const clauseEnd = resp ? sentence.indexOf(";", resp.index) : -1;
    const listed = clauseEnd < 0 ? vs : vs.filter((v) => v.end <= clauseEnd);
    if (resp && listed.length >= 2) {
      const listStart = listed[listed.length - 1].end;
      // Round 19: a "respectively" more than 100 characters past the last value ends another clause's list
      // ("… (risk difference …), with … equivalence margins of 13% and 1·318, respectively"), not the arms'.
      if (resp.index > listStart && resp.index - listStart <= RESPECTIVELY_REACH) {
        const listText = sentence
          .slice(listStart, resp.index)
          .replace(
            /^[\s,;:)]*(?:in|for|among|of)?\s*(?:the\s+)?(?:patients|participants|subjects|children|infants)?\s*(?:fed|given|receiving|treated with|in)?\s*/i,
            "",
          );
        const items = listText
          .split(/\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s+vs\.?\s+|\s+versus\s+/)
          .map((s) => s.trim())
          .filter(Boolean);
        if (items.length === listed.length) {
          const iIdx = bestItem(items, names.intervention, names.comparator);
          const cIdx = bestItem(items, names.comparator, names.intervention);
          if (iIdx !== null && cIdx !== null && iIdx !== cIdx)
            return { intervention: listed[iIdx], comparator: listed[cIdx] };
        }
        if (items.length > 0) continue;
      }
    }
    const iFirst = mentions.intervention[0];
    const cFirst = mentions.comparator[0];
    if (vs.length === 2 && !iFirst !== !cFirst) {
      const only = iFirst ?? cFirst;
      const between = sentence.slice(vs[0].end, vs[1].start);
      if (only.end <= vs[0].start && /^[\s,;%)]*(vs\.?|versus|compared with|compared to)[\s(]*$/i.test(between)) {
        return iFirst ? { intervention: vs[0], comparator: vs[1] } : { intervention: vs[1], comparator: vs[0] };
      }
    }
    if (!iFirst || !cFirst) continue;
    if (vs.length === 2) {
      const iBeforeC = iFirst.start < cFirst.start;
      const byOrder = iBeforeC
        ? { intervention: vs[0], comparator: vs[1] }
        : { intervention: vs[1], comparator: vs[0] };
      const ties = vs.map((v) => tiedArm(sentence, v, values, mentions));
      if (ties.includes("both")) return null;
      const [a, b] = ties as (ArmKey | null)[];
      if (a && b) return a === b ? null : ({ [a]: vs[0], [b]: vs[1] } as Record<ArmKey, ProseValue>);
      const one = a ? { arm: a, v: vs[0] } : b ? { arm: b, v: vs[1] } : null;
      if (one && byOrder[one.arm] !== one.v) return null;
      if (!one && !orderDecides(sentence, vs, iBeforeC ? iFirst : cFirst, iBeforeC ? cFirst : iFirst)) return null;
      return byOrder;
    }
    if (vs.length > 2) {
      // "A, v1; B, v2; C, v3": each question arm's value is the only one between its name and the next arm's name.
      const all = [
        ...mentions.intervention.map((m) => ({ ...m, arm: "intervention" as ArmKey })),
        ...mentions.comparator.map((m) => ({ ...m, arm: "comparator" as ArmKey })),
      ].sort((x, y) => x.start - y.start);
      const picked: Partial<Record<ArmKey, ProseValue>> = {};
      const order = listOrder(sentence, vs, all[0]);
      if (order === "ambiguous") return null;
      if (order === "value-first" || order === "value-led") {
        // Values in clauses of their own ("for X, a for A vs b for B; for Y, c vs d") are clausePairs' to read.
        if (vs.some((v, k) => k > 0 && sentence.slice(vs[k - 1].end, v.start).includes(";"))) return null;
        for (const [k, m] of all.entries()) {
          const from = all[k - 1]?.end ?? 0;
          const inside = vs.filter((v) => v.start >= from && v.end <= m.start);
          const last = inside[inside.length - 1];
          if (!last || !VALUE_TO_NAME.test(sentence.slice(last.end, m.start))) continue;
          // Round 24: other groups' items may come before ("95 (48.5%) of 196 patients in the reminder group, …, 214
          // (82.0%) of 261 in the outreach group"); the arm's value is the one its name follows, when every value
          // before it leads to a group of its own ("… in the reminder group").
          if ((inside.length > 1 || order === "value-led") && !looseListItem(sentence, inside)) continue;
          if (picked[m.arm] && picked[m.arm] !== last) return null;
          picked[m.arm] = last;
        }
        if (picked.intervention && picked.comparator && picked.intervention !== picked.comparator)
          return { intervention: picked.intervention, comparator: picked.comparator };
        continue;
      }
      for (const [k, m] of all.entries()) {
        const semicolon = sentence.indexOf(";", vs.find((v) => v.start >= m.end)?.end ?? m.end);
        const until = Math.min(all[k + 1]?.start ?? sentence.length, semicolon < 0 ? sentence.length : semicolon);
        const inside = vs.filter((v) => v.start >= m.end && v.end <= until);
        if (inside.length !== 1 || inside[0].start - m.end > 40) continue;
        if (picked[m.arm] && picked[m.arm] !== inside[0]) return null;
        picked[m.arm] = inside[0];
      }
      if (picked.intervention && picked.comparator && picked.intervention !== picked.comparator)
        return { intervention: picked.intervention, comparator: picked.comparator };
      // Round 24: a list that is name-first for one arm and value-first for another ("In the A group, v1 … compared
      // with v2 in the B group and v3 in the C group"): each arm's value is the one value its words tie to it.
      const tied = vs.map((v) => tiedArm(sentence, v, vs, mentions));
      if (tied.includes("both")) continue;
      const only = (arm: ArmKey) => (tied.filter((t) => t === arm).length === 1 ? vs[tied.indexOf(arm)] : null);
      const [i, c] = [only("intervention"), only("comparator")];
      if (i && c) return { intervention: i, comparator: c };
      continue;
    }
  }
  return null;
}

/** NAME_TO_VALUE without the opening bracket: "than in the control group (a vs b)" brackets both arms' values. */
const NAME_TIE = /^\s*(?:(?:group|arm|cohort)s?)?\s*[,:=]\s*$/i;

/**
 * Round 20: the arm a value is tied to by the words between them — "359 (16%) of 2,237 patients in the intervention
 * arm" (the value first, VALUE_TO_NAME) or "control group, 0.39 (1.99)" (the name first, NAME_TIE), with no other
 * value between. "both" when the value is tied one way to one arm and the other way to the other; null when it is
 * tied to none. A two-value sentence is read by these ties when they exist ("The AMT intervened on 359 … in the
 * intervention arm and 180 … in the control arm", the comparator's own words "antimicrobial management team" being
 * named first), and by the order of the arms' first mentions only when no value is tied.
 */
function tiedArm(
  sentence: string,
  v: ProseValue,
  values: ProseValue[],
  mentions: Record<ArmKey, { start: number; end: number }[]>,
): ArmKey | "both" | null {
  const free = (from: number, to: number) => !values.some((w) => w !== v && w.start >= from && w.end <= to);
  let after: { arm: ArmKey; start: number } | null = null;
  let before: { arm: ArmKey; end: number } | null = null;
  for (const arm of ARMS)
    for (const m of mentions[arm]) {
      if (m.start >= v.end && (!after || m.start < after.start)) after = { arm, start: m.start };
      if (m.end <= v.start && (!before || m.end > before.end)) before = { arm, end: m.end };
    }
  let valueFirst =
    after && free(v.end, after.start) && VALUE_TO_NAME.test(sentence.slice(v.end, after.start)) ? after.arm : null;
  // Round 22: a few words of who was counted may come between ("18 (24.0%) of the 75 CDT clients in the intervention
  // arm"), even when they name an arm themselves; the tie is then to the arm named after the preposition.
  if (!valueFirst && after) {
    const later = ARMS.flatMap((arm) => mentions[arm].map((m) => ({ arm, start: m.start })))
      .filter((m) => m.start > after.start && free(v.end, m.start))
      .sort((x, y) => x.start - y.start);
    const tied = later.find((m) => VALUE_TO_NAME_WORDS.test(sentence.slice(v.end, m.start)));
    if (tied) valueFirst = tied.arm;
  }
  const nameFirst =
    before && free(before.end, v.start) && NAME_TIE.test(sentence.slice(before.end, v.start)) ? before.arm : null;
  if (valueFirst && nameFirst && valueFirst !== nameFirst) return "both";
  return valueFirst ?? nameFirst;
}

/** The words that lead from a value to a group's name: "in (the)", "at", "receiving", "randomised to", … */
const TO_GROUP = String.raw`(?:in|for|on|at|receiving|continuing|taking|assigned to|allocated to|randomi[sz]ed to|treated with|given)\s+(?:the\s+)?`;
/** TO_GROUP ending right at the arm's name. */
const TO_ARM = String.raw`${TO_GROUP}$`;
/** What may follow a value before those words: a closing bracket, "of (the)" and who was counted ("of patients"). */
const VALUE_LEAD = String.raw`^[\s)\]]*(?:of\s+(?:the\s+)?)?(?:patients|participants|subjects|women|men|children|people)?\s*`;
/** The words from a value to the arm it belongs to, when the value comes first: "… of 54) of patients in the", " continuing ". */
const VALUE_TO_NAME = new RegExp(String.raw`${VALUE_LEAD}(?:with\s+(?:the\s+)?$|${TO_ARM})`, "i");
/**
 * Round 24: whether the last of `inside` (the values before an arm's name, in order) can be read as that arm's item
 * of a loosely read value-first list: every value before it leads to a group of its own (VALUE_TO_GROUP), and it
 * states its own n ("214 (82.0%) of 261"), so that its percentage checks it.
 */
function looseListItem(sentence: string, inside: ProseValue[]): boolean {
  const last = inside[inside.length - 1].stats;
  return (
    last.kind === "count" &&
    last.events !== undefined &&
    last.groupSize !== undefined &&
    inside.every((v, j) => j === inside.length - 1 || VALUE_TO_GROUP.test(sentence.slice(v.end, inside[j + 1].start)))
  );
}

/**
 * Round 24: the words from a value to another group's name in a value-first list, up to the next item: " of 196
 * patients in the electronic medical record reminder group, ", " in the FSE group, and ".
 */
const VALUE_TO_GROUP = new RegExp(
  String.raw`${VALUE_LEAD}${TO_GROUP}[^,;()]{1,60}?\b(?:group|arm|cohort)s?\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+(?:compared with|versus|vs\.?)\s+)$`,
  "i",
);
/**
 * Round 22: VALUE_TO_NAME with one to four words of who or what was counted before the preposition (" CDT clients in
 * the ", " observed hand hygiene events at ").
 */
const VALUE_TO_NAME_WORDS = new RegExp(
  String.raw`^[\s)\]]*(?:of\s+(?:the\s+)?)?(?:[A-Za-z][\w-]*\s+){1,4}${TO_ARM}`,
  "i",
);
/** The words from an arm's name to its value, when the name comes first: ", ", ": ", " group, ", " arm (". */
const NAME_TO_VALUE = /^\s*(?:(?:group|arm|cohort)s?)?\s*[,:(=]?\s*$/i;

/**
 * Round 19: the order of a list of three or more values with their arms' names. "Value-first" when the first arm
 * name follows a value by the words that tie a value to its group ("30 (9%) of 349 patients continuing A", "67% (36
 * of 54) of patients in the A group") and is not itself followed by a value ("A, 11 (6%)"); "name-first" otherwise;
 * "ambiguous" when the first name both follows one value and precedes another that way, so no order is shown —
 * unless that value is the list's first ("value-led", round 24: it has no name before it).
 */
function listOrder(
  sentence: string,
  vs: ProseValue[],
  firstName: { start: number; end: number },
): "value-first" | "value-led" | "name-first" | "ambiguous" {
  const before = [...vs].reverse().find((v) => v.end <= firstName.start);
  const after = vs.find((v) => v.start >= firstName.end);
  const valueFirst = before !== undefined && VALUE_TO_NAME.test(sentence.slice(before.end, firstName.start));
  const nameFirst = after !== undefined && NAME_TO_VALUE.test(sentence.slice(firstName.end, after.start));
  // Round 24: a list whose first value comes before any name is value-first ("was 74% (594/804) in the control group,
  // 65% (455/704) in the FSE group, …"): that value has no name before it.
  if (valueFirst && nameFirst) return before === vs[0] ? "value-led" : "ambiguous";
  return valueFirst ? "value-first" : "name-first";
}

/** How far past the last value (characters) a "respectively" can end the list of the values' arms (round 19). */
const RESPECTIVELY_REACH = 100;

function bestItem(items: string[], arm: ArmName, other: ArmName): number | null {
  const scores = items.map((item) => (arm.score(item) > other.score(item) ? arm.score(item) : 0));
  const best = bestIndices(scores, 0.3);
  return best.length === 1 ? best[0] : null;
}

/** One value's evidence: the items shown, the calibrated probability, and how it was read. */
interface Evidence {
  /** 0–1: the share of the evidence items shown (round 2's confidence; the bench's "evidence-items" gate). */
  confidence: number;
  /** 0–1: the calibrated probability that the value is right (calibration.ts); absent for an n read with no outcome. */
  probability?: number;
  reason: string;
  /** A consistency check of the reading failed (consistency.ts). */
  inconsistent?: boolean;
  /** The definitional gates the value fails (round 7, DEFINITIONAL_GATES), each "name: what"; empty when none. */
  gates?: string[];
  /** The value's reading described for the calibrated confidence (calibration.ts); absent for an n read with no outcome. */
  features?: ValueFeatures;
}

interface Finalised {
  values: Record<ArmKey, ArmValues>;
  derived: Derivation[];
  quotes: ArmQuote[];
  evidence: Partial<Record<ArmKey, Partial<Record<ArmField, Evidence>>>>;
}

/**
 * The lowest confidence at which a value is given (issue 26 round 6, ADR 0044; docs/methods/arm-extraction.md).
 * A value's confidence is the estimated probability that it is right: a logistic regression on the value's
 * calibration features (calibration.ts: the evidence items of ADR 0029 shown or not — arms, outcome, timepoint,
 * single reading, one sentence, statistic, n, derivation — and how it was read), fitted on the open part of
 * ../shared/extraction-arms by `node bench/arm-extraction.mjs --calibrate`; this threshold is the lowest whose
 * out-of-fold precision there is ≥ 0.95 (CALIBRATION_MODEL.threshold). The consistency and provenance checks stay
 * hard gates: a reading failing one is withheld whatever its probability.
 */
export const ABSTAIN_BELOW = CALIBRATION_MODEL.threshold;

/** Round 2's gate (ADR 0029), kept for the bench's comparison: a value only when every evidence item is shown. */
const EVIDENCE_ITEMS_ALL = 1;

/** Longest sentence (characters) accepted as one sentence of evidence; longer spans are runs the splitter did not break. */
const MAX_SENTENCE = 400;

interface Check {
  ok: boolean;
  /** What was shown, or what is missing. */
  what: string;
  /** Value-level items, named for the calibration features: the statistic, the n, the derivation. */
  item?: "statistic" | "n" | "derivation";
  /** The value needs an assumption the report does not state: offered (value null, reason shown), never given (round 11). */
  offerOnly?: boolean;
}

/** The timepoint was chosen, not shown: several times and the question names none (not the labelled post-treatment column), or an overall/total period. */
function timeChosenOf(candidate: Candidate): boolean {
  return (
    (/the question names none/.test(candidate.timeNote) && !/the post-treatment timepoint/.test(candidate.timeNote)) ||
    /overall\/total/.test(candidate.timeNote)
  );
}

/**
 * The definitional gates of round 7 (docs/methods/arm-extraction.md "Round 7", ADR 0044): a value whose reading is
 * of another kind than the question asks cannot be right by definition, so it is withheld whatever its calibrated
 * probability, like a failed consistency or provenance check.
 * - outcome-kind: change-from-baseline values for a value question or the reverse; a question about baseline
 *   values read where the table or column is not of baseline values; a row pooling alternatives ("A or B");
 * - timepoint-by-position: several times, the question names none, and no column is labelled post-treatment;
 * - not-one-sentence: a prose span the splitter did not break (over MAX_SENTENCE characters, or markup);
 * - ambiguous-n: a value that needs the arm's n, taken from the text where the text states more than one n for
 *   the arm and the values' table gives none.
 */
export const DEFINITIONAL_GATES = ["outcome-kind", "timepoint-by-position", "not-one-sentence", "ambiguous-n"] as const;

/** The gates of DEFINITIONAL_GATES that every value of a reading fails (outcome kind, timepoint, sentence), as "name: what". */
function readingGates(candidate: Candidate, outcome: Outcome): string[] {
  const gates: string[] = [];
  if (candidate.changeMismatch)
    gates.push(
      outcome.change
        ? "outcome-kind: values where the question asks for changes from baseline"
        : "outcome-kind: changes from baseline where the question asks for values",
    );
  if (candidate.baselineMismatch)
    gates.push("outcome-kind: the question asks for baseline values and the reading is not of baseline values");
  if (candidate.pooledRow) gates.push("outcome-kind: the row pools alternatives of which the question names one");
  if (/the question names none/.test(candidate.timeNote) && !/the post-treatment timepoint/.test(candidate.timeNote))
    gates.push(
      "timepoint-by-position: several times, the question names none and no column is labelled post-treatment",
    );
  if (candidate.source === "prose" && !isOneSentence(candidate.sentence ?? ""))
    gates.push("not-one-sentence: the span is a long run or holds markup");
  return gates;
}

/**
 * Round 14 timepoint-other (HARD_GATES): the question names a timepoint, the reading's time was neither matched to
 * it (its timeNote) nor chosen among several, and its table or sentence names one other single time. Returns the
 * rule and what it found, or null.
 */
function timepointOther(candidate: Candidate, outcome: Outcome): string | null {
  if (!outcome.timepoint || timeChosenOf(candidate) || /the question's timepoint/.test(candidate.timeNote)) return null;
  const times = timepointsIn(candidate.sentence ?? candidate.where);
  const other = times[0];
  if (other === undefined || times.some((t) => !sameTime(t, other)) || sameTime(other, outcome.timepoint)) return null;
  return `timepoint-other: the question asks for ${outcome.timepoint} and the reading shows only ${other}`;
}

/**
 * The round-16 definitional row rules (HARD_GATES unit-other, subscale-other, population-other, event-other;
 * definitions.ts) that are on, in that order: the first one the reading fails, as "rule: what was found", or null.
 * Tables are judged on their row (with its section row), the columns read and, for the unit, a caption stating one
 * unit only; prose on its sentence; the population on every label, the row and columns deciding when the labels name
 * two populations (as provenance.ts populationCheck).
 */
function rowDefinitionGate(
  candidate: Candidate,
  question: ArmQuestion,
  hardGates: ReadonlySet<HardGateName>,
  outcome: Outcome,
  report: TrialReport,
): string | null {
  const prose = candidate.source === "prose";
  if (!prose && candidate.rowLabel === undefined) return null;
  const row = prose
    ? (candidate.sentence ?? "")
    : [candidate.contextRow, candidate.rowLabel].filter((l) => l).join(" | ");
  if (hardGates.has("unit-other") && candidate.kind === "continuous") {
    const found = unitOther(
      question.outcome,
      prose ? { sentence: row } : { row, columns: candidate.columnLabels ?? [], caption: candidate.caption },
    );
    if (found) return found;
  }
  if (hardGates.has("subscale-other")) {
    const found = subscaleOther(question.outcome, row);
    if (found) return found;
  }
  if (hardGates.has("population-other")) {
    const asked = `${question.outcome} ${question.intervention} ${question.comparator}`;
    const read = prose ? undefined : [candidate.rowLabel ?? "", ...(candidate.columnLabels ?? [])].join(" | ");
    const found = populationOther(asked, candidate.labels ?? candidate.where, read);
    if (found) return found;
  }
  if (hardGates.has("event-other") && candidate.kind === "count") {
    const found = eventOther(question.outcome, row);
    if (found) return found;
  }
  const abstractSized = report.tables.length === 0 && report.text.length <= ABSTRACT_MAX_CHARS;
  if (prose && (hardGates.has("outcome-elsewhere") || (hardGates.has("abstract-outcome-elsewhere") && abstractSized)))
    return outcomeElsewhere(candidate, outcome, report);
  return null;
}

/**
 * The round-18 hard rule outcome-elsewhere (HARD_GATES): for a prose reading that names the outcome only in part
 * (every variant of the question's outcome lacks a word in the sentence), the first word it lacks that another sentence
 * of the report names beside a number, as "outcome-elsewhere: what"; null otherwise. Words are the core's concepts
 * (stemmed content words; times and numbers left out).
 */
function outcomeElsewhere(candidate: Candidate, outcome: Outcome, report: TrialReport): string | null {
  const sentence = candidate.sentence ?? "";
  const present = new Set(conceptsOf(sentence));
  const missing = outcome.namedInFull.map((variant) => variant.filter((c) => !hasStem(present, c)));
  // The words every variant of the outcome lacks in the sentence.
  const lacking = missing.length ? missing[0].filter((c) => missing.every((words) => words.includes(c))) : [];
  if (missing.some((words) => words.length === 0) || lacking.length === 0) return null;
  for (const span of documentSentences(report)) {
    const other = report.text.slice(span.start, span.end);
    if (other === sentence || !/\d/.test(other)) continue;
    const named = new Set(conceptsOf(other));
    const word = lacking.find((c) => hasStem(named, c));
    if (word)
      return `outcome-elsewhere: the sentence read does not name "${word}" of the outcome, which another sentence with numbers names ("${clip(other, 90)}")`;
  }
  return null;
}

/** A prose span is one sentence: at most MAX_SENTENCE characters and no markup. */
const isOneSentence = (span: string): boolean => span.length <= MAX_SENTENCE && !/<[a-z]/i.test(span);

/** The evidence items of a candidate's values (see ABSTAIN_BELOW): arms, outcome, timepoint, single reading, sentence. */
function candidateChecks(candidate: Candidate, outcome: Outcome): Check[] {
  const roleOnly = candidate.armScore < 0.6;
  const armsNamed = candidate.armScore >= 0.99 || Boolean(candidate.byElimination);
  const outcomeNamed = candidate.score / (candidate.source === "prose" ? 0.95 : 1) >= OUTCOME_FULL - 1e-9;
  const mismatch = candidate.changeMismatch || candidate.baselineMismatch || candidate.pooledRow;
  // A column the report labels post-treatment/end of treatment is its final timepoint, named (issue 26 item 3: the
  // report's final one when the question names none, said in the reason); the last column by position is a guess.
  const timeChosen = timeChosenOf(candidate);
  let timeShown = !timeChosen;
  if (timeShown && outcome.timepoint && !/the question's timepoint/.test(candidate.timeNote)) {
    const shown = candidate.sentence ?? candidate.where;
    const at = normaliseTimepoint(shown);
    timeShown = at !== null && sameTime(at, outcome.timepoint);
  }
  const checks: Check[] = [
    {
      ok: armsNamed,
      what: armsNamed
        ? candidate.byElimination
          ? "arms: the intervention named, the comparator the only other group of a two-arm table"
          : "arms: both named"
        : `arms: ${roleOnly ? "a label names only the arm's role" : "a label names only part of the arm"}`,
    },
    {
      ok: outcomeNamed && !mismatch,
      what: !outcomeNamed
        ? `outcome: matched only in part (${candidate.score.toFixed(2)})`
        : candidate.changeMismatch
          ? outcome.change
            ? "outcome: values, not changes from baseline as asked"
            : "outcome: changes from baseline where the question asks for values"
          : candidate.baselineMismatch
            ? "outcome: not a table or column of baseline values as asked"
            : candidate.pooledRow
              ? "outcome: the row pools alternatives of which the question names one"
              : "outcome: named",
    },
    {
      ok: timeShown,
      what: timeShown
        ? `timepoint: ${candidate.timeNote || (outcome.timepoint ? `the question's (${outcome.timepoint}) shown` : "one only")}`
        : timeChosen
          ? `timepoint: several and the question names none (${candidate.timeNote})`
          : `timepoint: the question's (${outcome.timepoint}) not shown`,
    },
    {
      ok: !candidate.rival,
      what: candidate.rival ? `single reading: no — ${candidate.rival} gives other numbers` : "single reading",
    },
  ];
  if (candidate.source === "prose") {
    const one = isOneSentence(candidate.sentence ?? "");
    checks.push({ ok: one, what: one ? "one sentence" : "not one sentence (a long run or markup)" });
  }
  return checks;
}

/**
 * The share of evidence items shown and the reason: the estimated probability (when there is one), then the
 * items shown and the items missing, in words.
 */
function scored(checks: Check[], lead: string, probability?: number): Evidence {
  const passed = checks.filter((c) => c.ok).length;
  const shown = checks.filter((c) => c.ok).map((c) => c.what);
  const failed = checks.filter((c) => !c.ok).map((c) => c.what);
  const summary = [
    shown.length ? `shown: ${shown.join("; ")}` : "",
    failed.length ? `missing: ${failed.join("; ")}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  const estimate =
    probability === undefined ? "" : `estimated probability right ${roundedConfidence(probability).toFixed(2)}; `;
  return {
    confidence: checks.length ? passed / checks.length : 0,
    probability,
    reason: `${lead} [${estimate}${passed}/${checks.length} evidence items; ${summary}]`,
  };
}

/** Outcome match (0–1, see outcomeScore) at and above which the outcome counts as named: every concept of the question's outcome in the label. */
const OUTCOME_FULL = 0.75;

/** Values derived from the question's outcome never found: the arm's n from the text or other tables (shown, never given). */
const SIZE_ONLY_CHECKS: Check[] = [
  { ok: false, what: "outcome: no table cell or sentence gives it, so the n it was analysed on is unknown" },
];

/** Turns a candidate into arm values, deriving counts from percentages and SDs from SE or CI, with each value's confidence and reason. */
function finalise(
  candidate: Candidate,
  sizes: Record<ArmKey, SizeFact | null>,
  outcome: Outcome,
  randomisedTotal: number | null,
  enabled?: readonly ReadingCheckName[],
  corrections: ReadonlySet<CorrectionName> = new Set(CORRECTIONS_ON),
  hardGates: ReadonlySet<HardGateName> = new Set(HARD_GATES_ON),
): Finalised | null {
  const values = { intervention: emptyArm(), comparator: emptyArm() };
  const derived: Derivation[] = [];
  const quotes: ArmQuote[] = [];
  const evidence: Finalised["evidence"] = { intervention: {}, comparator: {} };
  const checks = candidateChecks(candidate, outcome);
  const nSameTable: Record<ArmKey, boolean> = { intervention: false, comparator: false };
  const ambiguousN: Record<ArmKey, boolean> = { intervention: false, comparator: false };
  const subsampleN: Record<ArmKey, boolean> = { intervention: false, comparator: false };
  const otherSentenceN =
    hardGates.has("subsample-n") &&
    candidate.source === "prose" &&
    sentenceStatesOtherN(candidate.sentence ?? "", sizes);
  const gatesOfReading = readingGates(candidate, outcome);
  const hardGate =
    (hardGates.has("timepoint-other") ? timepointOther(candidate, outcome) : null) ?? candidate.rowGate ?? null;
  const timeWords = candidate.timeNote
    ? `; timepoint: ${candidate.timeNote}`
    : outcome.timepoint
      ? "; the question's timepoint is not in the labels"
      : "";
  const readAt = `${candidate.where} (outcome match ${candidate.score.toFixed(2)})${timeWords}`;
  // Scored at the end, once the consistency checks of the whole reading are known.
  const pending: { arm: ArmKey; field: ArmField; extra: Check[]; reason: string }[] = [];
  const put = (arm: ArmKey, field: ArmField, extra: Check[], reason: string) => {
    pending.push({ arm, field, extra, reason });
  };
  for (const arm of ARMS) {
    const data = candidate.arms[arm];
    const s = data.stats;
    const v = values[arm];
    let n = s.groupSize ?? data.groupSize ?? sizes[arm]?.n ?? null;
    const nQuote: ArmQuote | null =
      s.groupSize !== undefined
        ? { ...data.quote, field: "groupSize" }
        : (data.groupSizeQuote ?? sizes[arm]?.quote ?? null);
    const nOrigin: "cell" | "header" | "table" | "text" | "tables" =
      s.groupSize !== undefined
        ? "cell"
        : data.groupSize !== null
          ? (data.groupSizeOrigin ?? "table")
          : (sizes[arm]?.origin ?? "tables");
    // The text's n stands in for the outcome's only when it is the one n the text states for the arm (no dropouts to tell randomised from analysed).
    const textOnly = nOrigin === "text" && sizes[arm]?.distinct === 1;
    const nShown = nOrigin === "cell" || nOrigin === "header" || nOrigin === "table" || textOnly;
    nSameTable[arm] = nOrigin === "cell" || nOrigin === "header" || nOrigin === "table";
    ambiguousN[arm] = nOrigin === "text" && !textOnly;
    subsampleN[arm] = nOrigin === "text" && otherSentenceN;
    const nCheck: Check = {
      item: "n",
      ok: nShown,
      what: nShown
        ? nOrigin === "text"
          ? "n: the arm's only group size stated in the text (the outcome's table gives none)"
          : "n: read in the same table as the values"
        : `n: ${nOrigin === "text" ? "stated in the text" : "taken from other tables"}, not with the outcome's values${nOrigin === "text" && !textOnly ? " (the text states more than one n for the arm)" : ""}`,
    };
    if (candidate.kind === "count") {
      if (s.events !== undefined) {
        if (n !== null && s.events > n) return null;
        if (
          n !== null &&
          s.percent !== undefined &&
          s.groupSize === undefined &&
          Math.abs((100 * s.events) / n - s.percent) > 0.5 * 10 ** -(s.percentDecimals ?? 0) + 0.06
        ) {
          n = null;
        }
        v.events = s.events;
        quotes.push({ ...data.quote, field: "events" });
        put(arm, "events", [], `read at ${readAt}`);
      } else if (s.percent !== undefined && n !== null) {
        const fits = countsFromPercent(s.percent, s.percentDecimals ?? 0, n);
        // No whole number rounds to the percentage: it is not of this n, and the reading is dropped. Round 23: when
        // several do, this arm's events are not found and the reading's other values stand (before, it was dropped).
        if (fits.length === 0) return null;
        if (fits.length > 1) continue;
        const k = fits[0];
        v.events = k;
        const from = `${s.percent}% of n = ${n}`;
        derived.push({ arm, field: "events", from });
        quotes.push({ ...data.quote, field: "events" });
        put(
          arm,
          "events",
          [nCheck],
          `derived: ${from}, the only whole number of events that rounds to it (Cochrane Handbook 6.5.2); percentage read at ${readAt}`,
        );
      } else return null;
    } else {
      if (s.mean === undefined) return null;
      v.mean = s.mean;
      quotes.push({ ...data.quote, field: "mean" });
      // A bare number with no spread beside it is a mean only when a label or the question says the outcome is measured (it may be a count).
      const bare = s.sd === undefined && s.se === undefined && s.ciLow === undefined;
      const measured =
        !bare || outcome.typeGuess === "continuous" || /\b(mean|average|median|score)\b/i.test(candidate.where);
      put(
        arm,
        "mean",
        [
          {
            item: "statistic",
            ok: measured,
            what: measured
              ? "statistic: a mean"
              : "statistic: a bare number that may be a count (no SD, no label saying mean)",
          },
        ],
        `read at ${readAt}`,
      );
      if (s.sd !== undefined) {
        v.sd = s.sd;
        quotes.push({ ...data.quote, field: "sd" });
        put(arm, "sd", [], `read at ${readAt}`);
      } else if (s.se !== undefined && n !== null) {
        v.sd = roundTo(sdFromSe(s.se, n), 4);
        const from = `SE ${s.se} × √${n}`;
        derived.push({ arm, field: "sd", from });
        quotes.push({ ...data.quote, field: "sd" });
        put(
          arm,
          "sd",
          [nCheck],
          `derived: SD = SE × √n = ${from} (Cochrane Handbook 6.5.2.2)${candidate.spreadNote ? `; ${candidate.spreadNote}` : ""}; SE read at ${readAt}`,
        );
      } else if (s.ciLow !== undefined && s.ciHigh !== undefined && n !== null) {
        v.sd = roundTo(sdFromCi(s.ciLow, s.ciHigh, n), 4);
        const from = `95% CI ${s.ciLow} to ${s.ciHigh}, n = ${n}`;
        derived.push({ arm, field: "sd", from });
        quotes.push({ ...data.quote, field: "sd" });
        put(
          arm,
          "sd",
          [nCheck],
          `derived: SD = √n × (upper − lower) / (2 × ${n < 60 ? `t(0.975, ${n - 1})` : "1.96"}) from the ${from} (Cochrane Handbook 6.5.2.2); CI read at ${readAt}`,
        );
      }
    }
    v.groupSize = n;
    if (n !== null && nQuote) {
      quotes.push({ ...nQuote, arm, field: "groupSize" });
      const how = {
        cell: `written with the value at ${candidate.where}`,
        header: `the n over the arm's columns of ${candidate.where.split(":")[0]} ("${nQuote.text}")`,
        table: `the arm's n elsewhere in ${candidate.where.split(":")[0]} ("${nQuote.text}")`,
        text: `the arm's randomised/analysed number stated in the text ("${nQuote.text}"); the outcome's row gives none`,
        tables: `the arm's most frequent n over the report's tables ("${nQuote.text}"); the outcome's row gives none`,
      }[nOrigin];
      // An n is only as good as the match of the row it completes: given exactly when that row's values are.
      put(arm, "groupSize", [nCheck], how);
    }
  }
  // Cochrane Handbook 6.5.2.3: with both means, both n and an exact t or p on the row, but no SD, a pooled SD
  // follows. It assumes equal SDs in the two arms, so it is offered to the reviewer and never given (round 11
  // pooled-sd-offer; before round 11 only the fitted weight of the `assumption` feature kept it below the threshold).
  const [vi, vc] = [values.intervention, values.comparator];
  if (
    candidate.kind === "continuous" &&
    candidate.test &&
    vi.mean !== null &&
    vc.mean !== null &&
    vi.sd === null &&
    vc.sd === null &&
    vi.groupSize &&
    vc.groupSize
  ) {
    const { p, t: tStat, text } = candidate.test;
    const t = tStat ?? (p !== undefined ? tFromP(p, vi.groupSize, vc.groupSize) : null);
    const sd = t === null ? null : sdFromT(vi.mean - vc.mean, t, vi.groupSize, vc.groupSize);
    if (sd !== null && sd > 0) {
      const from = `${text}${tStat === undefined ? ` → t(${vi.groupSize + vc.groupSize - 2} df) = ${roundTo(t ?? 0, 3)}` : ""}, MD ${roundTo(vi.mean - vc.mean, 4)}, n ${vi.groupSize} and ${vc.groupSize}`;
      for (const arm of ARMS) {
        values[arm].sd = roundTo(sd, 4);
        derived.push({ arm, field: "sd", from });
        quotes.push({ ...candidate.arms[arm].quote, field: "sd" });
        put(
          arm,
          "sd",
          [
            {
              item: "derivation",
              ok: false,
              what: "derivation: assumes equal SDs in both arms",
              ...(corrections.has("pooled-sd-offer") ? { offerOnly: true } : {}),
            },
          ],
          `derived: pooled SD = |MD| / |t| / √(1/n₁ + 1/n₂) from ${from} (Cochrane Handbook 6.5.2.3; assumes equal SDs in both arms${corrections.has("pooled-sd-offer") ? ", so it is offered for the reviewer to accept and never given" : ""}); means read at ${readAt}`,
        );
      }
    }
  }
  const percent: ConsistencyContext["percent"] = {};
  for (const arm of ARMS) {
    const st = candidate.arms[arm].stats;
    if (st.kind === "count" && st.percent !== undefined && st.events !== undefined)
      percent[arm] = { value: st.percent, decimals: st.percentDecimals ?? 0 };
  }
  // A "total" below what the text states for the two arms together is one arm's number ("61 were allocated to A").
  const statedTogether = ARMS.reduce((t, arm) => t + Math.max(0, ...(sizes[arm]?.stated ?? [])), 0);
  const consistency = consistencyChecks({
    kind: candidate.kind,
    values,
    percent,
    statedSizes: { intervention: sizes.intervention?.stated, comparator: sizes.comparator?.stated },
    randomisedTotal: randomisedTotal !== null && randomisedTotal >= statedTogether ? randomisedTotal : null,
    enabled: enabled?.filter((n): n is ConsistencyCheckName => !PROVENANCE_CHECKS.includes(n as ProvenanceCheckName)),
  });
  const failed = consistency.filter((c) => !c.ok);
  const agreed: Check = failed.length
    ? { ok: false, what: `consistency: ${failed.map((c) => c.what).join("; ")}` }
    : { ok: true, what: `consistency: ${consistency.map((c) => c.what).join(", ") || "no check applies"}` };
  // Round 5: which population, time and reading the numbers belong to (provenance.ts); one item, like consistency.
  const provenance = candidate.provenance ?? [];
  const doubtful = provenance.filter((c) => !c.ok);
  const placed: Check = doubtful.length
    ? { ok: false, what: `provenance: ${doubtful.map((c) => c.what).join("; ")}` }
    : { ok: true, what: `provenance: ${provenance.map((c) => c.what).join(", ") || "no check applies"}` };
  const [armsItem, outcomeItem, timeItem, singleItem, sentenceItem] = checks;
  for (const { arm, field, extra, reason } of pending) {
    // The reading's definitional rule (timepoint, row), else round 21's subsample-n for an n (round 22: and for what was
    // derived with it, events from a percentage or an SD from an SE or CI), else round 15's notation rule for the
    // fields it names.
    const fromN = field === "groupSize" || derived.some((d) => d.arm === arm && d.field === field);
    const fieldGate =
      hardGate ??
      (fromN && subsampleN[arm] ? "subsample-n" : null) ??
      (candidate.notationGate?.fields.includes(field) ? candidate.notationGate.rule : null);
    const features: ValueFeatures = {
      armsShown: armsItem.ok,
      outcomeShown: outcomeItem.ok,
      timeShown: timeItem.ok,
      singleReading: singleItem.ok,
      prose: candidate.source === "prose",
      notOneSentence: sentenceItem !== undefined && !sentenceItem.ok,
      assumption: extra.some((c) => !c.ok && (c.item === "statistic" || c.item === "derivation")),
      nMissing: extra.some((c) => !c.ok && c.item === "n"),
      nSameTable: nSameTable[arm],
      derived: derived.some((d) => d.arm === arm && d.field === field),
      outcomeMatch: fullScore(candidate),
      armRoleOnly: candidate.armScore < 0.6,
      armIndirect: Boolean(candidate.byElimination || candidate.byPosition),
      timeByPosition: timeChosenOf(candidate),
      binary: candidate.kind === "count",
      rivals: candidate.rivals ?? 0,
      ...(extra.some((c) => c.offerOnly) ? { offerOnly: true } : {}),
      ...(fieldGate ? { hardGate: fieldGate } : {}),
    };
    const needsN = extra.some((c) => c.item === "n");
    const gates =
      needsN && ambiguousN[arm]
        ? [
            ...gatesOfReading,
            "ambiguous-n: the text states more than one n for the arm and the values' table gives none",
          ]
        : gatesOfReading;
    (evidence[arm] ??= {})[field] = {
      ...scored([...checks, ...extra, agreed, placed], reason, calibratedProbability(features)),
      inconsistent: !agreed.ok || !placed.ok,
      gates,
      features,
    };
  }
  return { values, derived, quotes, evidence };
}

/** How a value's confidence is set: the calibrated probability (round 6, the product) or the share of evidence items (round 2). */
type Gate = "calibrated" | "evidence-items";

/**
 * The result with every value whose confidence is below `abstainBelow`, or whose reading fails a consistency or
 * provenance check (when `withholdInconsistent`), withheld ('not found'), and its quotes kept as candidates.
 */
function withConfidence(
  result: ArmExtraction,
  evidence: Finalised["evidence"],
  outcomeType: OutcomeType,
  abstainBelow: number,
  withholdInconsistent: boolean,
  gate: Gate,
  featuresOut?: PerValue<ValueFeatures | null>,
  definitionalGates = false,
): ArmExtraction {
  const confidence = perValue<number | null>(null);
  const reason = perValue<string | null>(null);
  const candidates: ArmQuote[] = [];
  const fields: ArmField[] = outcomeType === "binary" ? ["events", "groupSize"] : ["mean", "sd", "groupSize"];
  for (const arm of ARMS) {
    for (const field of ARM_FIELDS) {
      const value = result[arm][field];
      const ev = evidence[arm]?.[field];
      if (value === null) {
        if (fields.includes(field))
          reason[arm][field] = "not found: no table cell or sentence gives it with the outcome and the arm matched";
        continue;
      }
      const shown = !ev
        ? 0
        : gate === "calibrated"
          ? roundedConfidence(ev.probability ?? 0)
          : Math.round(ev.confidence * 100) / 100;
      const failsCheck = Boolean(withholdInconsistent && ev?.inconsistent);
      const failsGate = definitionalGates && ev?.gates?.length ? ev.gates : null;
      // Round 11: a value derived under an assumption the report does not state is offered, never given, whenever a
      // threshold applies (abstainBelow 0 is the bench's raw reading).
      const offerOnly = Boolean(ev?.features?.offerOnly && abstainBelow > 0);
      // Round 14: a value failing a definitional hard rule (HARD_GATES) is withheld whenever a threshold applies.
      const hardGate = abstainBelow > 0 ? ev?.features?.hardGate : undefined;
      if (!ev || shown < abstainBelow || failsCheck || failsGate || offerOnly || hardGate) {
        candidates.push(...result.quotes.filter((q) => q.arm === arm && q.field === field));
        result[arm][field] = null;
        const why = hardGate
          ? `is wrong by definition (${hardGate})`
          : failsGate
            ? `fails a definitional gate (${failsGate.join("; ")})`
            : failsCheck
              ? "fails a consistency or provenance check"
              : offerOnly
                ? "needs an assumption the report does not state, so it is offered, not given"
                : "is too uncertain";
        reason[arm][field] =
          `not found: the best candidate (${value}${ev ? `, confidence ${shown.toFixed(2)}` : ""}) ${why}${ev ? ` — ${ev.reason}` : ""}`;
        continue;
      }
      confidence[arm][field] = shown;
      reason[arm][field] = ev.reason;
      if (featuresOut) featuresOut[arm][field] = ev.features ?? null;
    }
  }
  // A mean without its SD or an SD without its mean is still useful; a quote whose value was withheld is not evidence.
  const kept = result.quotes.filter((q) => result[q.arm][q.field] !== null);
  const derived = result.derived.filter((d) => result[d.arm][d.field] !== null);
  return { ...result, quotes: kept, derived, confidence, reason, candidates };
}

/**
 * Arm-level data for one question about one report (pure, no I/O).
 *
 * Input: the parsed report and `{intervention, comparator, outcome}` as free text (a short form in
 * brackets, "treatment as usual (TAU)", is used too). Output: `outcomeType` (binary when the data
 * are counts, continuous when means; from the outcome's wording when no data are found), per arm
 * `events` + `groupSize` or `mean` + `sd` + `groupSize` (null when the report does not give them),
 * the derivations applied (count from a percentage of a known n when exactly one integer fits;
 * SD = SE·√n or from a 95% CI, Cochrane Handbook 6.5.2.2), one quote per value, and per value a
 * `confidence` (0–1: the estimated probability that the value is right, calibration.ts, fitted by nested
 * cross-validation on the open part; rounded to 2 places) and a `reason` (the table cell with its row and column
 * labels or the sentence, the timepoint taken and why, the derivation, the estimated probability, the evidence
 * items shown and missing). Precision first: a value whose confidence is below `options.abstainBelow` (default
 * ABSTAIN_BELOW; the bench passes 0 for the raw readings) is withheld — null, its reason 'not found …', and its
 * quotes in `candidates` for the reviewer. Hard gates, whatever the probability: the reading's consistency
 * (consistency.ts: events ≤ n, printed percentages, n within the text's and the randomised total, SD > 0) and its
 * provenance (provenance.ts: no restricted population, other time, baseline column, qualified, cut-off or
 * sub-item row the question does not name; no counts for a mean), the definitional gates of round 7
 * (DEFINITIONAL_GATES: outcome kind, timepoint by position, not one sentence, ambiguous n) only when
 * `options.definitionalGates` is true (default off: round 7's adoption rule did not keep them), the definitional hard
 * rules (HARD_GATES: timepoint, notation, and round 16's unit, subscale, population and event rules of definitions.ts;
 * `options.hardGates` names those on), and an arm's n read with no outcome (never given). `options.consistency` names the reading checks run (READING_CHECKS, default all),
 * `options.withholdInconsistent` (default true) withholds on them, `options.gate: "evidence-items"` restores round
 * 2's confidence (the share of items shown, threshold 1) for the bench's comparison, and `options.readings`
 * collects every reading, best first (all for the bench's cross-validation).
 * Tables are preferred over prose at equal outcome match; a candidate whose numbers contradict
 * (events > n, a percentage that does not fit its n) is dropped rather than guessed.
 */
export function extractArms(
  report: TrialReport,
  question: ArmQuestion,
  options: {
    abstainBelow?: number;
    consistency?: readonly ReadingCheckName[];
    withholdInconsistent?: boolean;
    /** Bench only: "evidence-items" sets round 2's confidence (the share of items shown; default threshold 1). */
    gate?: Gate;
    /** Bench and tests: true withholds every value failing a definitional gate of round 7 (DEFINITIONAL_GATES; default off). */
    definitionalGates?: boolean;
    /** Bench and tests: the reading rules of round 8 that are on (RECALL_RULES; default RECALL_RULES_ON, none adopted). */
    recallRules?: readonly RecallRuleName[];
    /** Bench and tests: the definitional corrections of round 11 that are on (DEFINITIONAL_CORRECTIONS; default CORRECTIONS_ON). */
    corrections?: readonly CorrectionName[];
    /** Bench and tests: the definitional hard rules (rounds 14–16) that are on (HARD_GATES; default HARD_GATES_ON). */
    hardGates?: readonly HardGateName[];
    /** Bench only: every reading (candidate that gives values), best first, is pushed here; the best is returned as usual. */
    readings?: ArmExtraction[];
    /** Bench only (--calibrate): filled with the calibration features of each value the returned reading gives. */
    features?: PerValue<ValueFeatures | null>;
    /** Bench only (--calibrate, with `readings`): the features of each reading's values, in the order of `readings`. */
    readingFeatures?: PerValue<ValueFeatures | null>[];
  } = {},
): ArmExtraction {
  const gate = options.gate ?? "calibrated";
  const abstainBelow = options.abstainBelow ?? (gate === "calibrated" ? ABSTAIN_BELOW : EVIDENCE_ITEMS_ALL);
  // The consistency and provenance checks are hard gates under the calibrated confidence; under the share of items they are two of the items.
  const withholdInconsistent = options.withholdInconsistent ?? gate === "calibrated";
  // Round 7: the definitional gates, off by the round's adoption rule (they lowered every out-of-fold figure on the
  // open part; docs/methods/arm-extraction.md "Round 7"); the bench and the tests switch them on.
  const definitionalGates = options.definitionalGates ?? false;
  const abbreviations = reportAbbreviations(report);
  const recallRules = new Set<RecallRuleName>(options.recallRules ?? RECALL_RULES_ON);
  const corrections = new Set<CorrectionName>(options.corrections ?? CORRECTIONS_ON);
  const hardGates = new Set<HardGateName>(options.hardGates ?? HARD_GATES_ON);
  const names = makeArmNames(question, abbreviations);
  definePositions(report.text, names);
  if (recallRules.has("arm-labels")) defineLabels(report.text, names);
  const outcome = makeOutcome(question, abbreviations);
  const sizes = textGroupSizes(report, names);
  const fromTables = tableSizeFallback(report, names);
  for (const arm of ARMS) sizes[arm] ??= fromTables[arm];
  const candidates: Candidate[] = [];
  for (const table of report.tables) candidates.push(...tableCandidates(table, names, outcome, sizes));
  candidates.push(...proseCandidates(report, names, outcome, corrections, recallRules));
  applyNotationRules(candidates, report, corrections, hardGates);
  const asksPopulation = restrictedPopulation(`${question.outcome} ${question.intervention} ${question.comparator}`);
  const rank = new Map(candidates.map((c) => [c, populationRank(c, asksPopulation)]));
  candidates.sort((a, b) => b.score - a.score || rank.get(b)! - rank.get(a)!);
  for (const candidate of candidates) {
    if (outcome.typeGuess === "binary" && candidate.kind === "continuous" && candidate.score < 0.99) continue;
    candidate.rival = rivalOf(candidate, candidates);
    candidate.rivals = rivalCount(candidate, candidates);
    candidate.provenance = provenanceChecks(
      candidate,
      outcome,
      question,
      options.consistency,
      recallRules.has("decimal-times"),
    );
    candidate.rowGate = rowDefinitionGate(candidate, question, hardGates, outcome, report);
    for (const arm of ARMS) {
      const position = names[arm].positionIn(candidate.where);
      if (position) {
        candidate.where += ` ("${position.label}" is the ${arm}: "${position.quote}")`;
        candidate.byPosition = true;
      }
    }
    const result = finalise(
      candidate,
      sizes,
      outcome,
      randomisedTotal(report),
      options.consistency,
      corrections,
      hardGates,
    );
    if (!result) continue;
    const outcomeType = candidate.kind === "count" ? "binary" : "continuous";
    const featuresOut = options.readings
      ? options.readingFeatures && perValue<ValueFeatures | null>(null)
      : options.features;
    const reading = withConfidence(
      {
        outcomeType,
        intervention: result.values.intervention,
        comparator: result.values.comparator,
        derived: result.derived,
        quotes: result.quotes,
        extractor: "rules",
      },
      result.evidence,
      outcomeType,
      abstainBelow,
      withholdInconsistent,
      gate,
      featuresOut,
      definitionalGates,
    );
    if (!options.readings) return reading;
    options.readings.push(reading);
    if (featuresOut) options.readingFeatures?.push(featuresOut);
  }
  if (options.readings?.length) return options.readings[0];
  const intervention = emptyArm();
  const comparator = emptyArm();
  const quotes: ArmQuote[] = [];
  const evidence: Finalised["evidence"] = { intervention: {}, comparator: {} };
  for (const arm of ARMS) {
    const size = sizes[arm];
    if (size) {
      (arm === "intervention" ? intervention : comparator).groupSize = size.n;
      quotes.push(size.quote);
      const how =
        size.origin === "text" ? "stated with the arm in the text" : "the most frequent n over the report's tables";
      (evidence[arm] ??= {}).groupSize = scored(
        SIZE_ONLY_CHECKS,
        `the arm's group size, ${how} ("${size.quote.text}"); no data for the outcome were found`,
      );
    }
  }
  const outcomeType =
    outcome.typeGuess !== "unknown" ? outcome.typeGuess : CLINICAL_EVENT.test(outcome.phrase) ? "binary" : "continuous";
  return withConfidence(
    { outcomeType, intervention, comparator, derived: [], quotes, extractor: "rules" },
    evidence,
    outcomeType,
    abstainBelow,
    withholdInconsistent,
    gate,
  );
}

/** The names of the reading checks: consistency (consistency.ts) and provenance (provenance.ts). */
export type ReadingCheckName = ConsistencyCheckName | ProvenanceCheckName;

/** Every reading check, consistency then provenance: `extractArms`'s `consistency` option names a subset (bench `--cv`). */
export const READING_CHECKS: readonly ReadingCheckName[] = [...CONSISTENCY_CHECKS, ...PROVENANCE_CHECKS];

/**
 * Provenance checks of a reading (provenance.ts; issue 26 round 5), those of `enabled` (default all):
 * - population-named: the reading's labels name a restricted analysis (per-protocol, completers, subgroup,
 *   sensitivity, excluding, an age stratum) the question does not name;
 * - time-in-sentence: a sentence read names two or more times (follow-up times, or baseline and one), or baseline
 *   only for a question about a result;
 * - time-baseline-column: a table's columns read (or a row that is a time) are labelled baseline for a result;
 * - row-qualifier: the row label adds a qualifier the question's outcome does not name ("Serious …", "… at rest");
 * - row-sub-item: the row names the outcome only through the section row above it and is one item under it.
 */
function provenanceChecks(
  candidate: Candidate,
  outcome: Outcome,
  question: ArmQuestion,
  enabled?: readonly ReadingCheckName[],
  wholeNumberTimes = true,
): { name: ProvenanceCheckName; ok: boolean; what: string }[] {
  const on = new Set<ReadingCheckName>(enabled ?? PROVENANCE_CHECKS);
  const out: { name: ProvenanceCheckName; ok: boolean; what: string }[] = [];
  if (on.has("population-named")) {
    const asked = `${question.outcome} ${question.intervention} ${question.comparator}`;
    // Tables: the row and the columns read decide when the caption names the full population too.
    const read =
      candidate.source === "table"
        ? [candidate.rowLabel ?? "", ...(candidate.columnLabels ?? [])].join(" | ")
        : undefined;
    out.push({ name: "population-named", ...populationCheck(candidate.labels ?? candidate.where, asked, read) });
  }
  if (on.has("time-in-sentence") && candidate.source === "prose" && candidate.sentence)
    out.push({
      name: "time-in-sentence",
      ...sentenceTimeCheck(
        candidate.sentence,
        outcome.baseline,
        readingNumbers(candidate),
        wholeNumberTimes,
        outcome.phrase,
      ),
    });
  if (on.has("time-baseline-column") && candidate.source === "table" && !outcome.change)
    out.push({
      name: "time-baseline-column",
      ...baselineColumnCheck(
        candidate.columnLabels ?? [],
        candidate.ownScore === 0 ? (candidate.rowLabel ?? "") : "",
        outcome.baseline,
      ),
    });
  if (on.has("row-qualifier") && candidate.source === "table" && candidate.rowLabel !== undefined)
    out.push({ name: "row-qualifier", ...qualifierCheck(candidate.rowLabel, question.outcome) });
  if (on.has("row-threshold") && candidate.source === "table" && candidate.rowLabel !== undefined)
    out.push({ name: "row-threshold", ...thresholdCheck(candidate.rowLabel, question.outcome) });
  if (on.has("kind-asked")) out.push({ name: "kind-asked", ...kindCheck(candidate.kind, question.outcome) });
  if (on.has("row-sub-item") && candidate.ownScore !== undefined)
    out.push({
      name: "row-sub-item",
      ...subItemCheck(candidate.rowLabel ?? "", candidate.ownScore, candidate.viaContext ?? null),
    });
  return out;
}

/** Every number a reading takes from its cell or sentence (counts, percentages, means, spreads, n). */
function readingNumbers(candidate: Candidate): number[] {
  return ARMS.flatMap((arm) => {
    const st = candidate.arms[arm].stats;
    return [st.events, st.groupSize, st.percent, st.mean, st.sd, st.se, st.ciLow, st.ciHigh].filter(
      (v): v is number => v !== undefined,
    );
  });
}

/** A candidate's outcome match on the table scale (prose readings are scored × 0.95). */
const fullScore = (c: Candidate) => c.score / (c.source === "prose" ? 0.95 : 1);

/** The numbers two readings give for their arms agree (the same numbers stated twice, perhaps rounded). */
function sameReading(a: Candidate, b: Candidate): boolean {
  return ARMS.every((arm) => {
    const x = a.arms[arm].stats;
    const y = b.arms[arm].stats;
    if (x.kind === "count" && y.kind === "count") {
      if (x.events !== undefined && y.events !== undefined) return x.events === y.events;
      if (x.percent !== undefined && y.percent !== undefined) return sameNumber(x.percent, y.percent);
      // A count in one, a percentage only in the other: the same when the count over its n rounds to the percentage.
      const [counted, pct] = x.events !== undefined ? [a.arms[arm], y] : [b.arms[arm], x];
      const n = counted.stats.groupSize ?? counted.groupSize;
      return (
        counted.stats.events !== undefined &&
        pct.percent !== undefined &&
        n !== null &&
        n !== undefined &&
        percentAgrees(counted.stats.events, n, pct.percent, pct.percentDecimals ?? 0)
      );
    }
    if (x.kind === "continuous" && y.kind === "continuous")
      return x.mean !== undefined && y.mean !== undefined && sameNumber(x.mean, y.mean);
    return false;
  });
}

/**
 * Ambiguity (item 1 of issue 26): another candidate as well matched — the same outcome match (a sentence's on the
 * table's scale, round 5), arms matched at least as well, the same kind of data — at another place with other
 * numbers. The same numbers stated twice (a table and the abstract, perhaps rounded, or a count and its
 * percentage) are not a rival (sameReading). Returns where the rival was read.
 */
function rivalOf(candidate: Candidate, all: Candidate[]): string | undefined {
  for (const other of all) {
    if (other === candidate || other.kind !== candidate.kind || other.where === candidate.where) continue;
    // Prose readings are scored × 0.95: compared on the table's scale, a sentence as well matched is a rival too.
    if (fullScore(other) < fullScore(candidate) - 1e-9) continue;
    if (other.armScore < candidate.armScore - 1e-9 && !other.byElimination) continue;
    if (other.changeMismatch || other.baselineMismatch || other.pooledRow) continue;
    if (!sameReading(candidate, other)) return clip(other.where, 120);
  }
  return undefined;
}

/**
 * How many other readings could stand in for this one (a calibration feature): readings of the same kind, at
 * another place, naming the outcome in full (outcome match ≥ OUTCOME_FULL on the table's scale), whose numbers
 * are not the same numbers stated twice (sameReading).
 */
function rivalCount(candidate: Candidate, all: Candidate[]): number {
  let count = 0;
  for (const other of all) {
    if (other === candidate || other.kind !== candidate.kind || other.where === candidate.where) continue;
    if (fullScore(other) < OUTCOME_FULL - 1e-9) continue;
    if (!sameReading(candidate, other)) count += 1;
  }
  return count;
}

/** Group sizes in the headers or row labels of tables that show both arms ("Placebo (n = 120)"): the most frequent, when one. */
function tableSizeFallback(report: TrialReport, names: Record<ArmKey, ArmName>): Record<ArmKey, SizeFact | null> {
  const tally: Record<ArmKey, Map<number, { count: number; quote: ArmQuote }>> = {
    intervention: new Map(),
    comparator: new Map(),
  };
  for (const table of report.tables) {
    const arms = detectTableArms(table, names);
    if (!arms || arms.kind === "paired") continue;
    const sizes = tableGroupSizes(table, arms);
    for (const arm of ARMS) {
      const size = sizes[arm];
      if (!size?.quote) continue;
      // Across tables, an n is the arm's only when its label names the arm, not just its role ("Placebo" is not the comparator of a three-arm trial's active control).
      const label = arms.kind === "columns" ? columnLabel(table, arms[arm][0]) : (table.rows[arms[arm][0]]?.[0] ?? "");
      if (names[arm].score(label) < 0.5) continue;
      const entry = tally[arm].get(size.n);
      if (entry) entry.count += 1;
      else tally[arm].set(size.n, { count: 1, quote: size.quote });
    }
  }
  const out: Record<ArmKey, SizeFact | null> = { intervention: null, comparator: null };
  for (const arm of ARMS) {
    const ranked = [...tally[arm].entries()].sort((a, b) => b[1].count - a[1].count);
    if (ranked.length && (ranked.length === 1 || ranked[0][1].count > ranked[1][1].count))
      out[arm] = { n: ranked[0][0], quote: ranked[0][1].quote, origin: "tables" };
  }
  return out;
}

const randomisedCache = new WeakMap<TrialReport, number | null>();

/**
 * The number of participants the report says were randomised in all ("we randomised 240 adults", "240
 * patients were randomly assigned"): the largest sample size the study facts cue as randomised, read over
 * the document's one sentence list; null when the report says none. Cached per report object.
 */
function randomisedTotal(report: TrialReport): number | null {
  const cached = randomisedCache.get(report);
  if (cached !== undefined) return cached;
  const sentences = documentSentences(report).map((s, index) => ({
    text: report.text.slice(s.start, s.end),
    start: s.start,
    end: s.end,
    index,
  }));
  const randomised = extractSampleSizes(report.text, sentences).filter((s) => s.cue === "randomised");
  const total = randomised.length ? Math.max(...randomised.map((s) => s.value)) : null;
  randomisedCache.set(report, total);
  return total;
}

const abbreviationCache = new WeakMap<TrialReport, Abbreviation[]>();

/** Abbreviations defined in the report's text and its tables' footnotes (cached per report object). */
export function reportAbbreviations(report: TrialReport): Abbreviation[] {
  const cached = abbreviationCache.get(report);
  if (cached) return cached;
  const found = findAbbreviations(report.text);
  for (const table of report.tables) for (const note of table.footnotes) found.push(...findAbbreviations(note));
  abbreviationCache.set(report, found);
  return found;
}

/** The first step at which a question with no reading fails (`diagnoseNoReading`, bench `--recall`, round 9). */
export interface NoReadingDiagnosis {
  /**
   * "outcome": no table caption, row, column label or sentence names the outcome at the core's threshold (0.5);
   * "arms": the outcome is named, but no such table has both arms' columns/rows and no such sentence names both arms;
   * "statistic": outcome and arms are matched, but no cell pair or sentence gives a statistic the reader parses;
   * "other": readings were built and each was dropped later (a binary question read only as continuous, or the
   * finalising step gave no values); "baseline-table": the outcome is named only in a baseline table, set aside for
   * an outcome question.
   */
  step: "outcome" | "arms" | "statistic" | "baseline-table" | "other";
  /** The best outcome match (0..1) over tables and sentences, and the label or sentence it was against. */
  bestOutcome: { score: number; label: string };
  /** What the step failed on: the matched table's group labels, the matched sentence, or the cells read. */
  detail: string;
}

/**
 * Bench diagnosis (round 9, docs/methods/arm-extraction.md "Round 9"): for a question `extractArms` gives no reading
 * for, the first step that fails, in the core's own order — outcome match (`outcomeScore` ≥ 0.5 on a row, context row,
 * caption × 0.9, column label, or sentence), arm match (`detectTableArms` for a matched table; both arms' `mentions` in a
 * matched sentence), statistic parsing (`tableCandidates` / `proseCandidates` build nothing). Pure; no effect on
 * extraction. Returns null when the question has a reading.
 */
export function diagnoseNoReading(report: TrialReport, question: ArmQuestion): NoReadingDiagnosis | null {
  const readings: ArmExtraction[] = [];
  extractArms(report, question, { abstainBelow: 0, withholdInconsistent: false, readings });
  if (readings.length) return null;
  const abbreviations = reportAbbreviations(report);
  const names = makeArmNames(question, abbreviations);
  definePositions(report.text, names);
  const outcome = makeOutcome(question, abbreviations);
  let best = { score: 0, label: "" };
  const consider = (score: number, label: string) => {
    if (score > best.score) best = { score, label };
  };
  const matchedTables: { table: ReportTable; score: number; label: string; baselineSetAside: boolean }[] = [];
  for (const table of report.tables) {
    let tBest = {
      score: 0.9 * outcomeScore(outcome, table.caption),
      label: `${table.label} caption "${clip(table.caption)}"`,
    };
    let context = "";
    for (const row of table.rows) {
      if (isContextRow(row)) context = row[0] ?? "";
      const own = outcomeScore(outcome, row[0] ?? "");
      const withContext = context ? 0.9 * outcomeScore(outcome, `${context} ${row[0] ?? ""}`) : 0;
      const s = Math.max(own, withContext);
      if (s > tBest.score)
        tBest = { score: s, label: `${table.label} row "${clip(`${context ? `${context} / ` : ""}${row[0] ?? ""}`)}"` };
    }
    const width = table.header[0]?.length ?? table.rows[0]?.length ?? 0;
    for (let c = 1; c < width; c += 1) {
      const s = outcomeScore(outcome, columnLabel(table, c));
      if (s > tBest.score) tBest = { score: s, label: `${table.label} column "${clip(columnLabel(table, c))}"` };
    }
    consider(tBest.score, tBest.label);
    if (tBest.score >= 0.5)
      matchedTables.push({
        table,
        ...tBest,
        baselineSetAside: isBaselineTable(table) && !outcome.baseline,
      });
  }
  const text = report.text;
  const matchedSentences: { sentence: string; score: number }[] = [];
  for (const span of documentSentences(report)) {
    const sentence = text.slice(span.start, span.end);
    if (!/\d|\bno\b|\bnone\b/i.test(sentence)) continue;
    const s = outcomeScore(outcome, sentence, false);
    consider(s, `sentence "${clip(sentence, 160)}"`);
    if (s >= 0.5) matchedSentences.push({ sentence, score: s });
  }
  const bestOutcome = { score: Math.round(best.score * 100) / 100, label: best.label };
  if (!matchedTables.length && !matchedSentences.length)
    return { step: "outcome", bestOutcome, detail: `best match below 0.5: ${best.label || "(nothing)"}` };
  const usable = matchedTables.filter((t) => !t.baselineSetAside);
  const armTables = usable.filter((t) => detectTableArms(t.table, names));
  const armSentences = matchedSentences.filter(
    ({ sentence }) =>
      names.intervention.mentions(sentence).length > 0 && names.comparator.mentions(sentence).length > 0,
  );
  if (!armTables.length && !armSentences.length) {
    if (!usable.length && !matchedSentences.length)
      return { step: "baseline-table", bestOutcome, detail: matchedTables.map((t) => t.label).join("; ") };
    const t = usable.sort((a, b) => b.score - a.score)[0];
    const width = t ? (t.table.header[0]?.length ?? t.table.rows[0]?.length ?? 0) : 0;
    const groups = t
      ? `${t.label}; group labels ${Array.from({ length: width - 1 }, (_, k) => `"${clip(columnLabel(t.table, k + 1), 40)}"`).join(", ")}`
      : "";
    const s = matchedSentences.sort((a, b) => b.score - a.score)[0];
    return {
      step: "arms",
      bestOutcome,
      detail: [groups, s ? `sentence "${clip(s.sentence, 200)}"` : ""].filter(Boolean).join(" | "),
    };
  }
  const sizes = textGroupSizes(report, names);
  const fromTables = tableSizeFallback(report, names);
  for (const arm of ARMS) sizes[arm] ??= fromTables[arm];
  const built =
    armTables.reduce((k, t) => k + tableCandidates(t.table, names, outcome, sizes).length, 0) +
    proseCandidates(report, names, outcome).length;
  if (!built) {
    const t = armTables[0];
    const cells = t
      ? `${t.label}: ${clip(
          (t.table.rows.find((row) => outcomeScore(outcome, row[0] ?? "") >= 0.5) ?? t.table.rows[0] ?? []).join(" | "),
          160,
        )}`
      : "";
    const s = armSentences[0];
    return {
      step: "statistic",
      bestOutcome,
      detail: [cells, s ? `sentence "${clip(s.sentence, 200)}"` : ""].filter(Boolean).join(" | "),
    };
  }
  return {
    step: "other",
    bestOutcome,
    detail: `${built} candidate reading(s) built, none kept (${outcome.typeGuess === "binary" ? "binary question; continuous readings below 0.99, or " : ""}finalising gave no values)`,
  };
}
