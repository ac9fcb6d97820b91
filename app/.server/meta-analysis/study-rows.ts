/**
 * The study rows behind each pooled analysis of a finished meta-analysis job: for every effect size
 * of an analysis, the extracted row (arm data, estimate with CI, or yi/vi) it was computed from.
 * Pure; shared by the R script and CSV exports (export-r.ts, export-csv.ts).
 */
import { escalc } from "~/lib/meta-analysis";
import type { EffectData, ExtractedStudyData, MetaAnalysisJobResult, OutcomeAnalysis } from "~/lib/meta-analysis/types";

/** One study of one analysis: its label, its data and the effect size the report used. */
export interface AnalysisStudyRow {
  studyId: string;
  /** The study's label in the report's plots (its title, shortened). */
  label: string;
  /**
   * The data the effect size was computed from. `yi-vi` when no extracted row reproduces the
   * report's effect size exactly (the report's yi and vi are then the data).
   */
  data: EffectData;
  /** Effect size on the analysis scale and its sampling variance, as in the report. */
  yi: number;
  vi: number;
  /** Weight in the pooled model, percent. */
  weight: number;
}

/** True when a and b agree to 1e-12 relative (the same floating-point computation, any order). */
function same(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * The study rows of `analysis`, in the report's order. A study's row is the extracted row with the
 * same study id whose data give the report's yi and vi under the analysis's measure (escalc); when
 * none does (for example a data kind the export does not know), the report's yi/vi stand in.
 */
export function analysisStudyRows(
  result: Pick<MetaAnalysisJobResult, "extracted">,
  analysis: OutcomeAnalysis,
): AnalysisStudyRow[] {
  return analysis.effects.map((effect, i) => {
    const candidates = result.extracted.filter((row) => row.studyId === effect.studyId);
    const match = candidates.find((row) => reproduces(row, analysis, effect));
    return {
      studyId: effect.studyId,
      label: effect.label,
      data: match ? match.data : { kind: "yi-vi", yi: effect.yi, vi: effect.vi },
      yi: effect.yi,
      vi: effect.vi,
      weight: analysis.weights[i] ?? Number.NaN,
    };
  });
}

function reproduces(row: ExtractedStudyData, analysis: OutcomeAnalysis, effect: { yi: number; vi: number }): boolean {
  const kind: string = row.data.kind;
  if (kind !== "counts" && kind !== "means" && kind !== "estimate-ci" && kind !== "yi-vi") return false;
  try {
    const es = escalc(analysis.measure, row.data);
    return same(es.yi, effect.yi) && same(es.vi, effect.vi);
  } catch {
    return false;
  }
}
