/**
 * The analysis runner: extracted (or user-edited) rows → grouped analyses with pooled numbers,
 * small-study tests, sensitivity analysis, GRADE, PRISMA counts and a template narrative. Pure:
 * no I/O, deterministic for its input.
 *
 * Statistics come from the engine in app/lib/meta-analysis (metafor's conventions: escalc, rma,
 * regtest, ranktest, trimfill, leave1out). Defaults follow current Cochrane guidance: REML
 * estimate of tau² with the Hartung–Knapp(–Sidik–Jonkman) adjustment.
 *
 * Degenerate input never produces NaN: a study whose numbers cannot give an effect size (all-zero
 * arms on a ratio measure, a non-positive SD or variance, a CI that does not contain its estimate,
 * events above the group size, …) is left out of that analysis with the reason in `notes`; an
 * outcome left with fewer than 2 studies is listed in `unpooled`; tests that need more studies
 * are null with the reason in `notes`; a Hartung–Knapp adjustment that is not defined (identical
 * estimates) falls back to the z-test with a note.
 */
import { sensitivityAnalyses } from "~/lib/meta-analysis/sensitivity";
import { escalc, leave1out, ranktest, regtest, rma, trimfill } from "~/lib/meta-analysis";
import type {
  BeggTest,
  EffectSize,
  EggerTest,
  ExcludedStudy,
  GenqWeights,
  ExtractedStudyData,
  LeaveOneOutRow,
  Measure,
  MetaAnalysisJobResult,
  Method,
  OutcomeAnalysis,
  PooledResult,
  PrismaCounts,
  TestType,
  TrimFillResult,
  UnpooledOutcome,
} from "~/lib/meta-analysis/types";
import {
  MIN_K_SMALL_STUDY_TESTS,
  outcomeCertainty,
  type GradeOptions,
  type SofOptions,
} from "~/lib/meta-analysis/certainty";
import { riskOfBiasSensitivity } from "./rob-sensitivity";
import { groupRows, measureName, type AnalysisGroup } from "./group";
import { buildTemplateNarrative } from "./narrative";
import { agree, counted, withArticle } from "~/lib/wording";

/** Analysis options of a request; defaults REML + Hartung–Knapp. */
export interface RunOptions {
  measure?: Measure;
  method?: Method;
  test?: TestType;
  /** GENQ/GENQM: the weights' rule (default inverse-variance; see GenqWeights). Ignored by other estimators. */
  genqWeights?: GenqWeights;
  /** Summary of Findings: the assumed control risk (proportion); default the pooled control risk. */
  summaryOfFindings?: SofOptions;
  /** The reviewer's GRADE inputs (see {@link GradeOptions}). */
  grade?: GradeOptions;
}

export type { GradeOptions } from "~/lib/meta-analysis/certainty";

/**
 * PRISMA counts sent with the job. A systematic review (issue 13) sends its whole flow from the
 * reviewers' decisions (`review`), which is then used as it is.
 */
export interface PrismaInput {
  identified: Record<string, number>;
  duplicatesRemoved: number;
  screened: number;
  review?: {
    excluded: number;
    awaitingScreening?: number;
    maybe?: number;
    soughtForRetrieval: number;
    notRetrieved: number;
    assessed: number;
    awaitingFullText?: number;
    fullTextMaybe?: number;
    excludedWithReasons: Record<string, number>;
    included: number;
  };
  /** A living review's updated-review counts; `newFlow` has the same shape as this input, with `review`. */
  updated?: {
    updates: number;
    lastUpdateAt: string | null;
    previousStudies: number;
    totalStudies: number;
    newFlow: Omit<PrismaInput, "updated"> & { review: NonNullable<PrismaInput["review"]> };
  };
}

export const DEFAULT_METHOD: Method = "REML";
export const DEFAULT_TEST: TestType = "knha";
export { MIN_K_SMALL_STUDY_TESTS };

/** I² (%) above which a pooled result of few studies gets a warning (Cochrane Handbook 10.10.2: 75–100% "considerable"). */
export const HIGH_I2 = 75;
/** Most studies for which {@link HIGH_I2} triggers the warning. */
export const HIGH_I2_MAX_K = 3;

/** Effect label of a study in plots: its title, shortened. */
export function studyLabel(title: string): string {
  const t = title.replace(/\s+/g, " ").trim();
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}

const RATIO: readonly Measure[] = ["RR", "OR", "ROM"];

/**
 * Why a row cannot give an effect size in `measure`, or null when it can. Checks the cases
 * escalc would reject or that would give a meaningless or infinite effect.
 */
export function rowProblem(row: ExtractedStudyData, measure: Measure): string | null {
  const d = row.data;
  const finite = (...xs: number[]) => xs.every((x) => Number.isFinite(x));
  switch (d.kind) {
    case "counts": {
      if (!finite(d.events1, d.n1, d.events2, d.n2)) return "its event counts are not numbers";
      if (d.n1 <= 0 || d.n2 <= 0) return "a group size is zero or negative";
      if (d.events1 < 0 || d.events2 < 0) return "an event count is negative";
      if (d.events1 > d.n1 || d.events2 > d.n2) return "an event count is larger than its group";
      if ((measure === "RR" || measure === "OR") && d.events1 === 0 && d.events2 === 0) {
        return "no events in either arm: a study with zero events in both arms carries no information on a ratio (Cochrane Handbook 10.4.4.2)";
      }
      if ((measure === "RR" || measure === "OR") && d.events1 === d.n1 && d.events2 === d.n2) {
        return "every participant had the event in both arms, which carries no information on a ratio";
      }
      if (measure !== "RR" && measure !== "OR" && measure !== "RD") return `counts cannot give a ${measure}`;
      return null;
    }
    case "means": {
      if (!finite(d.mean1, d.sd1, d.n1, d.mean2, d.sd2, d.n2)) return "its means or SDs are not numbers";
      if (d.sd1 < 0 || d.sd2 < 0) return "a standard deviation is negative";
      if (d.sd1 === 0 || d.sd2 === 0) return "a standard deviation is zero (zero variance)";
      if (d.n1 < 2 || d.n2 < 2) return "a group has fewer than 2 participants";
      if (measure === "ROM" && (d.mean1 <= 0 || d.mean2 <= 0)) return "a ratio of means needs positive means";
      if (measure !== "MD" && measure !== "SMD" && measure !== "ROM") return `means cannot give a ${measure}`;
      return null;
    }
    case "estimate-ci": {
      if (!finite(d.estimate, d.lower, d.upper)) return "its estimate or CI is not a number";
      if (d.lower >= d.upper) return "its confidence interval has no width (zero variance) or is reversed";
      if (RATIO.includes(measure) && (d.estimate <= 0 || d.lower <= 0)) return "a ratio and its CI must be positive";
      if (d.estimate < d.lower || d.estimate > d.upper) {
        return `its confidence interval (${d.lower} to ${d.upper}) does not contain the estimate ${d.estimate}; check the numbers against the quote`;
      }
      return null;
    }
    case "yi-vi": {
      if (!finite(d.yi, d.vi)) return "its effect size or variance is not a number";
      if (d.vi <= 0) return "its sampling variance is zero or negative";
      return null;
    }
    case "estimate-se": {
      if (!finite(d.estimate, d.se)) return "its estimate or standard error is not a number";
      if (d.se <= 0) return "its standard error is zero or negative";
      if (RATIO.includes(measure) && d.scale !== "log" && d.estimate <= 0) return "a ratio must be positive";
      return null;
    }
    case "rates": {
      if (!finite(d.events1, d.time1, d.events2, d.time2)) return "its events or person-time are not numbers";
      if (measure !== "RR") return `events and person-time give a rate ratio, not a ${measure}`;
      if (d.events1 < 0 || d.events2 < 0) return "an event count is negative";
      if (d.time1 <= 0 || d.time2 <= 0) return "a person-time is zero or negative";
      if (d.events1 === 0 && d.events2 === 0) return "no events in either arm: the rate ratio is not estimable";
      return null;
    }
    case "oe-var": {
      if (!finite(d.oe, d.v)) return "its O − E or variance is not a number";
      if (measure !== "RR") return `O − E and variance give a hazard ratio, not a ${measure}`;
      if (d.v <= 0) return "its variance V is zero or negative";
      return null;
    }
  }
}

/** True when every number of a pooled result that must be finite is finite. */
function poolIsFinite(p: PooledResult): boolean {
  return (
    [p.estimate, p.se, p.ci_lb, p.ci_ub, p.pi_lb, p.pi_ub, p.tau2, p.I2, p.H2, p.QE].every(Number.isFinite) && p.se > 0
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs one group: effect sizes, pooled model, tests, GRADE. Null (with reason) when < 2 usable. */
export function analyseGroup(
  group: AnalysisGroup,
  options: Required<Pick<RunOptions, "method" | "test">> &
    Pick<RunOptions, "genqWeights" | "summaryOfFindings" | "grade">,
): { analysis: OutcomeAnalysis } | { unpooled: UnpooledOutcome } {
  const notes = [...group.notes];
  const used: { row: ExtractedStudyData; effect: EffectSize }[] = [];
  for (const row of group.rows) {
    const problem = rowProblem(row, group.measure);
    if (problem) {
      notes.push(`"${studyLabel(row.title)}" left out: ${problem}.`);
      continue;
    }
    try {
      const effect = escalc(group.measure, row.data);
      if (!Number.isFinite(effect.yi) || !Number.isFinite(effect.vi) || effect.vi <= 0) {
        notes.push(`"${studyLabel(row.title)}" left out: its effect size or variance is not estimable.`);
        continue;
      }
      used.push({ row, effect });
    } catch (error) {
      notes.push(`"${studyLabel(row.title)}" left out: ${errorText(error)}.`);
    }
  }
  const base = {
    outcome: group.outcome,
    measure: group.measure,
    ...(group.reportedMeasure ? { reportedMeasure: group.reportedMeasure } : {}),
  };
  if (used.length < 2) {
    return {
      unpooled: {
        ...base,
        studyIds: used.map((u) => u.row.studyId),
        reason:
          `${used.length === 0 ? "None" : `Only ${used.length}`} of the ${counted(group.rows.length, "study")} reporting ${group.outcome} as ${withArticle(measureName(group))} ${agree(used.length === 0 ? 1 : used.length, "has", "have")} usable numbers; at least 2 are needed to pool. ${notes.join(" ")}`.trim(),
      },
    };
  }
  const effects = used.map((u) => u.effect);
  const labels = used.map((u) => studyLabel(u.row.title));
  const identical = effects.every((e) => e.yi === effects[0]!.yi);
  if (identical)
    notes.push(
      "All studies have the same effect size: heterogeneity is zero by construction; check for duplicate reports.",
    );

  let test = options.test;
  // GENQ/GENQM: weights by rule from each fit's own studies, so leave-one-out, trim and fill, Egger's test
  // and the sensitivity re-runs weight every study as the main analysis does (metafor weights[subset])
  const genq = options.method === "GENQ" || options.method === "GENQM";
  const control = genq ? { weightScheme: options.genqWeights ?? "inverse-variance" } : undefined;
  let pooled: PooledResult;
  try {
    pooled = rma(effects, { measure: group.measure, method: options.method, test, control });
    if (!poolIsFinite(pooled) && test === "knha") {
      test = "z";
      notes.push(
        "The Hartung–Knapp adjustment is not defined here (the studies' estimates do not vary around the pooled estimate); the z-test is used instead.",
      );
      pooled = rma(effects, { measure: group.measure, method: options.method, test, control });
    }
  } catch (error) {
    return {
      unpooled: {
        ...base,
        studyIds: used.map((u) => u.row.studyId),
        reason: `The model could not be fitted: ${errorText(error)}.`,
      },
    };
  }
  if (!poolIsFinite(pooled)) {
    return {
      unpooled: {
        ...base,
        studyIds: used.map((u) => u.row.studyId),
        reason: "The pooled estimate is not estimable from these numbers (zero or infinite variance).",
      },
    };
  }

  const k = effects.length;
  if (pooled.I2 > HIGH_I2 && k <= HIGH_I2_MAX_K) {
    notes.push(
      `Warning: I² is ${pooled.I2.toFixed(0)}% with only ${k} studies. Heterogeneity this high in so few studies often means they do not measure the same outcome, comparison or timepoint; check the rows (split them into separate pool groups if they differ) before trusting the pooled estimate.`,
    );
  }
  const opts = { measure: group.measure, method: options.method, test, control };
  let egger: EggerTest | null = null;
  let begg: BeggTest | null = null;
  let filled: TrimFillResult | null = null;
  let leaveOneOut: LeaveOneOutRow[] = [];
  if (k < MIN_K_SMALL_STUDY_TESTS) {
    notes.push(
      `Egger's and Begg's tests, trim and fill and leave-one-out need at least ${MIN_K_SMALL_STUDY_TESTS} studies (k = ${k}).`,
    );
  } else if (identical) {
    notes.push("Egger's and Begg's tests and trim and fill are not defined when all effect sizes are identical.");
    leaveOneOut = safe(() => leave1out(effects, opts, labels), "Leave-one-out", notes) ?? [];
  } else {
    egger = safe(() => finiteOrNull(regtest(effects, opts)), "Egger's test", notes);
    begg = safe(() => finiteOrNull(ranktest(effects)), "Begg's test", notes);
    filled = safe(
      () => trimfill(effects, { measure: group.measure, method: options.method, control }),
      "Trim and fill",
      notes,
    );
    leaveOneOut = safe(() => leave1out(effects, opts, labels), "Leave-one-out", notes) ?? [];
  }
  const rows = used.map((u) => u.row);
  const certainty = outcomeCertainty(
    { ...base, pooled, egger, rows, effects },
    options.grade,
    options.summaryOfFindings,
  );
  if (certainty.note) notes.push(certainty.note);
  const { grade, robGiven, robJudgements } = certainty;
  const analysis: OutcomeAnalysis = {
    ...pooled,
    ...base,
    studyIds: rows.map((r) => r.studyId),
    effects: used.map((u, i) => ({ ...u.effect, studyId: u.row.studyId, label: labels[i]! })),
    egger,
    begg,
    trimfill: filled,
    leaveOneOut,
    grade,
    summaryOfFindings: certainty.summaryOfFindings,
    notes,
  };
  if (robJudgements && robJudgements.some((j) => j !== null)) {
    analysis.riskOfBias = robJudgements;
    if (robGiven!.some((j) => j !== null && typeof j !== "string")) {
      analysis.riskOfBiasDomains = robGiven!.map((j) => (j !== null && typeof j !== "string" ? j : null));
    }
    analysis.riskOfBiasSensitivity = riskOfBiasSensitivity(
      used.map((u) => ({ ...u.effect, studyId: u.row.studyId })),
      robJudgements,
      pooled,
      opts,
    );
  }
  if (k >= 2) analysis.sensitivity = sensitivityAnalyses(analysis);
  return { analysis };
}

/** Runs `fn`; on a throw or a non-finite answer records why in `notes` and returns null. */
function safe<T>(fn: () => T | null, what: string, notes: string[]): T | null {
  try {
    const value = fn();
    if (value === null) notes.push(`${what} is not estimable for these studies.`);
    return value;
  } catch (error) {
    notes.push(`${what} could not be computed: ${errorText(error)}.`);
    return null;
  }
}

function finiteOrNull<T extends object>(value: T): T | null {
  return Object.values(value).every((v) => typeof v !== "number" || Number.isFinite(v)) ? value : null;
}

/**
 * PRISMA 2020 flow counts. From a systematic review (`prisma.review`): the review's own counts,
 * unchanged, and a living review's updated-review counts (`prisma.updated`: previous studies, the
 * updates' flow, the total; PRISMA 2020's template for updated reviews), unchanged. Otherwise identification and screening from `prisma`, the rest
 * from this analysis — reports assessed = studies sent, reports excluded = studies without usable
 * data grouped by reason, included = studies with extracted data, records excluded at screening
 * = screened − assessed (never below 0). Null without `prisma`.
 */
export function prismaCounts(
  prisma: PrismaInput | undefined,
  studyCount: number,
  excluded: readonly ExcludedStudy[],
  extracted: readonly ExtractedStudyData[],
): PrismaCounts | null {
  if (!prisma) return null;
  if (prisma.review) {
    const r = prisma.review;
    const u = prisma.updated;
    return {
      ...(u
        ? {
            updated: {
              updates: u.updates,
              lastUpdateAt: u.lastUpdateAt,
              previousStudies: u.previousStudies,
              totalStudies: u.totalStudies,
              newFlow: prismaCounts(u.newFlow, studyCount, excluded, extracted)!,
            },
          }
        : {}),
      identified: { ...prisma.identified },
      duplicatesRemoved: prisma.duplicatesRemoved,
      screened: prisma.screened,
      excluded: r.excluded,
      ...(r.awaitingScreening === undefined ? {} : { awaitingScreening: r.awaitingScreening }),
      ...(r.maybe === undefined ? {} : { maybe: r.maybe }),
      sought: r.soughtForRetrieval,
      notRetrieved: r.notRetrieved,
      reportsAssessed: r.assessed,
      ...(r.awaitingFullText === undefined ? {} : { awaitingFullText: r.awaitingFullText }),
      ...(r.fullTextMaybe === undefined ? {} : { fullTextMaybe: r.fullTextMaybe }),
      reportsExcluded: Object.entries(r.excludedWithReasons).map(([reason, count]) => ({ reason, count })),
      included: r.included,
    };
  }
  const reasons = new Map<string, number>();
  for (const e of excluded) reasons.set(e.reason, (reasons.get(e.reason) ?? 0) + 1);
  const included = new Set(extracted.map((r) => r.studyId)).size;
  return {
    identified: { ...prisma.identified },
    duplicatesRemoved: prisma.duplicatesRemoved,
    screened: prisma.screened,
    excluded: Math.max(0, prisma.screened - studyCount),
    reportsAssessed: studyCount,
    reportsExcluded: [...reasons].map(([reason, count]) => ({ reason, count })),
    included,
  };
}

/**
 * Runs the whole meta-analysis for extracted (or user-edited) rows.
 *
 * @param input.studyCount number of studies sent (PRISMA "reports assessed").
 * @param input.extracted rows to pool (ExtractedStudyData, analysis-ready).
 * @param input.excluded studies already left out with reasons (no usable data).
 * @returns the job result; `narrative` is the template narrative (see narrative.ts).
 */
export function runMetaAnalysis(
  input: {
    studyCount: number;
    extracted: ExtractedStudyData[];
    excluded: ExcludedStudy[];
    prisma?: PrismaInput;
    model: string;
  },
  options: RunOptions = {},
): MetaAnalysisJobResult {
  const method = options.method ?? DEFAULT_METHOD;
  const test = options.test ?? DEFAULT_TEST;
  const { groups, single } = groupRows(input.extracted, { measure: options.measure });
  const analyses: OutcomeAnalysis[] = [];
  const unpooled: UnpooledOutcome[] = [...single];
  for (const group of groups) {
    const outcome = analyseGroup(group, {
      method,
      test,
      genqWeights: options.genqWeights,
      summaryOfFindings: options.summaryOfFindings,
      grade: options.grade,
    });
    if ("analysis" in outcome) analyses.push(outcome.analysis);
    else unpooled.push(outcome.unpooled);
  }
  const result: MetaAnalysisJobResult = {
    extracted: input.extracted,
    excluded: input.excluded,
    analyses,
    unpooled,
    prisma: prismaCounts(input.prisma, input.studyCount, input.excluded, input.extracted),
    narrative: {},
    model: input.model,
  };
  result.narrative = buildTemplateNarrative(result);
  return result;
}
