/**
 * Rule-based structured extraction from a study's text (title + abstract): design, sample size,
 * outcomes, effect sizes with confidence intervals, p-values, adverse-event sentences, follow-up
 * durations, and the sentences that state conclusions, limitations, heterogeneity, interventions,
 * doses and calls for further research.
 *
 * Pure (no I/O); part of the extraction core's family: sentences come from the core's one
 * splitter (core/sentences.ts), numbers from its one number reader (core/numbers.ts) and effect
 * sizes from the reporting grammar (grammar.ts), so the study facts, the meta-analysis rows and
 * the combined summaries read the same effects. Used by the offline model (which builds whole
 * answers from it), the combined summaries, the meta-analysis rules (design, primary outcome,
 * sample size) and as grounding for any model.
 * Nothing is inferred: every item keeps `{quote, start, end}` with `text.slice(start, end) ===
 * quote`, and `sentenceIndex`, the position of its sentence in `splitSentences(text)` (so sentence
 * id "S{sentenceIndex + 1}").
 *
 * Reporting vocabularies follow CONSORT 2010 (Schulz et al., BMJ 2010;340:c332: "primary and
 * secondary outcome measures", "numbers randomised", "estimated effect size and its precision
 * (such as 95% confidence interval)", "all important harms"), PRISMA 2020 for abstracts (Page et
 * al., BMJ 2021;372:n71: "number of included studies and participants", "summary estimate with
 * confidence/credible interval", heterogeneity) and STROBE (von Elm et al., Lancet 2007) for the
 * observational designs.
 */
import { documentSentences, parseNumber, splitSentences, type SentenceSpan, type StudyDocument } from "./core/index.ts";
import { joinedStudyDocument } from "./core/document/index.ts";
import { parseEffects, type GrammarEffect } from "./grammar.ts";

/** A verbatim piece of the source: `text.slice(start, end) === quote` (UTF-16 offsets). */
export interface Quote {
  quote: string;
  start: number;
  end: number;
}

/** A quote inside one sentence of `splitSentences(text)`. */
export interface SentenceQuote extends Quote {
  /** Index into `splitSentences(text)`; the sentence id is `S${sentenceIndex + 1}`. */
  sentenceIndex: number;
}

export type StudyDesign =
  "meta-analysis" | "systematic-review" | "rct" | "cohort" | "case-control" | "cross-sectional" | "qualitative";

/** Human names of the designs, singular and plural. */
export const DESIGN_LABELS: Record<StudyDesign, { one: string; many: string }> = {
  "meta-analysis": { one: "meta-analysis", many: "meta-analyses" },
  "systematic-review": { one: "systematic review", many: "systematic reviews" },
  rct: { one: "randomised controlled trial", many: "randomised controlled trials" },
  cohort: { one: "cohort study", many: "cohort studies" },
  "case-control": { one: "case-control study", many: "case-control studies" },
  "cross-sectional": { one: "cross-sectional study", many: "cross-sectional studies" },
  qualitative: { one: "qualitative study", many: "qualitative studies" },
};

/**
 * Tie-break order of designs, strongest first: the evidence hierarchy of the Oxford CEBM Levels
 * of Evidence 2011 (systematic reviews / meta-analyses > randomised trials > cohort >
 * case-control > cross-sectional), qualitative work last as it answers different questions.
 */
export const DESIGN_ORDER: readonly StudyDesign[] = [
  "meta-analysis",
  "systematic-review",
  "rct",
  "cohort",
  "case-control",
  "cross-sectional",
  "qualitative",
];

export interface DesignMention extends SentenceQuote {
  design: StudyDesign;
  /** 3 = in the title or an explicit "we randomly assigned"; 2 = the study describing itself; 1 = a mention. */
  weight: number;
}

/** How a sample size was reported; higher tiers win over larger numbers in lower tiers. */
export type SampleSizeCue = "total" | "randomised" | "enrolled" | "count";

export interface SampleSize extends SentenceQuote {
  value: number;
  cue: SampleSizeCue;
}

export interface OutcomeMention extends SentenceQuote {
  /** "primary"/"secondary" when the abstract says so, else "outcome". */
  kind: "primary" | "secondary" | "outcome";
  /** The outcome phrase alone (a sub-span of the quote), e.g. "a recurrence of venous thromboembolism". */
  outcome: Quote;
}

export type EffectMeasure = "RR" | "OR" | "HR" | "IRR" | "MD" | "SMD" | "WMD" | "RD";

export interface PValue extends SentenceQuote {
  comparator: "<" | "≤" | "=" | ">" | "≥";
  value: number;
}

export interface ConfidenceInterval extends Quote {
  /** Confidence level in percent as stated ("95% CI" → 95; "CI" alone → 95); null for a bare "(0·40–0·70)". */
  level: number | null;
  lower: number;
  upper: number;
}

export interface EffectSize extends SentenceQuote {
  measure: EffectMeasure;
  /** The measure as written ("hazard ratio", "sHR", "WMD"). */
  label: string;
  value: number;
  unit: string | null;
  ci: ConfidenceInterval | null;
  pValue: PValue | null;
}

export interface FollowUp extends SentenceQuote {
  /** The duration number as written, parsed ("two" → 2). */
  value: number;
  unit: "day" | "week" | "month" | "year";
  /** "follow-up" when the text says follow-up; "duration" for "for 12 weeks" / "a 12-week intervention". */
  kind: "follow-up" | "duration";
}

export interface StudyExtraction {
  text: string;
  sentences: SentenceSpan[];
  /** The study's own design (see {@link extractDesign}), or null when none is named. */
  design: StudyDesign | null;
  designMentions: DesignMention[];
  /** The best single sample size (see {@link pickSampleSize}). */
  sampleSize: SampleSize | null;
  sampleSizes: SampleSize[];
  outcomes: OutcomeMention[];
  effects: EffectSize[];
  pValues: PValue[];
  adverseEvents: SentenceQuote[];
  followUps: FollowUp[];
  conclusions: SentenceQuote[];
  limitations: SentenceQuote[];
  futureResearch: SentenceQuote[];
  heterogeneity: SentenceQuote[];
  interventions: SentenceQuote[];
  doses: SentenceQuote[];
  recommendations: SentenceQuote[];
}

interface Sentence extends SentenceSpan {
  index: number;
}

function indexed(text: string): Sentence[] {
  return splitSentences(text).map((s, index) => ({ ...s, index }));
}

function quoteOf(text: string, start: number, end: number, sentenceIndex: number): SentenceQuote {
  return { quote: text.slice(start, end), start, end, sentenceIndex };
}

function sentenceQuote(s: Sentence): SentenceQuote {
  return { quote: s.text, start: s.start, end: s.end, sentenceIndex: s.index };
}

/** Runs a global regex over one sentence and yields matches with absolute offsets. */
function* matchesIn(s: Sentence, pattern: RegExp): Generator<{ m: RegExpExecArray; start: number; end: number }> {
  const re = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  for (let m = re.exec(s.text); m; m = re.exec(s.text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    yield { m, start: s.start + m.index, end: s.start + m.index + m[0].length };
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers

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
  fifteen: 15,
  eighteen: 18,
  twenty: 20,
  thirty: 30,
  "twenty-four": 24,
  "thirty-six": 36,
  forty: 40,
  "forty-eight": 48,
  fifty: 50,
  sixty: 60,
};
const WORD_NUMBER = Object.keys(WORD_NUMBERS)
  .sort((a, b) => b.length - a.length)
  .join("|");

/** A signed decimal: "-0.93", "−1.15", "0·74" (Lancet middle dot), ".05". */
const DECIMAL = String.raw`[-−]?(?:\d+(?:[.·]\d+)?|[.·]\d+)`;

/** A whole count, with thousands separated by commas or (thin/no-break) spaces: "1,234", "151 597". */
const COUNT = String.raw`(?<![\d.,·\-−/])(\d{1,3}(?:(?:,|[\u00A0\u2009\u202F ])\d{3})+|\d+)(?![\d]|[.,·]\d)`;

/** A count as written, by the core's number reader (thousands by comma or a thin/no-break space). */
const parseCount = parseNumber;

// ---------------------------------------------------------------------------------------------
// Design

const DESIGN_PATTERNS: { design: StudyDesign; pattern: RegExp }[] = [
  { design: "meta-analysis", pattern: /\bmeta-?\s?analy(?:sis|ses|tic)\b|\bmetaanalys[ie]s\b/i },
  {
    design: "systematic-review",
    pattern: /\bsystematic(?:ally)?\s+(?:literature\s+)?review(?:ed|s)?\b|\bumbrella review\b|\bCochrane review\b/i,
  },
  {
    design: "rct",
    pattern:
      /\brandomi[sz]ed(?:,?\s+(?:double|single|triple)[- ]blind(?:ed)?|,?\s+placebo[- ]controlled|,?\s+multicent(?:er|re)|,?\s+open[- ]label|,?\s+cluster|,?\s+crossover|,?\s+parallel[- ]group|,?\s+pragmatic|,?\s+phase\s+(?:I{1,3}V?|[1-4]))*,?\s+(?:controlled\s+|clinical\s+|comparative\s+)*trials?\b|\brandomly\s+(?:assigned|allocated)\b|\b(?:were|was)\s+randomi[sz]ed\b/i,
  },
  { design: "rct", pattern: /\bRCTs?\b/ },
  // A review describing its own search and inclusion (PRISMA 2020 abstract items 4 and 6).
  {
    design: "systematic-review",
    pattern:
      /\bwe\s+(?:included|identified)\s+(?:\d[\d,]*|[a-z]+(?:-[a-z]+)?)\s+(?:[\p{L}-]+\s+){0,2}?(?:trials|studies|RCTs|articles|reports)\b|\bwe\s+searched\s+(?:[\p{L}-]+\s+){0,4}?(?:MEDLINE|PubMed|Embase|Cochrane|Web\s+of\s+Science|Scopus|CINAHL|PsycINFO|databases?)\b/iu,
  },
  { design: "cohort", pattern: /\bcohort(?:s)?\b/i },
  { design: "case-control", pattern: /\bcase[- ]control\b/i },
  { design: "cross-sectional", pattern: /\bcross[- ]sectional\b/i },
  {
    design: "qualitative",
    pattern: /\bqualitative\b|\bsemi-structured interviews?\b|\bfocus groups?\b|\bthematic analysis\b/i,
  },
];

/** Context before a design word that names the studies a review included ("meta-analysis of RCTs"). */
const INCLUDED_STUDIES_BEFORE =
  /\b(?:of|included|including|includes|identified|eligible|pooled|searched\s+for|evaluated\s+in|from)\s+(?:\d[\d,]*\s+)?(?:[\p{L}-]+\s+){0,3}$/iu;

/** Context before a design word that makes it the study's own design ("This meta-analysis …"). */
const SELF_REFERENCE =
  /(?:\b(?:this|the present|the current|our|a|an)\s+(?:[\p{L}-]+\s+){0,4}$|\bwe\s+(?:conducted|performed|carried out|undertook|did|report|present|designed)\s+(?:an?\s+)?(?:[\p{L}-]+\s+){0,4}$|\bwas\s+(?:an?\s+)?(?:[\p{L}-]+\s+){0,3}$|\b(?:design|study design)\s*:?\s*(?:an?\s+)?(?:[\p{L}-]+\s+){0,3}$)/iu;

/**
 * Every design mention with a weight: 3 for an explicit randomisation ("we randomly assigned",
 * "were randomized") or a design named in the title (text before `titleEnd`); 2 when the study
 * describes itself ("This meta-analysis…", "We conducted a retrospective cohort study…",
 * "Design: cross-sectional", "We included 25 trials", "We searched MEDLINE…"); 1 for another
 * singular mention; 0 for plurals and for the studies a review included ("meta-analysis of
 * randomized controlled trials", "searched for RCTs", "previous meta-analyses"). The study's
 * design is the one with the highest single weight, then the most mentions, then
 * {@link DESIGN_ORDER}; a design with only weight-0 mentions is never chosen.
 */
export function extractDesign(
  text: string,
  options: { titleEnd?: number; sentences?: Sentence[] } = {},
): { design: StudyDesign | null; mentions: DesignMention[] } {
  const sentences = options.sentences ?? indexed(text);
  const titleEnd = options.titleEnd ?? 0;
  const mentions: DesignMention[] = [];
  for (const s of sentences) {
    for (const { design, pattern } of DESIGN_PATTERNS) {
      for (const { m, start, end } of matchesIn(s, pattern)) {
        const before = s.text.slice(Math.max(0, m.index - 60), m.index);
        const plural = /(?:ses|trials|RCTs|cohorts|reviews|studies)$/i.test(m[0]);
        let weight = 1;
        if (design === "rct" && /^(?:randomly|were|was)\b/i.test(m[0])) weight = 3;
        else if (design === "systematic-review" && /^we\b/i.test(m[0])) weight = 2;
        else if (INCLUDED_STUDIES_BEFORE.test(before) || plural) weight = 0;
        else if (s.start < titleEnd) weight = 3;
        else if (SELF_REFERENCE.test(before)) weight = 2;
        mentions.push({ ...quoteOf(text, start, end, s.index), design, weight });
      }
    }
  }
  const score = new Map<StudyDesign, { max: number; count: number }>();
  for (const { design, weight } of mentions) {
    if (weight === 0) continue;
    const current = score.get(design) ?? { max: 0, count: 0 };
    score.set(design, { max: Math.max(current.max, weight), count: current.count + 1 });
  }
  let best: StudyDesign | null = null;
  for (const design of DESIGN_ORDER) {
    const s = score.get(design);
    if (!s) continue;
    const b = best ? score.get(best)! : null;
    if (!b || s.max > b.max || (s.max === b.max && s.count > b.count)) best = design;
  }
  return { design: best, mentions: mentions.sort((a, b) => a.start - b.start) };
}

// ---------------------------------------------------------------------------------------------
// Sample size

/** Nouns for people (and units of analysis counted like them) that a sample size counts. */
const PEOPLE_NOUNS =
  "participants?|patients?|adults?|children|child|women|woman|men|man|subjects?|individuals?|people|persons?|volunteers?|respondents?|responses|cases|controls|infants?|newborns?|neonates?|adolescents?|students?|workers?|employees?|residents?|veterans?|mothers?|fathers?|parents?|athletes?|users?|smokers?|nonsmokers?|survivors?|beneficiaries|members?|girls?|boys?|males?|females?|twins?|pregnancies|pregnant women|nurses?|physicians?|clinicians?|households?|families|dyads?|couples?|pairs?|eyes|older adults|elderly";

/** Words that may not sit between a count and its noun ("5 of the patients", "65 years old patients"). */
const NOT_BETWEEN =
  "of|the|per|in|at|to|from|and|or|with|for|than|by|on|over|under|within|who|that|were|was|had|have|years?|months?|weeks?|days?|hours?|minutes?|old|aged?|times?|percent|mg|g|kg|ml|more|less|fewer|additional|million|millions|billion|thousand|thousands|hundred|hundreds";

const SAMPLE_CUES: { cue: SampleSizeCue; pattern: RegExp }[] = [
  {
    cue: "total",
    pattern: /\b(?:a\s+total\s+of|in\s+total|total\s+(?:sample|number)\s+of|overall,?)\s+(?:\w+\s+){0,2}$/i,
  },
  {
    cue: "randomised",
    pattern:
      /\b(?:randomi[sz](?:ed|ing)|randomly\s+(?:assigned|allocated)|allocated)\s+(?:a\s+total\s+of\s+)?(?:approximately\s+|about\s+)?$/i,
  },
  {
    cue: "enrolled",
    pattern:
      /\b(?:enrol(?:l)?(?:ed|ing)|recruit(?:ed|ing)|included|involv(?:ed|ing)|studied|analy[sz]ed|surveyed|interviewed|followed)\s+(?:a\s+total\s+of\s+)?(?:approximately\s+|about\s+|around\s+|nearly\s+|over\s+|more\s+than\s+)?$/i,
  },
];

const TIER: Record<SampleSizeCue, number> = { total: 3, randomised: 3, enrolled: 2, count: 1 };

/** Nouns after "randomised N" that show N is not a head count. */
const NOT_PEOPLE_AFTER =
  /^\s*(?:%|percent|trials?|studies|RCTs?|articles|records|reports|databases|cent(?:er|re)s|hospitals|sites|countries|regions|years?|months?|weeks?|days?|hours?|times|mg|g\b|kg|mL|ml)/i;

/** "… patients were included/enrolled/randomised" after the noun phrase. */
const CUE_AFTER =
  /^\s+(?:[\p{L}-]+\s+){0,3}?(?:were|was)\s+(?:(?:then|finally|eventually)\s+)?(?:(randomi[sz]ed|randomly\s+(?:assigned|allocated))|included|enrolled|recruited|analy[sz]ed|studied|surveyed)\b/iu;

function cueAround(before: string, after: string): SampleSizeCue {
  for (const { cue, pattern } of SAMPLE_CUES) if (pattern.test(before)) return cue;
  const passive = CUE_AFTER.exec(after);
  if (passive) return passive[1] ? "randomised" : "enrolled";
  return "count";
}

/**
 * Sample sizes: "n = 1,234" / "N=5145"; a count followed within three words by a people noun
 * ("1234 participants", "103 elderly patients", "approximately 1200 bladder cancer cases"; the
 * words between may not be prepositions, verbs or units, so "3 million adults" and "5 of the
 * patients" are not counts); and "randomised 240" / "randomly assigned 822" even without a noun.
 * Counts may use comma or thin-space thousands separators. Percentages, decimals and counts of
 * trials, centres or time are ignored, as are "12 cases of …" (events). Each item is cued
 * "total" ("a total of"), "randomised" ("randomised N", "N … were randomised"), "enrolled"
 * ("enrolled/recruited/included/involving N", "N … were included") or plain "count"
 * ("including 101,338 males" is a breakdown, so "including" is no cue).
 */
export function extractSampleSizes(text: string, sentences: Sentence[] = indexed(text)): SampleSize[] {
  const out: SampleSize[] = [];
  const seen = new Set<number>();
  const add = (s: Sentence, start: number, end: number, countStart: number, raw: string, cue: SampleSizeCue) => {
    const value = parseCount(raw);
    if (!Number.isFinite(value) || value <= 0 || seen.has(countStart)) return;
    seen.add(countStart);
    out.push({ ...quoteOf(text, start, end, s.index), value, cue });
  };
  const nEquals = new RegExp(String.raw`(?<![\p{L}])[nN]\s*=\s*${COUNT}`, "gu");
  const counted = new RegExp(
    String.raw`${COUNT}((?:\s+(?!(?:${NOT_BETWEEN})\b)[\p{L}][\p{L}'’-]*){0,3})\s+(${PEOPLE_NOUNS})\b`,
    "giu",
  );
  const randomised = new RegExp(
    String.raw`\b(?:randomi[sz]ed|randomly\s+(?:assigned|allocated))\s+(?:a\s+total\s+of\s+)?(?:approximately\s+|about\s+)?${COUNT}`,
    "gu",
  );
  for (const s of sentences) {
    for (const { m, start, end } of matchesIn(s, counted)) {
      // "12 cases of myocarditis" counts events, not the sample.
      if (/^cases$/i.test(m[3]!) && /^\s+of\b/i.test(text.slice(end, s.end))) continue;
      const countStart = start + m[0].indexOf(m[1]!);
      const before = s.text.slice(0, countStart - s.start);
      if (/(?:\baged?|\bover|\bunder|[≥≤<>])\s*$/i.test(before)) continue;
      add(s, start, end, countStart, m[1]!, cueAround(before, text.slice(end, s.end)));
    }
    for (const { m, start, end } of matchesIn(s, nEquals)) {
      add(s, start, end, start + m[0].indexOf(m[1]!, 1), m[1]!, cueAround(s.text.slice(0, start - s.start), ""));
    }
    for (const { m, start, end } of matchesIn(s, randomised)) {
      const after = s.text.slice(end - s.start);
      if (NOT_PEOPLE_AFTER.test(after)) continue;
      add(s, start, end, end - m[1]!.length, m[1]!, "randomised");
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * The single sample size to report for a study: among the highest cue tier present ("a total
 * of" and "randomised" > "enrolled/included" > plain counts), the largest value — the whole
 * sample is at least as large as any subgroup ("73 of 411 patients", "(n = 37)").
 */
export function pickSampleSize(sizes: readonly SampleSize[]): SampleSize | null {
  let best: SampleSize | null = null;
  for (const s of sizes) {
    if (!best || TIER[s.cue] > TIER[best.cue] || (TIER[s.cue] === TIER[best.cue] && s.value > best.value)) best = s;
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Outcomes

const OUTCOME_PATTERN =
  /\b(?:(?:the|our|their)\s+)?(?:(primary|main|principal|secondary|co-primary|key)\s+)?(?:(?:efficacy|safety|composite|clinical|study)\s+)?(?:outcomes?(?:\s+measures?)?|end[- ]?points?)\s+(?:was|were|is|are|included|include|includes|comprised|consisted\s+of|being)\s+|\b(primary|secondary)\s+(?:outcomes?|end[- ]?points?)\s*:\s*/gi;

/**
 * Outcome statements (CONSORT item 6a): "The primary outcome was a recurrence of venous
 * thromboembolism.", "Secondary outcomes included …", "Outcomes included heart failure …",
 * "The outcomes were …". The outcome phrase runs from after the verb to the end of the sentence
 * or the first semicolon. Statements about how outcomes were measured ("outcomes were assessed
 * by …") are skipped.
 */
export function extractOutcomes(text: string, sentences: Sentence[] = indexed(text)): OutcomeMention[] {
  const out: OutcomeMention[] = [];
  for (const s of sentences) {
    for (const { m, start, end } of matchesIn(s, OUTCOME_PATTERN)) {
      const rest = s.text.slice(end - s.start);
      if (/^(?:measured|assessed|evaluated|defined|analy[sz]ed|compared|recorded|collected|similar|not\b)/i.test(rest))
        continue;
      const stop = rest.search(/;|\.\s*$|$/);
      let phraseEnd = end + (stop === -1 ? rest.length : stop);
      while (phraseEnd > end && /[\s.,:]/.test(text[phraseEnd - 1]!)) phraseEnd--;
      if (phraseEnd - end < 3) continue;
      const word = (m[1] ?? m[2] ?? "").toLowerCase();
      const kind = word === "secondary" ? "secondary" : word ? "primary" : "outcome";
      out.push({
        ...quoteOf(text, start, phraseEnd, s.index),
        kind,
        outcome: { quote: text.slice(end, phraseEnd), start: end, end: phraseEnd },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// p-values

const P_VALUE = new RegExp(
  String.raw`(?<![\p{L}\d])[pP](?:[- ]?values?)?\s*(<=|>=|≤|≥|<|>|=|&lt;|&gt;)\s*(${DECIMAL}(?:\s*[x×]\s*10\s*(?:\^)?\s*[-−]\s*\d+|[eE][-−]\d+)?)`,
  "gu",
);

function normaliseComparator(raw: string): PValue["comparator"] {
  if (raw === "<=" || raw === "≤") return "≤";
  if (raw === ">=" || raw === "≥") return "≥";
  if (raw === "<" || raw === "&lt;") return "<";
  if (raw === ">" || raw === "&gt;") return ">";
  return "=";
}

/** Parses "0.003", ".05", "1.2 × 10−5", "3e-4". */
function parsePValue(raw: string): number {
  const sci = /^(.*?)\s*[x×]\s*10\s*\^?\s*[-−]\s*(\d+)$/.exec(raw);
  if (sci) return parseNumber(sci[1]!) * 10 ** -Number(sci[2]);
  const exp = /^(.*?)[eE][-−](\d+)$/.exec(raw);
  if (exp) return parseNumber(exp[1]!) * 10 ** -Number(exp[2]);
  return parseNumber(raw);
}

/** p-values: "p < 0.05", "P=0.003", "P-value ≤ .01", "p = 1.2 × 10−5", "(p=0.880/0.335/0.174)" (the first). */
export function extractPValues(text: string, sentences: Sentence[] = indexed(text)): PValue[] {
  const out: PValue[] = [];
  for (const s of sentences) {
    for (const { m, start, end } of matchesIn(s, P_VALUE)) {
      const value = parsePValue(m[2]!);
      if (!Number.isFinite(value) || value < 0 || value > 1) continue;
      out.push({ ...quoteOf(text, start, end, s.index), comparator: normaliseComparator(m[1]!), value });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Effect sizes

const UNIT = String.raw`%|mmol\/mol|mmol\/L|mmol\/l|mg\/dL|mg\/dl|kg\/m2|kg\/m²|mm\s?Hg|kg|cm|mm|bpm|beats\/min|points?|mL|ml|IU|g|days?|hours?|min(?:utes)?|years?`;
const UNIT_AFTER = new RegExp(String.raw`^\s?(${UNIT})(?![\p{L}])`, "u");

/** The grammar's measure codes that are effect sizes of a study summary; WMD when the text names a weighted mean difference. */
function effectMeasureOf(e: GrammarEffect): EffectMeasure | null {
  switch (e.measure) {
    case "RR":
    case "OR":
    case "HR":
    case "IRR":
    case "SMD":
    case "RD":
      return e.measure;
    case "MD":
      return e.measureQuote && /\bWMDs?\b|weight(?:ed)?\s+mean/i.test(e.measureQuote.quote) ? "WMD" : "MD";
    default:
      return null;
  }
}

/** Drops a closing bracket at the end of a quote that closes a bracket opened before it. */
function trimUnbalancedCloser(text: string, start: number, end: number): number {
  const quote = text.slice(start, end);
  const opens = (quote.match(/[([]/g) ?? []).length;
  const closes = (quote.match(/[)\]]/g) ?? []).length;
  return closes > opens && /[)\]]$/.test(quote) ? end - 1 : end;
}

/**
 * Effect sizes with their confidence intervals and p-values, read by the reporting grammar of
 * app/lib/extraction (grammar.ts: one estimate per interval, many per sentence, any bracket or
 * separator form, unicode minus and middle-dot decimals): "RR 0.75 (95% CI 0.60 to 0.93)",
 * "OR = 1.8; 95% CI, 1.2–2.6", "hazard ratio with aspirin, 0.74; 95% confidence interval [CI],
 * 0.52 to 1.05; P=0.09", "WMD: -0.93%, 95% CI: -1.24 to -0.62". Measures RR, OR, HR, IRR, MD,
 * SMD, WMD (a mean difference the text calls weighted) and RD; other grammar measures
 * (proportions, correlations, AUC …) are not effect sizes here. An estimate without an interval is
 * not reported. The quote runs from the measure's name (when it stands within 50 characters
 * before the value, with no number between) to the interval, or to the p-value when one follows
 * within 30 characters (see {@link extractPValues}). `level` is the stated level, 95 for a named
 * interval without one ("CI 0.52 to 1.05"), null for a bare bracket.
 */
export function extractEffectSizes(
  text: string,
  sentences: Sentence[] = indexed(text),
  pValues: PValue[] = extractPValues(text, sentences),
  allSentences: readonly SentenceSpan[] = splitSentences(text),
): EffectSize[] {
  const out: EffectSize[] = [];
  for (const e of parseEffects(text, undefined, allSentences)) {
    const measure = effectMeasureOf(e);
    if (!measure) continue;
    const mq = e.measureQuote;
    const gap = mq && mq.end <= e.estimate.start ? text.slice(mq.end, e.estimate.start) : null;
    const start =
      mq && gap !== null && gap.length <= 50 && !/\d/.test(gap) ? mq.start : Math.min(e.start, e.estimate.start);
    const sentence =
      sentences.find((s) => s.start <= e.estimate.start && e.estimate.start < s.end) ??
      sentences.find((s) => s.end > e.estimate.start);
    if (!sentence) continue;
    const unitMatch = e.estimate.percent ? null : UNIT_AFTER.exec(text.slice(e.estimate.end, e.lower.start));
    const unit = e.estimate.percent ? "%" : unitMatch ? unitMatch[1]!.trim() : null;
    const ciStart = e.explicitInterval
      ? Math.max(e.estimate.end, ciLabelStart(text, e.estimate.end, e.lower.start))
      : e.lower.start;
    let cursor = e.upper.end;
    // The bracket the interval opened ("[95% CI: 0.95-1.43]") closes the quote.
    const opened = text.slice(start, cursor);
    if (
      /^[)\]]/.test(text[cursor] ?? "") &&
      (opened.match(/[([]/g) ?? []).length > (opened.match(/[)\]]/g) ?? []).length
    )
      cursor++;
    const pValue =
      pValues.find((p) => p.start >= cursor && p.start - cursor <= 30 && !/[)\]]/.test(text.slice(cursor, p.start))) ??
      null;
    let quoteEnd = pValue ? pValue.end : cursor;
    while (quoteEnd > e.estimate.start && /[\s,;([]/.test(text[quoteEnd - 1]!)) quoteEnd--;
    quoteEnd = trimUnbalancedCloser(text, start, quoteEnd);
    cursor = Math.min(cursor, quoteEnd);
    const ci: ConfidenceInterval = {
      quote: text.slice(ciStart, cursor),
      start: ciStart,
      end: cursor,
      level: e.level ?? (e.explicitInterval ? 95 : null),
      lower: e.lower.value,
      upper: e.upper.value,
    };
    out.push({
      ...quoteOf(text, start, quoteEnd, sentence.index),
      measure,
      label: mq ? mq.quote : measure,
      value: e.estimate.value,
      unit,
      ci,
      pValue,
    });
  }
  return out;
}

/** Where a named interval's label ("95% CI", "confidence interval [CI]") starts between the value and the lower bound. */
function ciLabelStart(text: string, from: number, lowerStart: number): number {
  const between = text.slice(from, lowerStart);
  const m = /(?:\d{2}(?:[.·]\d+)?\s*%\s*)?(?:CI|CrI|UI|confidence|credible|uncertainty)/i.exec(between);
  return m ? from + m.index : lowerStart;
}

/**
 * Whether a confidence interval excludes the null: 1 for ratio measures (RR, OR, HR, IRR), 0 for
 * differences (MD, SMD, WMD, RD). Null when there is no interval.
 */
export function excludesNoEffect(effect: Pick<EffectSize, "measure" | "ci">): boolean | null {
  if (!effect.ci) return null;
  const nullValue = ["RR", "OR", "HR", "IRR"].includes(effect.measure) ? 1 : 0;
  const lo = Math.min(effect.ci.lower, effect.ci.upper);
  const hi = Math.max(effect.ci.lower, effect.ci.upper);
  return !(lo <= nullValue && nullValue <= hi);
}

// ---------------------------------------------------------------------------------------------
// Durations

const DURATION = new RegExp(
  String.raw`(?<![\p{L}\d.])(\d+(?:\.\d+)?|${WORD_NUMBER})(?:\s*(?:-|–|to)\s*(?:\d+(?:\.\d+)?|${WORD_NUMBER}))?[\s-]+(day|week|month|year)s?\b`,
  "giu",
);
const FOLLOW_UP_CUE = /\bfollow(?:ed)?[- ]?ups?\b|\bfollowed(?:\s+up)?\b(?!\s+by)/gi;
const DURATION_BEFORE =
  /\b(?:for|lasting|over\s+a\s+period\s+of|during|duration\s+of\s+(?:[\p{L}-]+\s+){0,2}(?:was|of|ranged\s+from))\s+(?:up\s+to\s+|a\s+(?:median|mean|minimum|maximum|total)\s+of\s+|about\s+|approximately\s+|at\s+least\s+|an?\s+average\s+of\s+)?$/iu;
const DURATION_AFTER =
  /^[\s-]*(?:long\s+)?(?:intervention|programme|program|trial|treatment|training|supplementation|study|period|course|regimen|therapy|exercise|diet)\b/i;

function durationValue(raw: string): number {
  const n = Number(raw);
  return Number.isFinite(n) ? n : (WORD_NUMBERS[raw.toLowerCase()] ?? NaN);
}

/**
 * Follow-up and treatment durations: a number (or number word) of days/weeks/months/years that
 * is either within 40 characters of "follow-up"/"followed" ("5-year follow-up", "median follow-up
 * period of 37.2 months", "duration of follow-up was 28 months", "followed for 5 years") — kind
 * "follow-up" — or introduced by "for (up to)" / "lasting" / "during" or followed by
 * intervention/programme/trial/treatment ("for up to 4 years", "a 12-week intervention") — kind
 * "duration". Bare time points ("at 30 days", "5-year survival") are not durations. The quote
 * spans the cue and the duration.
 */
export function extractFollowUps(text: string, sentences: Sentence[] = indexed(text)): FollowUp[] {
  const out: FollowUp[] = [];
  for (const s of sentences) {
    const cues = [...matchesIn(s, FOLLOW_UP_CUE)];
    for (const { m, start, end } of matchesIn(s, DURATION)) {
      const value = durationValue(m[1]!);
      if (!Number.isFinite(value)) continue;
      const unit = m[2]!.toLowerCase() as FollowUp["unit"];
      const cue = cues
        .map((c) => ({ c, distance: c.start >= end ? c.start - end : start >= c.end ? start - c.end : 0 }))
        .filter(({ distance }) => distance <= 40)
        .sort((a, b) => a.distance - b.distance)[0];
      if (cue) {
        const between = text.slice(Math.min(end, cue.c.end), Math.max(start, cue.c.start));
        if (!/[;]/.test(between)) {
          const qs = Math.min(start, cue.c.start);
          const qe = Math.max(end, cue.c.end);
          out.push({ ...quoteOf(text, qs, qe, s.index), value, unit, kind: "follow-up" });
          continue;
        }
      }
      const before = text.slice(s.start, start);
      const lead = DURATION_BEFORE.exec(before);
      const tail = DURATION_AFTER.exec(text.slice(end, s.end));
      if (lead || tail) {
        const qs = lead ? s.start + lead.index : start;
        const qe = tail ? end + tail[0].length : end;
        out.push({ ...quoteOf(text, qs, qe, s.index), value, unit, kind: "duration" });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sentence classes

const ADVERSE_WORDS =
  /\b(?:(?:serious\s+)?adverse\s+(?:events?|effects?|reactions?|drug\s+reactions?|outcomes?)|side[- ]effects?|safety|tolerability|well[- ]tolerated|tolerated|toxicit(?:y|ies)|harms?)\b/i;
const ADVERSE_ABBREVIATIONS = /\bS?AEs?\b/;
const CONCLUSION =
  /^(?:in\s+conclusion|in\s+summary|to\s+conclude|overall|taken\s+together|collectively|we\s+conclude|these\s+(?:findings|results|data)\s+(?:suggest|indicate|show|demonstrate|support|substantiate|highlight|confirm)|our\s+(?:findings|results|data)\s+(?:suggest|indicate|show|demonstrate|support|highlight)|(?:this|the\s+present)\s+(?:study|trial|review|meta-analysis|analysis)\s+(?:suggests|shows|demonstrates|indicates|provides|revealed|found|highlights|confirms))\b/i;
const LIMITATION =
  /\blimitations?\b|\blimited\s+by\b|\b(?:risk\s+of\s+)?bias(?:es|ed)?\b|\bconfound(?:ing|ers?|ed)\b|\bsmall\s+sample\b|\bunderpowered\b|\blow[- ](?:quality|certainty)\b|\binterpreted\s+with\s+caution\b|\bcaution\b|\blimited\s+number\b|\brelatively\s+limited\b/i;
const FUTURE =
  /\bfurther\s+(?:research|studies|trials|investigation|work|evaluation|exploration)\b|\bfuture\s+(?:research|studies|trials|work|investigations?)\b|\b(?:are|is|remain|remains)\s+(?:urgently\s+)?(?:needed|warranted|required)\b|\bshould\s+be\s+(?:investigated|explored|evaluated|studied|examined)\b|\bneeds?\s+to\s+be\s+(?:investigated|explored|confirmed|studied)\b/i;
/** A reported heterogeneity result (an I², τ² or Q value, or a graded "low/substantial heterogeneity"), not the method. */
const HETEROGENEITY =
  /\bI\s?(?:2|²|\^2)\s*(?:=|:|<|>|≤|≥|of|was)\s*\d|\b(?:tau|τ)\s?(?:2|²|-squared)\s*[=:]\s*\d|\bCochran'?s?\s+Q\b[^.;]{0,20}\d|\b(?:no|low|moderate|substantial|considerable|high|significant|marked|minimal|little|low\/moderate)\b[^.;]{0,30}\bheterogene(?:ity|ous)\b|\bheterogene(?:ity|ous)\b[^.;]{0,30}\b(?:was|were)\s+(?:low|moderate|substantial|considerable|high|significant|not\s+significant)\b/i;
const INTERVENTION =
  /\b(?:randomly\s+(?:assigned|allocated)|randomi[sz]ed)\b.{0,120}\bto\b|\b(?:to\s+receive|were\s+given|was\s+given|administered|supplementation|(?:patients|participants|subjects|group|arm|they)\s+(?:who\s+)?(?:received|receiving)|intervention(?:s)?\s+(?:was|were|consisted|included|comprised)|compared\s+(?:with|to))\b/i;
/** Funding, registration and copyright notes, which are no findings. */
const FRONT_MATTER = /^\(?\s*(?:funded\s+by|funding|trial\s+registration|registration|registered|copyright|©)/i;
const DOSE =
  /(?<![\p{L}\d])\d+(?:[.·]\d+)?\s*(?:mg|µg|μg|mcg|IU)(?:\/(?:kg|day|d|week|m²|m2))?\b|\b(?:once|twice|three\s+times|four\s+times)[- ](?:daily|weekly|a\s+day|a\s+week|per\s+day|per\s+week)\b|\b(?:daily|weekly)\s+dose\b|\bat\s+a\s+dose\b|\bdoses?\s+(?:of|ranging)\b/iu;
const RECOMMENDATION =
  /\b(?:is|are)\s+(?:now\s+)?recommended\b|\bwe\s+recommend\b|\bshould\s+(?:be\s+)?(?:consider|considered|offered|used|given|avoid|avoided|receive|undergo|include|prioriti[sz]e)\b|\bguidelines?\s+recommend\b/i;

/** Structured-abstract sections that describe the question rather than the study's own findings. */
const BACKGROUND_SECTION = /background|introduction|objective|aim|purpose|context|rationale|importance|issue/;
const METHODS_SECTION =
  /method|design|setting|participant|intervention|measure|selection|search|collection|material|procedure/;
const CONCLUSION_SECTION = /conclu|interpretation|implication|significance/;

/**
 * The structured-abstract section of each sentence, lower case, or null. `splitSentences` leaves
 * labels ("RESULTS:", "Design, setting, and participants:") out of every sentence, so a label is
 * the text between two sentences; it applies until the next one.
 */
function sectionsOf(text: string, sentences: Sentence[]): (string | null)[] {
  let section: string | null = null;
  let previousEnd = 0;
  return sentences.map((s) => {
    const gap = text.slice(previousEnd, s.start);
    const label = /([\p{L}][\p{L} ,&/'’-]{1,60}?)\s*:?\s*$/u.exec(gap);
    if (label && /\p{L}{3}/u.test(label[1]!)) section = label[1]!.trim().toLowerCase();
    previousEnd = s.end;
    return section;
  });
}

function sentencesMatching(sentences: Sentence[], test: (s: Sentence) => boolean): SentenceQuote[] {
  return sentences.filter(test).map(sentenceQuote);
}

/**
 * Extracts everything above from one study's text. `titleEnd` is where the title ends when the
 * text starts with it: design words there weigh 3, and title sentences are never findings.
 * Funding/registration notes are skipped. Limitations, calls for further research and
 * recommendations are taken only outside background/objective and methods sections (a background
 * "remains unclear" or a method "to minimise confounding" is not the study's limitation); adverse
 * events prefer result sentences over methods; conclusions are the sentences of a
 * Conclusions/Interpretation section or ones opening with a conclusion cue ("In conclusion",
 * "These findings suggest"); interventions are taken from an Interventions section, or matching
 * sentences of a methods section (or of an abstract without sections).
 */
export function extractStudyFacts(
  text: string,
  options: { titleEnd?: number; sentences?: readonly SentenceSpan[] } = {},
): StudyExtraction {
  const sentences = options.sentences
    ? options.sentences.map((s, index) => ({ text: s.text, start: s.start, end: s.end, index }))
    : indexed(text);
  const titleEnd = options.titleEnd ?? 0;
  const sections = sectionsOf(text, sentences);
  const sectionOf = (s: Sentence) => sections[s.index] ?? "";
  const body = sentences.filter((s) => s.start >= titleEnd && !FRONT_MATTER.test(s.text));
  const findings = body.filter((s) => !BACKGROUND_SECTION.test(sectionOf(s)));
  const discussion = findings.filter((s) => !METHODS_SECTION.test(sectionOf(s)));
  const adverse = findings.filter((s) => ADVERSE_WORDS.test(s.text) || ADVERSE_ABBREVIATIONS.test(s.text));
  const adverseResults = adverse.filter((s) => !METHODS_SECTION.test(sectionOf(s)));
  const { design, mentions } = extractDesign(text, { titleEnd, sentences });
  const sampleSizes = extractSampleSizes(text, body);
  const pValues = extractPValues(text, body);
  const interventions = body.filter(
    (s) =>
      /intervention/.test(sectionOf(s)) ||
      (INTERVENTION.test(s.text) && (sections[s.index] === null || METHODS_SECTION.test(sectionOf(s)))),
  );
  return {
    text,
    sentences: sentences.map(({ text: t, start, end }) => ({ text: t, start, end })),
    design,
    designMentions: mentions,
    sampleSize: pickSampleSize(sampleSizes),
    sampleSizes,
    outcomes: extractOutcomes(text, body),
    effects: extractEffectSizes(text, body, pValues, sentences),
    pValues,
    adverseEvents: (adverseResults.length > 0 ? adverseResults : adverse).map(sentenceQuote),
    followUps: extractFollowUps(text, body),
    conclusions: sentencesMatching(body, (s) => CONCLUSION_SECTION.test(sectionOf(s)) || CONCLUSION.test(s.text)),
    limitations: sentencesMatching(discussion, (s) => LIMITATION.test(s.text)),
    futureResearch: sentencesMatching(discussion, (s) => FUTURE.test(s.text)),
    heterogeneity: sentencesMatching(body, (s) => HETEROGENEITY.test(s.text)),
    interventions: interventions.map(sentenceQuote),
    doses: sentencesMatching(findings, (s) => DOSE.test(s.text)),
    recommendations: sentencesMatching(discussion, (s) => RECOMMENDATION.test(s.text)),
  };
}

/**
 * {@link extractStudyFacts} of a study's document (the extraction core's document model): its text,
 * with the title part (when the document starts with one) as the title, read over the document's
 * shared sentence list ({@link documentSentences}) rather than splitting the text again.
 */
export function documentFacts(document: StudyDocument): StudyExtraction {
  const first = document.parts[0];
  const sentences = documentSentences(document).map((s) => ({
    text: document.text.slice(s.start, s.end),
    start: s.start,
    end: s.end,
  }));
  return extractStudyFacts(document.text, { titleEnd: first?.kind === "title" ? first.end : 0, sentences });
}

/**
 * The facts of a study given as the combined summaries hold it: one "title + blank line + abstract"
 * text and the offset where the title ends (quote offsets stay offsets into `text`). The same as
 * {@link documentFacts} of `joinedStudyDocument(text, { titleEnd })`; the extraction service's
 * `studyFacts` answers this input with it.
 */
export function joinedTextFacts(source: { text: string; titleEnd: number }): StudyExtraction {
  return documentFacts(joinedStudyDocument(source.text, { titleEnd: source.titleEnd }));
}
