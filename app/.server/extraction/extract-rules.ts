/**
 * Offline, rule-based extraction of effect data for meta-analysis from a study's abstract or
 * full text. Nothing is inferred: every number comes with the quote it was read from, with
 * `source.slice(start, end) === quote` (UTF-16 offsets into the abstract or the full text).
 *
 * Recognised forms (see the tests for real abstracts):
 * - every reported estimate with its interval, by the reporting grammar in app/lib/extraction
 *   (many per sentence, a measure named once for several values, unicode minus and middle-dot
 *   decimals, intervals in any bracket or separator form), with the outcome phrase, comparison
 *   and timepoint from the effect's own sentence and whether it is the text's pooled result;
 *   odds, risk, hazard and rate ratios, risk and mean differences and SMDs become rows;
 * - events / totals per arm: "12/100 vs 20/98", "12 of 100 … and 20 of 98",
 *   "90 [8%] of 1088 vs 64 [6%] of 1054";
 * - mean ± SD (n) per arm: "5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28)";
 * - events over person-time per arm (RevMan "rates"): "12 events in 1,200 person-years vs 20 in
 *   1,180 person-years" → a rate ratio (reportedMeasure IRR), never a 2×2;
 * - O − E with its variance (time-to-event data): "O − E = −5.2, V = 10.1" → a Peto log hazard
 *   ratio (reportedMeasure HR).
 * - an estimate with its standard error (RevMan "generic inverse variance"): "log HR −0.22 (SE
 *   0.09)", "β = 0.31, SE 0.12", "MD 2.1 (standard error 0.8)", "OR 1.45 (SE of log OR 0.11)" →
 *   estimate-se; a log ratio keeps its log scale (`scale: "log"`); a ratio whose SE is not said to be
 *   of the log ratio is kept but marked for the reviewer (`outcomeUncertain`).
 * Intervals at a level other than 95% are not used (escalc's CI recovery assumes 95%).
 */
import {
  extractEffects,
  isVagueOutcome,
  lowerInitial,
  normaliseOutcomePhrase,
  type ExtractedEffect,
  type MeasureCode,
} from "~/lib/extraction";
import {
  extractDesign,
  extractOutcomes,
  extractSampleSizes,
  pickSampleSize,
  type StudyDesign,
} from "~/lib/extraction/facts";
import { CORRECTIONS_ON, declaredNotation, hintsOf, proseValues, type ProseValue } from "~/lib/arms";
import {
  parseNumber,
  partOf,
  partSentences,
  splitSentences,
  studyDocument,
  type SentenceSpan,
  type StudyDocument,
} from "~/lib/extraction/core";
import type {
  EffectData,
  ExcludedStudy,
  ExtractedStudyData,
  Measure,
  SupportingQuote,
} from "~/lib/meta-analysis/types";

/** A study as the meta-analysis routes receive it. */
export interface MetaStudyInput {
  id?: string | number | null;
  title: string;
  abstract?: string | null;
  fullTextAnalysis?: string | null;
}

/** Extraction output for a set of studies. */
export interface ExtractionResult {
  extracted: ExtractedStudyData[];
  excluded: ExcludedStudy[];
}

/** Who extracted rows found by these rules. */
export const RULES_EXTRACTOR = "offline-rules";

export const NO_DATA_REASON = "No effect estimate with a confidence interval or arm-level data found in the abstract";
export const NO_TEXT_REASON = "No abstract or full text to extract effect data from";

/** The id a study is known by in results: its own id, else "study-{1-based position}". */
export function studyKey(study: MetaStudyInput, index: number): string {
  return study.id === undefined || study.id === null || String(study.id).trim() === ""
    ? `study-${index + 1}`
    : String(study.id);
}

const DESIGN_NAMES: Record<StudyDesign, string> = {
  rct: "RCT",
  "meta-analysis": "meta-analysis",
  "systematic-review": "systematic review",
  cohort: "cohort",
  "case-control": "case-control",
  "cross-sectional": "cross-sectional",
  qualitative: "qualitative",
};

/**
 * The study design for GRADE, named "RCT", "cohort", "case-control", "cross-sectional",
 * "meta-analysis", "systematic review" or "qualitative"; null when the text names none. The title
 * counts most (see extractDesign).
 */
export function classifyDesign(title: string, text: string): string | null {
  const joined = `${title}\n${text}`;
  const { design } = extractDesign(joined, { titleEnd: title.length + 1 });
  return design ? DESIGN_NAMES[design] : null;
}

// ---------------------------------------------------------------------------------------------
// Outcome labels

const LEADING_NOISE =
  /^(?:(?:and|or|but|with|for|in|on|of|the|a|an|its|their|our|both|all|including|especially|specifically|particularly|respectively|compared|whereas|while|as|to|from|by|at|was|were|is|are|had|has|have|significantly|significant|non-?significant|lower|higher|reduced|increased|decreased|improved|greater|fewer|more|less|risk|odds|rates?|incidence|reduction|increase|decrease|improvement|change|changes|difference|differences|effect|effects|association|associated|related|there|no)\b[\s,]*)+/i;
const TRAILING_NOISE =
  /(?:[\s,]+(?:and|or|was|were|is|are|with|for|in|at|of|the|a|an|overall|respectively|compared|vs\.?|versus|among|between|than))+$/i;

/** Cuts a phrase to its last `max` words, dropping noise words at its ends. */
function tidyPhrase(raw: string, max = 6): string {
  let s = raw
    .replace(/(\p{L})-\s*\n\s*(\p{L})/gu, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
  const words = s.split(" ");
  if (words.length > max) s = words.slice(-max).join(" ");
  for (let i = 0; i < 3; i++) {
    s = s.replace(LEADING_NOISE, "").replace(TRAILING_NOISE, "").trim();
  }
  s = s.replace(/[\s.,;:([-]+$/, "").replace(/^[\s.,;:)\]-]+/, "");
  if (!/\p{L}{3}/u.test(s) || /\d/.test(s)) return "";
  return s;
}

/** Phrases that name groups, comparisons or verdicts rather than an outcome. */
const NOT_AN_OUTCOME =
  /\b(?:groups?|compared|versus|vs|participants|patients|subjects|results?|consistent|found|significant|significantly|populations?|studies|trials?|analysis|analyses|whole|overall|those|model)\b/i;

// ---------------------------------------------------------------------------------------------
// Arm-level data

const NUM = String.raw`[-−]?\d+(?:[.·]\d+)?`;
const INT = String.raw`\d{1,3}(?:,\d{3})+|\d+`;
const BETWEEN_ARMS = String.raw`[^.;]{0,80}?\b(?:vs\.?|versus|and|compared\s+with|compared\s+to|with)\s+(?:[^.;\d]{0,60}?)`;
/** The words between two arms' values: a connector ("vs", "and", "compared with", "with") and at most a short group name. */
const ARMS_JOINED = new RegExp(`^${BETWEEN_ARMS}$`, "iu");
const MAY_JOIN_ARMS = /\d[^.;]{0,160}?\b(?:vs\.?|versus|and|compared|with)[^.;]{0,80}?\d/i;
/** A group size right after an arm's mean ± SD: "(n = 30)", "mmHg (n = 30)". */
const GROUP_SIZE_AFTER = new RegExp(String.raw`^\s*(?:[a-zA-Z/%²]{1,12}\s*)?[(\[]\s*[nN]\s*=\s*(${INT})\s*[)\]]`, "u");

/**
 * Events over person-time per arm (RevMan "rates"): "12 events in 1,200 person-years",
 * "8 bleeds over 310 patient-years", "30 infections during 2100.5 person-months".
 */
const PERSON_TIME = String.raw`(?:person|patient|participant|subject|woman|women|child)[- ]?(?:years?|months?|weeks?|days?)`;
const ARM_RATE = String.raw`(?<![\d.,/·])(${INT})\s*(?:\s(?:[\p{L}-]+\s+){0,3}?(?:in|over|during|per)\s+|\/\s*)(\d{1,3}(?:,\d{3})+(?:[.·]\d+)?|\d+(?:[.·]\d+)?)\s+${PERSON_TIME}`;
const RATES = new RegExp(ARM_RATE + BETWEEN_ARMS + ARM_RATE, "giu");
const PERSON_TIME_ANY = new RegExp(PERSON_TIME, "iu");
/** Numbers followed by person-time are never group sizes. */
const PERSON_TIME_AFTER = new RegExp(String.raw`^\s*${PERSON_TIME}`, "iu");

/** "O − E = −5.2, V = 10.1", "O-E −5.2 (variance 10.1)": observed minus expected events and its variance. */
const OE_VAR = new RegExp(
  String.raw`\bO\s*[−–-]\s*E\s*(?:[=:]\s*)?(${NUM})\s*[,;(]?\s*(?:V|var(?:iance)?)\s*(?:[=:]\s*)?(${NUM})`,
  "gu",
);

/**
 * An effect estimate followed by its standard error. The measure is named by its abbreviation
 * (case-sensitive, so the word "or" is not an odds ratio) or its name, optionally as a log ratio
 * ("log HR", "ln(OR)"); the estimate follows within a few words with no number between; the SE
 * follows the estimate directly (", SE 0.12", "(SE 0.09)", "(standard error 0.8)"), optionally
 * saying its scale ("SE of log OR 0.11", "SE on the log scale 0.09"). Regression coefficients are β,
 * "beta" or "(regression) coefficient", never a correlation or intraclass coefficient or a
 * coefficient of variation. A mean with its SE (a baseline table, one arm) names no effect measure
 * and is not read.
 */
const SE_EFFECT = new RegExp(
  String.raw`(?<log>\b(?:[Ll]og|ln|LN)[\s-]*(?:\(\s*)?)?` +
    String.raw`(?<m>\b(?:HR|OR|RR|IRR|MD|SMD|RD)s?\b|\b[Hh]azard\s+ratios?\b|\b[Oo]dds\s+ratios?\b|\b[Rr]isk\s+ratios?\b|\b[Rr]elative\s+risks?\b|\b(?:[Ii]ncidence\s+)?[Rr]ate\s+ratios?\b|\b[Ss]tandardi[sz]ed\s+mean\s+differences?\b|\b[Mm]ean\s+differences?\b|\b[Rr]isk\s+differences?\b|β(?![-\p{L}])|\b[Bb]eta\b(?!-)|(?<!(?:[Cc]orrelation|[Ii]ntraclass|[Gg]ini|[Pp]earson|[Ss]pearman)\s+)\b(?:[Rr]egression\s+)?[Cc]oefficients?\b(?!\s+of\s+variation))` +
    String.raw`(?:\s*\))?(?<between>[^\d;()\[\]]{0,60}?)` +
    String.raw`(?<est>(?<![\d.,·])[-−–]?\d+(?:[.·]\d+)?)(?![\d.·%]*\s*%)` +
    String.raw`\s*(?:[,;]\s*|[(\[]\s*)` +
    String.raw`(?:SE|S\.E\.|s\.e\.|[Ss]tandard\s+[Ee]rror)(?<seScale>\s+(?:of|for|on)\s+(?:the\s+)?(?:log|ln|natural\s+log(?:arithm)?)\b[^\d;()=:]{0,30}?)?` +
    String.raw`\s*(?:[=:]|was|of|,)?\s*(?<se>\d+(?:[.·]\d+)?)(?![\d.·])\s*[)\]]?`,
  "gu",
);

/** The pooled measure of an SE statement's measure words, and whether it is a ratio. */
function seMeasure(words: string): { measure: Measure; reportedMeasure?: "HR" | "IRR"; ratio: boolean } {
  const w = words.toLowerCase().replace(/\s+/g, " ");
  if (/^hrs?$|^hazard/.test(w)) return { measure: "RR", reportedMeasure: "HR", ratio: true };
  if (/^irrs?$|rate ratio/.test(w)) return { measure: "RR", reportedMeasure: "IRR", ratio: true };
  if (/^ors?$|^odds/.test(w)) return { measure: "OR", ratio: true };
  if (/^rrs?$|^risk ratio|^relative risk/.test(w)) return { measure: "RR", ratio: true };
  if (/^smds?$|^standardi/.test(w)) return { measure: "SMD", ratio: false };
  if (/^mds?$|^mean diff/.test(w)) return { measure: "MD", ratio: false };
  if (/^rds?$|^risk diff/.test(w)) return { measure: "RD", ratio: false };
  // β or a regression coefficient: a generic effect on its own (analysis) scale.
  return { measure: "GEN", ratio: false };
}

/**
 * The estimate-with-SE statements of one sentence (see {@link SE_EFFECT}), as rows of kind
 * estimate-se. A log ratio ("log HR −0.22") is kept on its log scale (`scale: "log"`); a ratio on
 * the natural scale needs a positive estimate, and its SE is taken as the SE of the log ratio only
 * when the text says so — otherwise the row carries `seScaleUnstated` for the reviewer.
 */
function seStatements(text: string, s: { start: number; text: string }): Found[] {
  const out: Found[] = [];
  for (const m of s.text.matchAll(SE_EFFECT)) {
    const g = m.groups!;
    const kind = seMeasure(g.m!);
    const isLog = Boolean(g.log);
    if (isLog && !kind.ratio) continue;
    const estimate = parseNumber(g.est!);
    const se = parseNumber(g.se!);
    if (!Number.isFinite(estimate) || !(se > 0)) continue;
    if (kind.ratio && !isLog && !(estimate > 0)) continue;
    const start = s.start + m.index!;
    const named = /^\s*(?:for|of|in)\s+([\p{L}][^,;]*?)\s+(?:was|were|is|=|:)?\s*$/iu.exec(g.between ?? "");
    const after = named ? lowerInitial(tidyPhrase(named[1]!)) : "";
    let outcome = after && !NOT_AN_OUTCOME.test(after) ? after : outcomeForArms(text, s.start, start);
    // "For overall survival, the log HR was …": the clause before the comma names it.
    const comma = /,\s*(?:the\s+|a\s+|an\s+)?$/i.exec(text.slice(s.start, start));
    if (!outcome && comma) outcome = outcomeForArms(text, s.start, s.start + comma.index);
    const data: EffectData = isLog
      ? { kind: "estimate-se", estimate, se, scale: "log" }
      : { kind: "estimate-se", estimate, se };
    out.push({
      outcome,
      measure: kind.measure,
      ...(kind.reportedMeasure ? { reportedMeasure: kind.reportedMeasure } : {}),
      data,
      quote: { start, end: start + m[0].length },
      sentenceStart: s.start,
      comparison: null,
      timepoint: null,
      isPooledEstimate: false,
      ...(kind.ratio && !isLog && !g.seScale ? { seScaleUnstated: true } : {}),
    });
  }
  return out;
}

const int = parseNumber;
const decimal = parseNumber;
/** Percentage points as a proportion, without binary noise (−5.2 → −0.052). */
const percent = (x: number) => Number((x / 100).toPrecision(12));

/** One effect statement: the data, its outcome phrase (raw) and the quote's offsets. */
export interface Found {
  outcome: string;
  measure: Measure;
  reportedMeasure?: "HR" | "IRR";
  data: EffectData;
  quote: { start: number; end: number };
  /** Sentence start, for outcome lookup. */
  sentenceStart: number;
  comparison: string | null;
  timepoint: string | null;
  isPooledEstimate: boolean;
  /** True when the phrase names nothing measured (app/lib/extraction isVagueOutcome). */
  outcomeVague?: boolean;
  /** An SE beside a natural-scale ratio that the text does not say is the SE of the log ratio. */
  seScaleUnstated?: boolean;
}

/** How a grammar measure becomes a row: the pooled measure and the ratio reported, if another. */
const GRAMMAR_TO_MEASURE: Partial<Record<MeasureCode, { measure: Measure; reportedMeasure?: "HR" | "IRR" }>> = {
  RR: { measure: "RR" },
  OR: { measure: "OR" },
  HR: { measure: "RR", reportedMeasure: "HR" },
  IRR: { measure: "RR", reportedMeasure: "IRR" },
  MD: { measure: "MD" },
  SMD: { measure: "SMD" },
  RD: { measure: "RD" },
};

/**
 * The reported estimates of a text that can become rows: a measure escalc pools from an estimate
 * and its CI (ratios, risk and mean differences, SMDs) with a 95% interval (or one whose level is
 * not stated). A risk difference in percentage points is stored as a proportion, as escalc
 * computes RD.
 */
function estimatesAsRows(text: string, title: string, sentences: readonly SentenceSpan[]): Found[] {
  const out: Found[] = [];
  for (const e of extractEffects(text, { title, sentences })) {
    const map = e.measure ? GRAMMAR_TO_MEASURE[e.measure] : undefined;
    if (!map) continue;
    if (e.level !== null && Math.abs(e.level - 95) > 1e-9) continue;
    out.push({
      outcome: e.outcome,
      measure: map.measure,
      ...(map.reportedMeasure ? { reportedMeasure: map.reportedMeasure } : {}),
      data: rowData(map.measure, e),
      quote: { start: e.start, end: e.end },
      sentenceStart: e.sentence.start,
      comparison: e.comparison,
      timepoint: e.timepoint,
      isPooledEstimate: e.isPooledEstimate,
      outcomeVague: e.outcomeVague,
    });
  }
  return out;
}

function rowData(measure: Measure, e: ExtractedEffect): EffectData {
  const pct = measure === "RD" && (e.estimate.percent || e.lower.percent);
  const v = (x: number) => (pct ? percent(x) : x);
  return { kind: "estimate-ci", estimate: v(e.estimate.value), lower: v(e.lower.value), upper: v(e.upper.value) };
}

/**
 * Every effect statement found in a text, in text order, before one-row-per-outcome selection:
 * arm-level counts and means, then the reported estimates with their intervals (see
 * {@link estimatesAsRows}); an estimate inside an arm-level statement is not repeated. `sentences`
 * are the text's sentences (a document part's shared list, `partSentences`); by default the core splitter's.
 */
export function findEffectData(
  text: string,
  title = "",
  sentences: readonly SentenceSpan[] = splitSentences(text),
): Found[] {
  const found: Found[] = [];
  // Issue 26 round 15 (report-se): a notation the text declares once ("Data are presented as mean ± SEM").
  const seDeclared = CORRECTIONS_ON.includes("report-se") && declaredNotation(sentences.map((s) => s.text)).se !== null;
  // Arm-level data first: they are preferred over the estimate reported for the same sentence.
  for (const s of sentences) {
    // Rates: events over person-time per arm → incidence rate ratio (never a 2×2).
    const hasRates = PERSON_TIME_ANY.test(s.text);
    for (const m of hasRates ? s.text.matchAll(RATES) : []) {
      let [e1, t1, e2, t2] = [int(m[1]!), decimal(m[2]!), int(m[3]!), decimal(m[4]!)];
      if (firstArmIsControl(m[0], m[2]!, m[4]!, s.text.slice(m.index! + m[0].length)))
        [e1, t1, e2, t2] = [e2, t2, e1, t1];
      if (!(t1 > 0 && t2 > 0) || (e1 === 0 && e2 === 0)) continue;
      const start = s.start + m.index!;
      found.push({
        outcome: outcomeForArms(text, s.start, start),
        measure: "RR",
        reportedMeasure: "IRR",
        data: { kind: "rates", events1: e1, time1: t1, events2: e2, time2: t2 },
        quote: { start, end: start + m[0].length },
        sentenceStart: s.start,
        comparison: null,
        timepoint: null,
        isPooledEstimate: false,
      });
    }
    // O − E and its variance (time-to-event data, Peto) → log hazard ratio.
    for (const m of /\bO\s*[−–-]\s*E\b/u.test(s.text) ? s.text.matchAll(OE_VAR) : []) {
      const oe = decimal(m[1]!);
      const v = decimal(m[2]!);
      if (!(v > 0)) continue;
      const start = s.start + m.index!;
      found.push({
        outcome: outcomeForArms(text, s.start, start),
        measure: "RR",
        reportedMeasure: "HR",
        data: { kind: "oe-var", oe, v },
        quote: { start, end: start + m[0].length },
        sentenceStart: s.start,
        comparison: null,
        timepoint: null,
        isPooledEstimate: false,
      });
    }
    // An estimate with its standard error (generic inverse variance).
    if (/\bSE\b|S\.E\.|s\.e\.|standard\s+error/i.test(s.text)) found.push(...seStatements(text, s));
    const ratesHere = found.filter((f) => f.sentenceStart === s.start);
    for (const pair of armPairs(s.text, seDeclared)) {
      const start = s.start + pair.first.start;
      const end = s.start + pair.second.end + pair.secondTail;
      if (ratesHere.some((f) => f.quote.start < end && start < f.quote.end)) continue;
      const tail = s.text.slice(pair.second.end + pair.secondTail);
      if (hasRates && PERSON_TIME_AFTER.test(tail)) continue;
      const matched = s.text.slice(pair.first.start, pair.second.end + pair.secondTail);
      const firstEnd = s.text.slice(pair.first.start, pair.first.end + pair.firstTail);
      const secondEnd = s.text.slice(pair.second.start, pair.second.end + pair.secondTail);
      // Arm 1 is the intervention: swap when the first arm is named as the control
      // ("73 of 411 patients assigned to placebo and 57 of 411 assigned to aspirin").
      const swap = firstArmIsControl(matched, firstEnd, secondEnd, tail);
      const [a1, a2] = swap ? [pair.b, pair.a] : [pair.a, pair.b];
      const outcome = outcomeForArms(text, s.start, start);
      const base = {
        outcome,
        quote: { start, end },
        sentenceStart: s.start,
        comparison: null,
        timepoint: null,
        isPooledEstimate: false,
      };
      if (a1.kind === "counts" && a2.kind === "counts") {
        // A reported ratio in the same sentence names the measure; RR otherwise.
        const measure: Measure = /\b(?:OR|odds\s+ratio)\b/i.test(tail.slice(0, 120)) ? "OR" : "RR";
        found.push({
          ...base,
          measure,
          data: { kind: "counts", events1: a1.events, n1: a1.n, events2: a2.events, n2: a2.n },
        });
      } else if (a1.kind === "means" && a2.kind === "means") {
        found.push({
          ...base,
          measure: "MD",
          data: { kind: "means", mean1: a1.mean, sd1: a1.sd, n1: a1.n, mean2: a2.mean, sd2: a2.sd, n2: a2.n },
        });
      }
    }
  }
  // Only arm-level statements hide an estimate: list items of one measure share the quote's start ("sHR of 0.22 (…), 0.53 (…)").
  const arms = [...found];
  for (const f of estimatesAsRows(text, title, sentences)) {
    if (arms.some((a) => a.quote.start <= f.quote.start && f.quote.start < a.quote.end)) continue;
    found.push(f);
  }
  return found.sort((a, b) => a.quote.start - b.quote.start);
}

type ArmValue = { kind: "counts"; events: number; n: number } | { kind: "means"; mean: number; sd: number; n: number };

/** One arm's value as the meta-analysis needs it: events of a group size, or mean, SD and group size. */
function armValue(v: ProseValue, after: string): { value: ArmValue; tail: number } | null {
  const st = v.stats;
  if (
    st.kind === "count" &&
    st.events !== undefined &&
    st.groupSize !== undefined &&
    st.groupSize > 0 &&
    st.events <= st.groupSize
  ) {
    return { value: { kind: "counts", events: st.events, n: st.groupSize }, tail: 0 };
  }
  if (st.kind === "continuous" && st.mean !== undefined && st.sd !== undefined && st.sd >= 0) {
    const n = GROUP_SIZE_AFTER.exec(after);
    if (n) return { value: { kind: "means", mean: st.mean, sd: st.sd, n: parseNumber(n[1]!) }, tail: n[0].length };
  }
  return null;
}

/**
 * Two arms' values of one statement, read by app/lib/arms (`proseValues`, the arm-level prose
 * reader): consecutive values of the same kind joined by "vs", "versus", "and", "compared with/to"
 * or "with" and at most a short group name ("12/100 vs 20/98", "12 of 100 patients given the drug
 * and 20 of 98 given placebo", "5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28)"). Offsets are into `sentence`;
 * `firstTail`/`secondTail` extend an arm over its "(n = …)". `seDeclared` (issue 26 round 15, report-se): the text
 * declares its data as mean ± SE(M) elsewhere, so an "a ± b" with no notation in its own sentence is not an SD and
 * gives no mean/SD pair (this path needs an SD).
 */
function armPairs(
  sentence: string,
  seDeclared = false,
): { a: ArmValue; b: ArmValue; first: ProseValue; second: ProseValue; firstTail: number; secondTail: number }[] {
  // Two numbers joined by a connector, or there is no pair to read (most sentences of a full text).
  if (!MAY_JOIN_ARMS.test(sentence)) return [];
  const values = proseValues(sentence, hintsOf(sentence)).filter((v) => !(seDeclared && v.unlabelled));
  const out: ReturnType<typeof armPairs> = [];
  for (let i = 0; i + 1 < values.length; i++) {
    const first = values[i]!;
    const second = values[i + 1]!;
    const a = armValue(first, sentence.slice(first.end));
    const b = armValue(second, sentence.slice(second.end));
    if (!a || !b || a.value.kind !== b.value.kind) continue;
    if (!ARMS_JOINED.test(sentence.slice(first.end + a.tail, second.start))) continue;
    out.push({ a: a.value, b: b.value, first, second, firstTail: a.tail, secondTail: b.tail });
    i++;
  }
  return out;
}

const CONTROL_WORDS =
  /\b(?:placebo|control|usual\s+care|standard\s+care|sham|no\s+treatment|untreated|unexposed|comparator)\b/i;

/**
 * True when the words after the first arm's numbers name a control group and the words after
 * the second arm's (up to 40 characters of `following` text) do not. `firstEnd`/`secondEnd` are
 * the raw numbers that end each arm in `match`.
 */
function firstArmIsControl(match: string, firstEnd: string, secondEnd: string, following: string): boolean {
  const firstAt = match.indexOf(firstEnd) + firstEnd.length;
  const secondAt = match.lastIndexOf(secondEnd);
  const between = match.slice(firstAt, secondAt);
  const after = following.slice(0, 40).split(/[;.]/)[0]!;
  return CONTROL_WORDS.test(between) && !CONTROL_WORDS.test(after);
}

/** Outcome for arm-level data: the phrase before the first arm, else the primary outcome. */
function outcomeForArms(text: string, sentenceStart: number, armStart: number): string {
  const before = text.slice(sentenceStart, armStart);
  const cut = Math.max(
    before.lastIndexOf(","),
    before.lastIndexOf(";"),
    before.lastIndexOf("("),
    before.lastIndexOf(")"),
  );
  let clause = before.slice(cut + 1);
  // "primary outcome: 90 [8%] of 1088 vs …" names the outcome before the colon.
  const colon = clause.lastIndexOf(":");
  if (colon !== -1) clause = clause.slice(0, colon);
  clause = clause.replace(
    /\s+\b(?:occurred|recurred|happened|died|was|were|in|with|among|reported|developed|had|of)\b.*$/is,
    "",
  );
  const tidy = tidyPhrase(clause);
  return tidy && !NOT_AN_OUTCOME.test(tidy) ? lowerInitial(tidy) : "";
}

/** What a row is called when its sentence names no outcome and the study names no primary outcome. */
export const UNNAMED_OUTCOME = "unnamed outcome";

/** The numbers of an effect, so the same effect stated twice (abstract and results, results and table) is recognised. */
function numbersKey(measure: string, data: EffectData): string {
  switch (data.kind) {
    case "counts":
      return `${measure}|c|${data.events1}/${data.n1}|${data.events2}/${data.n2}`;
    case "means":
      return `${measure}|m|${data.mean1}|${data.sd1}|${data.n1}|${data.mean2}|${data.sd2}|${data.n2}`;
    case "estimate-ci":
      return `${measure}|e|${data.estimate}|${data.lower}|${data.upper}`;
    default:
      return `${measure}|${JSON.stringify(data)}`;
  }
}

/** Reasons a row's outcome phrase is uncertain (shown to the reviewer in `outcomeUncertain`). */
export const UNCERTAIN_OUTCOME = {
  vague: "the sentence names no outcome of its own for this effect",
  shared: "another effect of this study with different numbers has the same outcome phrase",
  seScale:
    "the text gives a standard error beside the ratio without saying it is the SE of the log ratio; check its scale",
} as const;

/**
 * Extracts effect data from one study's document (built once from its source by the extraction
 * core: `studyDocument` or `reportDocument`). The abstract part first; the full-text part is read
 * too and adds what the abstract lacks; quote offsets are into the part they were read from. Each row carries the outcome phrase from its own sentence
 * (else the outcome the study names as primary, else {@link UNNAMED_OUTCOME}, which never pools
 * automatically), its comparison, timepoint and whether it is the study's own pooled result.
 * Every distinct effect becomes a row: two statements merge only when they are the same effect
 * stated twice (results and conclusion, abstract and full text) — the same measure and the same
 * numbers — and the merged row keeps every quote. A row whose outcome phrase is uncertain (vague, or shared with a different effect of
 * the study) carries the reason in `outcomeUncertain`, so the
 * reviewer names it; such rows are not pooled automatically (group.ts).
 * Returns no rows and an ExcludedStudy reason when nothing usable is found.
 */
export function extractEffectRows(
  document: StudyDocument,
  studyId: string,
): { rows: ExtractedStudyData[]; excluded: ExcludedStudy | null } {
  const title = document.title;
  // Each part is read with its sentences from the document's one shared list (documentSentences), never split again.
  const sources: { text: string; source: SupportingQuote["source"]; sentences: SentenceSpan[] }[] = [];
  for (const kind of ["abstract", "fullText"] as const) {
    const part = partOf(document, kind);
    if (part?.text.trim()) sources.push({ text: part.text, source: kind, sentences: partSentences(document, kind) });
  }
  if (sources.length === 0) return { rows: [], excluded: { studyId, title, reason: NO_TEXT_REASON } };

  const design = classifyDesign(title, sources.map((s) => s.text).join("\n"));
  const rows: ExtractedStudyData[] = [];
  const byNumbers = new Map<string, ExtractedStudyData>();
  for (const { text, source, sentences } of sources) {
    const indexed = sentences.map((s, index) => ({ ...s, index }));
    const primary = extractOutcomes(text, indexed).find((o) => o.kind !== "secondary");
    const fallback = primary ? lowerInitial(tidyPhrase(primary.outcome.quote, 8)) : "";
    const size = pickSampleSize(extractSampleSizes(text, indexed));
    for (const f of findEffectData(text, title, sentences)) {
      const own = f.outcome && !f.outcomeVague && !isVagueOutcome(f.outcome) ? f.outcome : "";
      const outcome = own || fallback || f.outcome || UNNAMED_OUTCOME;
      const quote: SupportingQuote = {
        quote: text.slice(f.quote.start, f.quote.end),
        start: f.quote.start,
        end: f.quote.end,
        source,
      };
      const key = numbersKey(f.reportedMeasure ?? f.measure, f.data);
      const same = byNumbers.get(key);
      if (same) {
        same.quotes.push(quote);
        // The restatement may name the outcome the first statement left vague.
        if (own && same.outcomeUncertain === UNCERTAIN_OUTCOME.vague) {
          same.outcome = own;
          delete same.outcomeUncertain;
        }
        continue;
      }
      const armN = f.data.kind === "counts" || f.data.kind === "means" ? f.data.n1 + f.data.n2 : null;
      // The study's primary outcome stands in for a sentence that names none (as before); a vague phrase is marked.
      const vague = own || (fallback && outcome === fallback) ? null : UNCERTAIN_OUTCOME.vague;
      const uncertain = f.seScaleUnstated
        ? vague
          ? `${UNCERTAIN_OUTCOME.seScale}; ${vague}`
          : UNCERTAIN_OUTCOME.seScale
        : vague;
      const row: ExtractedStudyData = {
        studyId,
        title,
        outcome,
        measure: f.measure,
        ...(f.reportedMeasure ? { reportedMeasure: f.reportedMeasure } : {}),
        data: f.data,
        quotes: [quote],
        extractedBy: RULES_EXTRACTOR,
        design,
        totalN: armN ?? size?.value ?? null,
        comparison: f.comparison,
        timepoint: f.timepoint,
        isPooledEstimate: f.isPooledEstimate,
        ...(uncertain ? { outcomeUncertain: uncertain } : {}),
      };
      rows.push(row);
      byNumbers.set(key, row);
    }
  }
  markSharedPhrases(rows);
  if (rows.length === 0) {
    const reason =
      sources.length > 1
        ? `${NO_DATA_REASON} or the full text`
        : sources[0]!.source === "fullText"
          ? NO_DATA_REASON.replace("the abstract", "the full text")
          : NO_DATA_REASON;
    return { rows: [], excluded: { studyId, title, reason } };
  }
  return { rows, excluded: null };
}

/**
 * Marks rows of one study that share an outcome phrase, measure, comparison and timepoint with a
 * row of different numbers (two effects the text words alike): the phrase does not tell them
 * apart, so the reviewer must (`outcomeUncertain` = shared).
 */
function markSharedPhrases(rows: ExtractedStudyData[]): void {
  const groups = new Map<string, ExtractedStudyData[]>();
  for (const r of rows) {
    const key = [
      normaliseOutcomePhrase(r.outcome),
      r.reportedMeasure ?? r.measure,
      r.comparison ?? "",
      r.timepoint ?? "",
    ].join("|");
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const list of groups.values()) {
    if (list.length < 2) continue;
    for (const r of list) r.outcomeUncertain ??= UNCERTAIN_OUTCOME.shared;
  }
}

/**
 * The rules on a study as the meta-analysis routes receive it: {@link extractEffectRows} of its
 * document (title, abstract, `fullTextAnalysis` as the full-text part).
 */
export function extractStudyByRules(
  study: MetaStudyInput,
  index: number,
): { rows: ExtractedStudyData[]; excluded: ExcludedStudy | null } {
  return extractEffectRows(
    studyDocument({ title: study.title, abstract: study.abstract, fullText: study.fullTextAnalysis }),
    studyKey(study, index),
  );
}

/** {@link extractStudyByRules} over a list of studies. */
export function extractByRules(studies: readonly MetaStudyInput[]): ExtractionResult {
  const extracted: ExtractedStudyData[] = [];
  const excluded: ExcludedStudy[] = [];
  studies.forEach((study, i) => {
    const { rows, excluded: ex } = extractStudyByRules(study, i);
    extracted.push(...rows);
    if (ex) excluded.push(ex);
  });
  return { extracted, excluded };
}
