import { useEffect, useMemo, useState, type Dispatch, type SetStateAction } from "react";
import { rowsFromExtraction, type DataRow } from "~/lib/meta-analysis/page-logic";
import type { ExcludedStudy } from "~/lib/meta-analysis/types";
import { removeStudy, useMetaSelection } from "~/browser/meta-selection";
import {
  DEFAULT_POOL_MEASURES,
  inferGenericMeasure,
  inferPoolType,
  parsePoolChoice,
  poolChoiceKey,
  type PoolChoice,
  type ReviewOutcomeExtraction,
  reviewOutcomeRows,
} from "~/lib/review-extraction";
import { reviewsApi } from "~/browser/reviews-client";
import { robApi } from "~/browser/risk-of-bias-client";
import { gradeInputs, judgementsByOutcome } from "~/lib/risk-of-bias/job-inputs";
import type { Extraction, ReviewData, ReviewGrade, ReviewSource, RobJudgements } from "./types";

/** Shown as the extractor of rows that come from a review's Data extraction tab. */
const REVIEW_EXTRACTION_MODEL = "the review's data extraction (arm-level rules with the reviewer's corrections)";

/**
 * The type and measure a review outcome was last pooled in on the review's Data extraction tab (kept
 * in this browser), else the type its studies' data suggest (inferPoolType) in that type's default measure.
 */
function storedPoolChoice(reviewId: string, extraction: ReviewOutcomeExtraction): PoolChoice {
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(poolChoiceKey(reviewId, extraction.outcome.id));
  } catch {
    raw = null;
  }
  const type = inferPoolType(extraction.studies);
  return (
    parsePoolChoice(raw) ?? {
      type,
      measure: type === "generic" ? inferGenericMeasure(extraction.studies) : DEFAULT_POOL_MEASURES[type],
    }
  );
}

/**
 * The studies the /meta-analysis page analyses: the browser's stored selection, or with a review id
 * (?review=) the review's studies included at full text with its PRISMA flow, its Data extraction
 * (handed to `setExtraction` as the extracted table, every outcome pooled as the review's tab pools
 * it), its RoB 2 judgements and its GRADE settings. A failed load sets `reviewError`; the RoB and
 * GRADE look-ups fail quietly (null).
 */
export function useStudySelection(reviewId: string | null, setExtraction: Dispatch<SetStateAction<Extraction>>) {
  const storedSelection = useMetaSelection();
  // From a systematic review: its studies included at full text, and its PRISMA flow.
  const [fromReview, setFromReview] = useState<ReviewSource | null>(null);
  const [reviewError, setReviewError] = useState<string | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    Promise.all([
      reviewsApi.get(reviewId),
      reviewsApi.records(reviewId, { stage: "full_text", decision: "include" }),
      reviewsApi.prisma(reviewId),
    ])
      .then(([{ review }, { records }, prisma]) => {
        if (!live) return;
        setFromReview({
          title: review.title,
          prisma,
          studies: records.map((r) => ({
            id: r.id,
            title: r.title,
            authors: r.authors,
            journal: r.journal,
            publicationDate: r.year ? String(r.year) : null,
            doi: r.doi,
            pmid: r.pmid,
            abstract: r.abstract,
            source: r.origin,
          })),
        });
      })
      .catch(
        (error: unknown) =>
          live && setReviewError(error instanceof Error ? error.message : "The review could not be loaded."),
      );
    return () => {
      live = false;
    };
  }, [reviewId]);
  const selection = useMemo(
    () => (reviewId ? (fromReview?.studies ?? []) : storedSelection),
    [reviewId, fromReview, storedSelection],
  );
  const dropStudy = (id: number) =>
    reviewId
      ? setFromReview((r) => (r ? { ...r, studies: r.studies.filter((s) => s.id !== id) } : r))
      : removeStudy(id);
  // The review's own extraction: every outcome with its type, measure, values and corrections, as the Data extraction tab pools it.
  const [reviewData, setReviewData] = useState<ReviewData | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    reviewsApi
      .outcomes(reviewId)
      .then(({ outcomes }) => Promise.all(outcomes.map((o) => reviewsApi.outcomeExtraction(reviewId, o.id))))
      .then((extractions) => {
        if (!live || extractions.length === 0) return;
        const rows: DataRow[] = [];
        const excluded: ExcludedStudy[] = [];
        for (const extraction of extractions) {
          const out = reviewOutcomeRows(extraction, storedPoolChoice(reviewId, extraction));
          rows.push(...rowsFromExtraction(out.rows));
          excluded.push(...out.excluded);
        }
        setReviewData({ rows, excluded, outcomes: extractions.map((e) => e.outcome.name) });
        setExtraction({ kind: "done", rows, excluded, model: REVIEW_EXTRACTION_MODEL });
      })
      .catch(
        (error: unknown) =>
          live &&
          setReviewError(error instanceof Error ? error.message : "The review's data extraction could not be loaded."),
      );
    return () => {
      live = false;
    };
  }, [reviewId, setExtraction]);
  // The review's RoB 2 judgements (issue 28): sent with the job for GRADE, the forest plot's RoB column and the sensitivity analysis.
  const [robJudgements, setRobJudgements] = useState<RobJudgements | null>(null);
  // The review's stored GRADE settings per outcome (rating changes, rated-up levels, thresholds, assumed control risks).
  const [reviewGrade, setReviewGrade] = useState<ReviewGrade | null>(null);
  useEffect(() => {
    if (!reviewId) return;
    let live = true;
    robApi
      .overview(reviewId)
      .then((o) => live && o.assessments.length > 0 && setRobJudgements(judgementsByOutcome(o)))
      .catch(() => live && setRobJudgements(null));
    robApi
      .gradeSettings(reviewId)
      .then(({ settings }) => live && settings.length > 0 && setReviewGrade(gradeInputs(settings)))
      .catch(() => live && setReviewGrade(null));
    return () => {
      live = false;
    };
  }, [reviewId]);
  return { selection, dropStudy, fromReview, reviewError, reviewData, robJudgements, reviewGrade };
}
