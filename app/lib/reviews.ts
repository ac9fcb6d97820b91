/**
 * Systematic reviews (issue 13): the API shapes the server returns and the pages read, and small
 * pure helpers both sides use (PRISMA counts for the diagram, criteria-term highlighting).
 */
import type { PrismaCounts } from "~/lib/meta-analysis/types";
import type { StoppingCriterion } from "~/lib/screening";

export type ScreeningStage = "title_abstract" | "full_text";
export type ScreeningDecision = "include" | "exclude" | "maybe";

/** The exclusion reason that marks a report as not retrieved (PRISMA "reports not retrieved"). */
export const NOT_RETRIEVED_REASON = "Full text not retrievable";

/** Exclusion reasons a new review starts with (the user edits the list). */
export const DEFAULT_EXCLUSION_REASONS = [
  "Wrong population",
  "Wrong intervention",
  "Wrong comparator",
  "Wrong outcome",
  "Wrong study design",
  "Not a primary study",
  "Not in the language of the review",
  NOT_RETRIEVED_REASON,
];

export interface ReviewQuestion {
  text?: string;
  population?: string;
  intervention?: string;
  comparator?: string;
  outcomes?: string;
}

/** A review as the API returns it. */
export interface ApiReview {
  id: string;
  title: string;
  question: ReviewQuestion;
  criteria: { inclusion: string[]; exclusion: string[] };
  exclusionReasons: string[];
  createdAt: string;
  updatedAt: string;
  counts: { records: number; duplicates: number; screened: number; included: number; fullTextIncluded: number };
}

export interface ApiReviewSource {
  id: string;
  kind: "file" | "search" | "uploads";
  name: string;
  format: string | null;
  query: string | null;
  createdAt: string;
  recordCount: number;
  /** Records of this source currently merged into another record. */
  duplicatesRemoved: number;
  details: Record<string, unknown>;
}

/** One record in GET /api/reviews/{id}/records (contract fields first). */
export interface ApiReviewRecord {
  id: number;
  title: string;
  abstract: string | null;
  doi: string | null;
  year: number | null;
  /** title_abstract until included there, then full_text. */
  stage: ScreeningStage;
  /** The decision at `stage`, null when undecided. */
  decision: ScreeningDecision | null;
  reason: string | null;
  authors: string[];
  journal: string | null;
  pmid: string | null;
  origin: string;
  sourceId: string;
  titleAbstract: { decision: ScreeningDecision | null; reason: string | null };
  fullText: { decision: ScreeningDecision | null; reason: string | null; attached: boolean; url: string | null };
  duplicateOf: number | null;
  duplicateReason: string | null;
  suggestion: ScreeningSuggestion | null;
}

export interface ScreeningProgress {
  screened: number;
  total: number;
  included: number;
}

/** GET /api/reviews/{id}/screening/next. */
export interface ScreeningNext {
  record: {
    id: number;
    title: string;
    abstract: string | null;
    doi: string | null;
    year: number | null;
    score: number;
    journal: string | null;
    authors: string[];
    terms: string[];
    suggestion: ScreeningSuggestion | null;
  } | null;
  progress: ScreeningProgress;
  mode: "prior" | "active" | null;
  /**
   * Legacy point estimate of relevant records still unscreened (null before the model is trained);
   * not calibrated — superseded by `stopping`, no longer shown.
   */
  estimatedRelevantRemaining: number | null;
  /**
   * The stopping criterion (hypergeometric test of Callaghan & Müller-Hansen 2020) on the
   * title/abstract decisions so far; null until the review has a ranking.
   */
  stopping: ScreeningStopping | null;
  /** Exclusions since the last inclusion, in screening order. */
  consecutiveExclusions: number;
}

/**
 * GET …/screening/next `stopping`: whether recall ≥ recallTarget is shown at the confidence
 * (`reached`, and after how many decisions), the test's p-value, and the lower confidence bound on
 * recall with the matching upper bound on relevant records left (null while the evidence only
 * supports the trivial bound). Decisions 'maybe' count as unscreened.
 */
export type ScreeningStopping = StoppingCriterion;

/** The language model's second-screener opinion on one record: never a decision. */
export interface ScreeningSuggestion {
  decision: ScreeningDecision;
  reasons: { quote: string; from: "abstract" | "criteria" }[];
  model: string;
}

/** GET /api/reviews/{id}/prisma. */
export interface ReviewPrisma {
  identified: Record<string, number>;
  duplicatesRemoved: number;
  screened: number;
  excluded: number;
  soughtForRetrieval: number;
  notRetrieved: number;
  assessed: number;
  excludedWithReasons: Record<string, number>;
  included: number;
}

/** The review's PRISMA counts in the shape of the diagram and the meta-analysis report. */
export function prismaCountsFromReview(p: ReviewPrisma): PrismaCounts {
  return {
    identified: { ...p.identified },
    duplicatesRemoved: p.duplicatesRemoved,
    screened: p.screened,
    excluded: p.excluded,
    sought: p.soughtForRetrieval,
    notRetrieved: p.notRetrieved,
    reportsAssessed: p.assessed,
    reportsExcluded: Object.entries(p.excludedWithReasons).map(([reason, count]) => ({ reason, count })),
    included: p.included,
  };
}

const STOP = new Set(
  "a an and are as at be by for from has have in into is it its of on or not than that the their this to was were with without who whom which versus vs people study studies".split(
    " ",
  ),
);

/**
 * Words of the question and inclusion criteria worth highlighting in an abstract: lower-case,
 * at least 4 letters (or 3 with a digit), stop words dropped, unique, longest first.
 */
export function criteriaTerms(texts: readonly (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const w of (t ?? "").toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []) {
      if (STOP.has(w)) continue;
      if (w.length >= 4 || (w.length === 3 && /\d/.test(w))) out.add(w);
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * Splits text into parts, marking those that match a term (case-insensitive; a term matches a
 * word that starts with it, so "randomi" matches "randomised"). For rendering `<mark>`s.
 */
export function highlightParts(text: string, terms: readonly string[]): { text: string; hit: boolean }[] {
  const usable = terms.filter((t) => t.length >= 3).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (usable.length === 0 || !text) return [{ text, hit: false }];
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${usable.join("|")})[\\p{L}\\p{N}]*`, "giu");
  const parts: { text: string; hit: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index), hit: false });
    parts.push({ text: m[0], hit: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), hit: false });
  return parts;
}

/** Records per database a search import brings in ('All available'). */
export const SEARCH_IMPORT_PER_DATABASE = 500;

/** How many records 'Add all results' brings in: each answering database's hits, up to 500 each. */
export function recordsToAdd(providers: Record<string, { status: string; totalCount: number } | undefined>): number {
  return Object.values(providers).reduce((n, p) => n + (p && p.status === "ok" ? Math.min(p.totalCount, SEARCH_IMPORT_PER_DATABASE) : 0), 0);
}
