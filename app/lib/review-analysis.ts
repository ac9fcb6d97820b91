/**
 * A review outcome's pooled analysis as the exploration panels read it (issue 29, review Analysis
 * tab): the pooled result of poolReviewOutcome with each pooled study's effect labelled, and the
 * review's characteristics turned into subgroup columns and moderators of exactly those studies.
 * Pure; the panels are the same as /meta-analysis's.
 */
import { analysisColumns, type CharacteristicsTable } from "./characteristics";
import type { ExploredAnalysis, ModeratorColumn, StudyColumn } from "./meta-analysis/explore";
import type { OutcomePooling } from "./review-extraction";

/** The analysis of a pooled outcome, and the record id of each of its effects (same order). */
export function reviewExploredAnalysis(
  outcome: string,
  pooling: OutcomePooling,
  years: ReadonlyMap<number, number | null> = new Map(),
): { analysis: ExploredAnalysis; recordIds: number[] } | null {
  if (!pooling.pooled) return null;
  const used = pooling.studies.filter((s) => s.yi !== null && s.vi !== null);
  const effects = used.map((s) => {
    const year = years.get(s.recordId);
    return { yi: s.yi!, vi: s.vi!, studyId: String(s.recordId), label: year ? `${s.title} (${year})` : s.title };
  });
  return { analysis: { ...pooling.pooled, outcome, effects }, recordIds: used.map((s) => s.recordId) };
}

/**
 * The characteristics that can split the analysis's studies (categorical columns with ≥ 2 levels)
 * and the moderators (those, plus numeric columns every study reports and that vary).
 */
export function reviewExplorationColumns(table: Pick<CharacteristicsTable, "columns" | "studies">, recordIds: readonly number[]): { subgroups: StudyColumn[]; moderators: ModeratorColumn[] } {
  const cols = analysisColumns(table, recordIds);
  return {
    subgroups: cols.filter((c) => c.kind === "categorical").map((c) => ({ key: c.key, label: c.label, values: c.values as string[] })),
    moderators: cols.map((c) => ({ key: c.key, label: c.label, kind: c.kind, values: c.values })),
  };
}
