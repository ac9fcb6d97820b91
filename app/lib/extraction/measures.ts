/**
 * Lexicon of effect measures as abstracts name them: abbreviations ("aOR", "sHR", "WMD"), long
 * names ("adjusted odds ratio", "difference in means", "area under the receiver operating
 * characteristic curve") and symbols ("β", "r"). Pure data and matching over tokens.
 */
import type { Token } from "./tokens.ts";

/** Measure codes of extracted estimates. */
export type MeasureCode =
  "OR" | "RR" | "HR" | "IRR" | "RD" | "MD" | "SMD" | "B" | "r" | "ICC" | "PROP" | "AUC" | "SENS" | "SPEC" | "OTHER";

/** Families that decide what can pool with what. */
export type MeasureFamily =
  "ratio" | "difference" | "smd" | "regression" | "correlation" | "proportion" | "diagnostic" | "other";

export const MEASURE_FAMILY: Record<MeasureCode, MeasureFamily> = {
  OR: "ratio",
  RR: "ratio",
  HR: "ratio",
  IRR: "ratio",
  RD: "difference",
  MD: "difference",
  SMD: "smd",
  B: "regression",
  r: "correlation",
  ICC: "correlation",
  PROP: "proportion",
  AUC: "diagnostic",
  SENS: "diagnostic",
  SPEC: "diagnostic",
  OTHER: "other",
};

/** Human names, for labels and messages. */
export const MEASURE_NAMES: Record<MeasureCode, string> = {
  OR: "odds ratio",
  RR: "risk ratio",
  HR: "hazard ratio",
  IRR: "rate ratio",
  RD: "risk difference",
  MD: "mean difference",
  SMD: "standardised mean difference",
  B: "regression coefficient",
  r: "correlation coefficient",
  ICC: "intraclass correlation coefficient",
  PROP: "proportion",
  AUC: "area under the curve",
  SENS: "sensitivity",
  SPEC: "specificity",
  OTHER: "estimate",
};

/** Abbreviations, matched on the exact source text (case matters: "OR" is not "or"). */
const ABBREVIATIONS: Record<string, MeasureCode> = {
  OR: "OR",
  ORs: "OR",
  aOR: "OR",
  AOR: "OR",
  aORs: "OR",
  cOR: "OR",
  DOR: "OR",
  POR: "OR",
  mOR: "OR",
  RR: "RR",
  RRs: "RR",
  aRR: "RR",
  ARR: "RR",
  PR: "RR",
  aPR: "RR",
  PRs: "RR",
  RRR: "OTHER",
  HR: "HR",
  HRs: "HR",
  aHR: "HR",
  AHR: "HR",
  sHR: "HR",
  SHR: "HR",
  csHR: "HR",
  sHRs: "HR",
  IRR: "IRR",
  IRRs: "IRR",
  aIRR: "IRR",
  RaR: "IRR",
  RD: "RD",
  ARD: "RD",
  aRD: "RD",
  MD: "MD",
  WMD: "MD",
  MDs: "MD",
  WMDs: "MD",
  aMD: "MD",
  AMD: "MD",
  SMD: "SMD",
  SMDs: "SMD",
  ES: "SMD",
  B: "B",
  b: "B",
  β: "B",
  "β-coefficient": "B",
  r: "r",
  ρ: "r",
  rho: "r",
  rs: "r",
  ICC: "ICC",
  AUC: "AUC",
  AUROC: "AUC",
  AUCs: "AUC",
  ROC: "AUC",
  IC50: "OTHER",
  EC50: "OTHER",
  ED50: "OTHER",
};

/** Multi-word names, as lower-case word sequences (hyphenated words split), longest first. */
const PHRASES: [string[], MeasureCode][] = (
  [
    ["adjusted odds ratio", "OR"],
    ["odds ratio", "OR"],
    ["odds ratios", "OR"],
    ["odd ratio", "OR"],
    ["odds-ratio", "OR"],
    ["relative risk", "RR"],
    ["relative risks", "RR"],
    ["risk ratio", "RR"],
    ["risk ratios", "RR"],
    ["prevalence ratio", "RR"],
    ["relative rate", "IRR"],
    ["hazard ratio", "HR"],
    ["hazard ratios", "HR"],
    ["subdistribution hazard ratio", "HR"],
    ["subdistribution hazard ratios", "HR"],
    ["incidence rate ratio", "IRR"],
    ["incidence rate ratios", "IRR"],
    ["rate ratio", "IRR"],
    ["rate ratios", "IRR"],
    ["incidence ratio", "IRR"],
    ["risk difference", "RD"],
    ["risk differences", "RD"],
    ["absolute risk difference", "RD"],
    ["absolute difference", "RD"],
    ["absolute risk reduction", "RD"],
    ["percentage point difference", "RD"],
    ["percentage-point difference", "RD"],
    ["standardized mean difference", "SMD"],
    ["standardised mean difference", "SMD"],
    ["standard mean difference", "SMD"],
    ["standardized mean differences", "SMD"],
    ["standardised mean differences", "SMD"],
    ["hedges g", "SMD"],
    ["hedges' g", "SMD"],
    ["hedges’ g", "SMD"],
    ["cohen's d", "SMD"],
    ["cohen’s d", "SMD"],
    ["cohens d", "SMD"],
    ["effect size", "SMD"],
    ["effect sizes", "SMD"],
    ["weighted mean difference", "MD"],
    ["weight mean difference", "MD"],
    ["mean difference", "MD"],
    ["mean differences", "MD"],
    ["difference in means", "MD"],
    ["difference in adjusted means", "MD"],
    ["difference in mean", "MD"],
    ["mean change difference", "MD"],
    ["between-group difference", "MD"],
    ["between group difference", "MD"],
    ["treatment difference", "MD"],
    ["adjusted difference", "MD"],
    ["difference", "MD"],
    ["regression coefficient", "B"],
    ["regression coefficients", "B"],
    ["beta coefficient", "B"],
    ["coefficient", "B"],
    ["probit estimates", "B"],
    ["beta", "B"],
    ["slope", "B"],
    ["intraclass correlation coefficient", "ICC"],
    ["intra-class correlation coefficient", "ICC"],
    ["intraclass correlation", "ICC"],
    ["correlation coefficient", "r"],
    ["correlation coefficients", "r"],
    ["correlation", "r"],
    ["pearson's r", "r"],
    ["spearman's rho", "r"],
    ["area under the receiver operating characteristic curve", "AUC"],
    ["area under the roc curve", "AUC"],
    ["area under the curve", "AUC"],
    ["c-statistic", "AUC"],
    ["c statistic", "AUC"],
    ["c-index", "AUC"],
    ["concordance index", "AUC"],
    ["sensitivity", "SENS"],
    ["specificity", "SPEC"],
    ["pooled prevalence", "PROP"],
    ["prevalence", "PROP"],
    ["proportion", "PROP"],
    ["pooled proportion", "PROP"],
    ["cumulative incidence", "PROP"],
    ["incidence", "PROP"],
    ["percentage", "PROP"],
    ["ic 50", "OTHER"],
  ] as [string, MeasureCode][]
)
  .map(([p, c]) => [p.split(/[\s-]+/), c] as [string[], MeasureCode])
  .sort((a, b) => b[0].length - a[0].length);

/** Phrases by their first word, so matching at a token looks only at candidates. */
const PHRASES_BY_FIRST = new Map<string, [string[], MeasureCode][]>();
for (const entry of PHRASES) {
  const list = PHRASES_BY_FIRST.get(entry[0][0]!) ?? [];
  list.push(entry);
  PHRASES_BY_FIRST.set(entry[0][0]!, list);
}

/** A measure named in the text: tokens [from, to) and the code. */
export interface MeasureMention {
  code: MeasureCode;
  from: number;
  to: number;
  start: number;
  end: number;
  /** Named in full words (not an abbreviation). */
  words: boolean;
}

/** A hyphen of any of the three kinds PHRASES are split on. */
function hasHyphen(norm: string): boolean {
  return norm.includes("-") || norm.includes("‐") || norm.includes("‑");
}

/** ABBREVIATIONS as a Map: own keys only (a word such as "constructor" is not a measure), and looked up per token. */
const ABBREVIATION_CODES = new Map<string, MeasureCode>(Object.entries(ABBREVIATIONS));

/** Splits a token's normalised text on hyphens, as PHRASES are written. */
function parts(t: Token): string[] {
  if (!hasHyphen(t.norm)) return [t.norm];
  return t.norm.split(/[-‐‑]+/).filter(Boolean);
}

/**
 * The measure named at token `i`, or null. Abbreviations match case-sensitively; phrases match
 * on lower-case words (hyphenated words count as their parts).
 */
export function measureAt(tokens: readonly Token[], i: number): MeasureMention | null {
  const t = tokens[i]!;
  if (t.kind !== "word" && !(t.kind === "other" && (t.text === "β" || t.text === "ρ"))) return null;
  const abbr = ABBREVIATION_CODES.get(t.text);
  if (abbr) {
    // One-letter symbols ("B", "b", "r") only as labels: "B = -0.08", "r: 0.4".
    if (t.text.length === 1 && !/^[=:,]$/.test(tokens[i + 1]?.text ?? "")) return null;
    return { code: abbr, from: i, to: i + 1, start: t.start, end: t.end, words: false };
  }
  if (t.text === "IC" && tokens[i + 1]?.kind === "num" && tokens[i + 1]!.value === 50) {
    return { code: "OTHER", from: i, to: i + 2, start: t.start, end: tokens[i + 1]!.end, words: false };
  }
  // Phrase matching over the words starting at i.
  const first = hasHyphen(t.norm) ? (parts(t)[0] ?? "") : t.norm;
  const candidates = PHRASES_BY_FIRST.get(first);
  if (!candidates) return null;
  // The longest candidate comes first; one word more shows whether it ends on a token boundary.
  const wanted = candidates[0]![0].length + 1;
  const words: { w: string; tok: number }[] = [];
  for (let k = i; k < tokens.length && words.length < wanted; k++) {
    const tk = tokens[k]!;
    if (tk.kind !== "word") break;
    for (const p of parts(tk)) words.push({ w: p, tok: k });
  }
  if (words.length === 0) return null;
  for (const [phrase, code] of candidates) {
    if (phrase.length > words.length) continue;
    let ok = true;
    for (let k = 0; k < phrase.length; k++) {
      if (words[k]!.w !== phrase[k]) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    const lastTok = words[phrase.length - 1]!.tok;
    // A phrase must end on a token boundary.
    if (words[phrase.length]?.tok === lastTok) continue;
    return { code, from: i, to: lastTok + 1, start: t.start, end: tokens[lastTok]!.end, words: true };
  }
  return null;
}

/** True for measure codes whose estimate and bounds must be positive. */
export function isRatio(code: MeasureCode | null): boolean {
  return code === "OR" || code === "RR" || code === "HR" || code === "IRR";
}
