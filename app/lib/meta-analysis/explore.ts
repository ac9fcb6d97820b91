/**
 * Subgroup analysis in the product (issue 29): which study characteristics can split an analysis's
 * studies into subgroups, the subgroup analysis itself on the engine (subgroup.ts), and the words
 * the page, the report and the narrative use for its test. Pure; runs in the browser and on the server.
 */
import { fmt, fmtPct, pText } from "./display.ts";
import { MetaInputError } from "./errors.ts";
import { analysisModelOptions, dummyColumns, metaRegression, type MetaRegressionResult } from "./metareg.ts";
import { subgroupAnalysis, type SubgroupResult } from "./subgroup.ts";
import { genqWeightsFor } from "./tau2.ts";
import type { ExtractedStudyData, OutcomeAnalysis, PooledResult } from "./types.ts";

/**
 * What the exploration panels (subgroups, meta-regression, influence, cumulative, sensitivity) need
 * of an analysis: the pooled result, the outcome's name and the per-study effects. /meta-analysis
 * passes its OutcomeAnalysis; a review's Analysis tab builds one from its extraction.
 */
export type ExploredAnalysis = PooledResult & Pick<OutcomeAnalysis, "outcome" | "effects" | "reportedMeasure">;

/** A categorical study characteristic, one value per study of the analysis (study order). */
export interface StudyColumn {
  key: string;
  label: string;
  values: string[];
}

/** Label used for a study whose characteristic is missing. */
export const NOT_REPORTED = "Not reported";

const CANDIDATES: { key: string; label: string; get: (e: ExtractedStudyData) => string | null | undefined }[] = [
  { key: "design", label: "Study design", get: (e) => e.design },
  { key: "outcome", label: "Outcome as reported", get: (e) => e.outcome },
  { key: "comparison", label: "Comparison", get: (e) => e.comparison },
  { key: "timepoint", label: "Time point", get: (e) => e.timepoint },
  { key: "reportedMeasure", label: "Reported ratio", get: (e) => e.reportedMeasure },
];

/**
 * The study characteristics of the data table that split this analysis's studies into at least two
 * subgroups (design, outcome as reported, comparison, time point, reported ratio), with one value
 * per study of `a.effects` (missing values become "Not reported").
 */
export function subgroupColumns(
  a: Pick<OutcomeAnalysis, "effects">,
  extracted: readonly ExtractedStudyData[],
): StudyColumn[] {
  const byId = new Map<string, ExtractedStudyData>();
  for (const e of extracted) if (!byId.has(e.studyId)) byId.set(e.studyId, e);
  const out: StudyColumn[] = [];
  for (const c of CANDIDATES) {
    const values = a.effects.map((s) => {
      const row = byId.get(s.studyId);
      const v = row ? c.get(row) : null;
      return typeof v === "string" && v.trim() ? v.trim() : NOT_REPORTED;
    });
    if (new Set(values).size >= 2) out.push({ key: c.key, label: c.label, values });
  }
  return out;
}

/** A subgroup analysis ready to show: the engine's result and each subgroup's study rows. */
export interface SubgroupView {
  column: StudyColumn;
  result: SubgroupResult | null;
  /** Why it could not be computed (invalid data), else null. */
  error: string | null;
  /** Study rows per subgroup (same order as result.groups): label, yi, vi, weight within the subgroup (percent). */
  rows: { label: string; yi: number; vi: number; weight: number }[][];
}

/**
 * Subgroup analysis of an analysis's studies by `column`, with the analysis's own estimator and
 * test (inverse-variance pooling of the escalc effects; for Mantel–Haenszel or Peto analyses the
 * same effects pooled by inverse variance with the analysis's method).
 */
export function exploreSubgroups(
  a: Pick<OutcomeAnalysis, "effects" | "method" | "test" | "genqWeights">,
  column: StudyColumn,
): SubgroupView {
  const yi = a.effects.map((e) => e.yi);
  const vi = a.effects.map((e) => e.vi);
  try {
    const result = subgroupAnalysis(yi, vi, column.values, analysisModelOptions(a));
    const rows = result.groups.map((g) => {
      // study weights within the subgroup: 1/(v + τ²), or the GENQ/GENQM weights a (metafor weights())
      const w = a.genqWeights
        ? Array.from(
            genqWeightsFor(
              a.genqWeights,
              Float64Array.from(g.studies, (i) => vi[i]),
            ),
          )
        : g.studies.map((i) => 1 / (vi[i] + g.tau2));
      const sw = w.reduce((s, x) => s + x, 0);
      return g.studies.map((i, j) => ({ label: a.effects[i].label, yi: yi[i], vi: vi[i], weight: (100 * w[j]) / sw }));
    });
    return { column, result, error: null, rows };
  } catch (e) {
    if (!(e instanceof MetaInputError)) throw e;
    return { column, result: null, error: e.message, rows: [] };
  }
}

/**
 * RevMan's line under a subgroup forest plot: "Test for subgroup differences: Chi² = 3.21, df = 1
 * (p = 0.07), I² = 68.8%".
 */
export function subgroupTestText(r: SubgroupResult): string {
  if (r.df < 1) return "Test for subgroup differences: not applicable (one subgroup).";
  return `Test for subgroup differences: Chi² = ${fmt(r.Q)}, df = ${r.df} (${pText(r.p)}), I² = ${fmtPct(r.I2)}`;
}

/** The common-τ² mixed-effects model's test (metafor rma(mods = ~ factor(subgroup))), in words. */
export function mixedModelText(r: SubgroupResult, test: "z" | "knha"): string {
  if (!r.mixed) return `Mixed-effects model with a common τ²: not estimable${r.mixedNote ? ` (${r.mixedNote})` : ""}.`;
  const m = r.mixed;
  const stat =
    test === "knha" ? `F(${m.QMdf[0]}, ${m.QMdf[1]}) = ${fmt(m.QM)}` : `QM(df = ${m.QMdf[0]}) = ${fmt(m.QM)}`;
  return `Mixed-effects model with a common τ² (meta-regression on the subgroups): ${stat}, ${pText(m.QMp)}; residual τ² = ${fmt(m.tau2, 4)}.`;
}

/** The caution every subgroup analysis carries (Cochrane Handbook 10.11.2). */
export function subgroupCaveat(r: SubgroupResult): string {
  const few = r.groups.some((g) => g.k < 3);
  return (
    "Subgroup comparisons are observational: studies are not randomised to subgroups, so a difference may reflect other study characteristics." +
    (few
      ? " Some subgroups have fewer than 3 studies, so the test has little power and the subgroup estimates are imprecise."
      : "")
  );
}

/**
 * The narrative's sentence on a subgroup analysis (Cochrane Handbook 10.11.3.1 and 10.11.5.2): what
 * the test for subgroup differences shows at the 5% level, with its numbers, and its limits —
 * subgroups are observational, and the test has little power with few studies per subgroup.
 */
export function subgroupNarrative(r: SubgroupResult, columnLabel: string): string {
  const by = columnLabel.toLowerCase();
  if (r.df < 1) return `All studies fall into one subgroup by ${by}, so no subgroup difference can be tested.`;
  const sizes = r.groups.map((g) => g.k);
  const fewest = Math.min(...sizes);
  const numbers = `Chi² = ${fmt(r.Q)}, df = ${r.df}, ${pText(r.p)}; I² = ${fmtPct(r.I2)}`;
  const finding =
    r.p !== null && r.p < 0.05
      ? `The test for subgroup differences by ${by} suggests that the effect differs between the ${r.groups.length} subgroups (${numbers}).`
      : `The test for subgroup differences by ${by} found no evidence that the effect differs between the ${r.groups.length} subgroups (${numbers}); this does not show that the effect is the same in each.`;
  const limits =
    " Subgroup comparisons are observational (studies were not randomised to subgroups), so any difference may be explained by other study characteristics" +
    (fewest < 5
      ? `, and with as few as ${fewest === 1 ? "one study" : `${fewest} studies`} in a subgroup the test has little power.`
      : ".");
  return finding + limits;
}

/** A moderator the reviewer can choose: numeric (one value per study) or categorical (dummy-coded). */
export interface ModeratorColumn {
  key: string;
  label: string;
  kind: "numeric" | "categorical";
  /** Numeric: the values (null = missing); categorical: the levels per study. */
  values: (number | null)[] | string[];
}

/**
 * Moderators for a meta-regression of this analysis: the total sample size (numeric, when every
 * study reports it and it varies) and the categorical study characteristics of subgroupColumns.
 */
export function moderatorChoices(
  a: Pick<OutcomeAnalysis, "effects">,
  extracted: readonly ExtractedStudyData[],
): ModeratorColumn[] {
  const byId = new Map<string, ExtractedStudyData>();
  for (const e of extracted) if (!byId.has(e.studyId)) byId.set(e.studyId, e);
  const out: ModeratorColumn[] = [];
  const n = a.effects.map((s) => {
    const v = byId.get(s.studyId)?.totalN;
    return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
  });
  if (n.every((v) => v !== null) && new Set(n).size >= 2)
    out.push({ key: "totalN", label: "Sample size (N)", kind: "numeric", values: n });
  for (const c of subgroupColumns(a, extracted))
    out.push({ key: c.key, label: c.label, kind: "categorical", values: c.values });
  return out;
}

/** A meta-regression ready to show, with the names of its coefficients. */
export interface MetaRegressionView {
  moderators: ModeratorColumn[];
  result: MetaRegressionResult | null;
  error: string | null;
}

/**
 * The key that, in a meta-regression's selection (moderator keys chosen on the page and carried to
 * the report), asks for metafor's permutation test (permutest: 1,000 permutations, seed 1). Off
 * unless the reviewer ticks it; never a moderator column's key (those are data-table columns).
 */
export const PERMUTATION_TEST = "permutest";

/** Permutations and seed of the product's permutation test (metafor permutest's default count). */
export const PERMUTATION_SETTINGS = { iterations: 1000, seed: 1 } as const;

/**
 * Meta-regression of the analysis's effects on the chosen moderators (numeric as is, categorical
 * dummy-coded against their first level), with the analysis's estimator and test; with
 * `permutation`, also metafor's permutation p-values (PERMUTATION_SETTINGS, seeded: the same
 * numbers on the page and in the report).
 */
export function exploreMetaRegression(
  a: Pick<OutcomeAnalysis, "effects" | "method" | "test" | "genqWeights">,
  moderators: ModeratorColumn[],
  { permutation = false }: { permutation?: boolean } = {},
): MetaRegressionView {
  const yi = a.effects.map((e) => e.yi);
  const vi = a.effects.map((e) => e.vi);
  const cols: number[][] = [];
  const names: string[] = [];
  for (const m of moderators) {
    if (m.kind === "numeric") {
      cols.push((m.values as (number | null)[]).map((v) => (v === null ? Number.NaN : v)));
      names.push(m.label);
    } else {
      const d = dummyColumns(m.values as string[]);
      d.columns.forEach((c, j) => {
        cols.push(Array.from(c));
        names.push(`${m.label}: ${d.levels[j + 1]} vs ${d.levels[0]}`);
      });
    }
  }
  try {
    const result = metaRegression(yi, vi, cols, {
      ...analysisModelOptions(a),
      names,
      ...(permutation ? { permutation: PERMUTATION_SETTINGS } : {}),
    });
    return { moderators, result, error: null };
  } catch (e) {
    if (!(e instanceof MetaInputError)) throw e;
    return { moderators, result: null, error: e.message };
  }
}
