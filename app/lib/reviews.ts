/**
 * Systematic reviews (issue 13): the API shapes the server returns and the pages read, and small
 * pure helpers both sides use (PRISMA counts for the diagram, criteria-term highlighting).
 */
import type { PrismaCounts, ReviewFlowInput, ReviewPrismaInput } from "~/lib/meta-analysis/types";
import { isEvidenceTerm } from "~/lib/screening/evidence-terms";
import { sStem } from "~/lib/screening/tokenize";

import type { ReviewRole, ScreeningSettings, Vote } from "./team";
import type { StoppingCriterion } from "~/lib/screening";

export type ScreeningStage = "title_abstract" | "full_text";
export type ScreeningDecision = "include" | "exclude" | "maybe";

/** The exclusion reason that marks a report as not retrieved (PRISMA "reports not retrieved"). */
export const NOT_RETRIEVED_REASON = "Full text not retrievable";

/**
 * The title a record imported without one is stored and shown with (issue 27). De-duplication
 * never matches records by it: only their DOI or PMID can merge them.
 */
export const NO_TITLE = "[No title]";

/** A problem with one record of an imported file that did not stop its import (1-based line). */
export interface ImportWarning {
  line: number;
  message: string;
}

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
  /** The caller's role (issue 30) and whether they may resolve screening conflicts. */
  role: ReviewRole;
  resolver: boolean;
  /** Screening of both stages: one decision per record, or two independent (blind) votes. */
  screening: ScreeningSettings;
  /** Data extraction (issue 30): one extractor, or two independent ones with consensus values. */
  extraction: { mode: "single" | "dual" };
  /** RoB 2 assessment (issue 30): one assessor, or two independent ones and a consensus. */
  riskOfBias: { mode: "single" | "dual" };
  /** Living review: the schedule its searches are re-run on (null: not living) and the next update (ISO). */
  living: { schedule: "weekly" | "monthly" | null; nextRunAt: string | null };
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
  /**
   * Dual screening only: the current votes per stage the caller may see — their own, and
   * everyone's when the review is not blind (the conflicts queue shows both once both are cast).
   */
  votes?: { titleAbstract: Vote[]; fullText: Vote[] };
}

/** Progress of a stage from the final decisions; `voted`: the caller's own votes (dual screening). */
export interface ScreeningProgress {
  screened: number;
  total: number;
  included: number;
  voted?: number;
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
/** PRISMA 2020 flow counts of a review's records (see app/.server/reviews/prisma.ts). */
export interface ReviewPrismaFlow {
  identified: Record<string, number>;
  duplicatesRemoved: number;
  screened: number;
  excluded: number;
  /** Unique records without a title/abstract decision yet. */
  awaitingScreening: number;
  /** Unique records marked 'maybe' at title/abstract (screened, neither excluded nor sought). */
  maybe: number;
  soughtForRetrieval: number;
  notRetrieved: number;
  assessed: number;
  /** Reports sought for retrieval without a full-text decision yet. */
  awaitingFullText: number;
  /** Reports marked 'maybe' at full text (assessed, neither excluded nor included). */
  fullTextMaybe: number;
  excludedWithReasons: Record<string, number>;
  included: number;
}

/**
 * The counts of PRISMA 2020's flow diagram for updated reviews: studies included before (and
 * outside) the living updates, the flow of the records the updates identified, and the total.
 */
export interface UpdatedReviewPrisma {
  /** Living updates run (finished or failed). */
  updates: number;
  lastUpdateAt: string | null;
  previousStudies: number;
  newFlow: ReviewPrismaFlow;
  totalStudies: number;
}

/** A review's PRISMA 2020 flow; `updated` once it has had living updates (absent before). */
export interface ReviewPrisma extends ReviewPrismaFlow {
  updated?: UpdatedReviewPrisma | null;
}

/** The review's PRISMA counts in the shape of the diagram and the meta-analysis report. */
export function prismaCountsFromReview(p: ReviewPrismaFlow): PrismaCounts {
  return {
    identified: { ...p.identified },
    duplicatesRemoved: p.duplicatesRemoved,
    screened: p.screened,
    excluded: p.excluded,
    awaitingScreening: p.awaitingScreening,
    maybe: p.maybe,
    sought: p.soughtForRetrieval,
    notRetrieved: p.notRetrieved,
    reportsAssessed: p.assessed,
    awaitingFullText: p.awaitingFullText,
    fullTextMaybe: p.fullTextMaybe,
    reportsExcluded: Object.entries(p.excludedWithReasons).map(([reason, count]) => ({ reason, count })),
    included: p.included,
  };
}

/**
 * The PRISMA counts a meta-analysis job opened from a review carries (POST
 * /api/meta-analysis/enhanced `prisma`): the whole review's flow, and for a living review with
 * updates the updated-review counts (previous studies, the updates' flow, the total) that the
 * PRISMA tab draws, so the report draws the same diagram.
 */
export function jobPrismaFromReview(p: ReviewPrisma): ReviewPrismaInput {
  const flow = (
    f: ReviewPrismaFlow,
  ): { identified: Record<string, number>; duplicatesRemoved: number; screened: number; review: ReviewFlowInput } => ({
    identified: { ...f.identified },
    duplicatesRemoved: f.duplicatesRemoved,
    screened: f.screened,
    review: {
      excluded: f.excluded,
      awaitingScreening: f.awaitingScreening,
      maybe: f.maybe,
      soughtForRetrieval: f.soughtForRetrieval,
      notRetrieved: f.notRetrieved,
      assessed: f.assessed,
      awaitingFullText: f.awaitingFullText,
      fullTextMaybe: f.fullTextMaybe,
      excludedWithReasons: { ...f.excludedWithReasons },
      included: f.included,
    },
  });
  const u = p.updated;
  return {
    ...flow(p),
    ...(u
      ? {
          updated: {
            updates: u.updates,
            lastUpdateAt: u.lastUpdateAt,
            previousStudies: u.previousStudies,
            totalStudies: u.totalStudies,
            newFlow: flow(u.newFlow),
          },
        }
      : {}),
  };
}

const STOP = new Set(
  "a an and are as at be by for from has have in into is it its of on or not than that the their this to was were with without who whom which versus vs people study studies".split(
    " ",
  ),
);

/**
 * Words of the question and inclusion criteria worth highlighting in an abstract: lower-case,
 * at least 4 letters (or 3 with a digit), stop words and words that are no evidence of the topic
 * (units, statistics, quantifiers: isEvidenceTerm) dropped, unique, longest first.
 */
export function criteriaTerms(texts: readonly (string | null | undefined)[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const w of (t ?? "").toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []) {
      if (STOP.has(w) || !isEvidenceTerm(sStem(w))) continue;
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

/** At most how many records adding a search to a review fetches: each answering database's hits, up to 500 each. */
export function recordsToAdd(providers: Record<string, { status: string; totalCount: number } | undefined>): number {
  return searchImportPlan(providers).upTo;
}

/**
 * What adding a search to a review will fetch, per answering database: `upTo` = min(hits, 500).
 * A maximum, not a promise: a database may return fewer records than it reports, and records
 * already in the review are merged as duplicates, so the import's own count is what was added.
 */
export function searchImportPlan(providers: Record<string, { status: string; totalCount: number } | undefined>): {
  databases: { provider: string; hits: number; upTo: number }[];
  upTo: number;
} {
  const databases = Object.entries(providers)
    .filter(
      (e): e is [string, { status: string; totalCount: number }] =>
        !!e[1] && e[1].status === "ok" && e[1].totalCount > 0,
    )
    .map(([provider, p]) => ({
      provider,
      hits: p.totalCount,
      upTo: Math.min(p.totalCount, SEARCH_IMPORT_PER_DATABASE),
    }));
  return { databases, upTo: databases.reduce((n, d) => n + d.upTo, 0) };
}
