/**
 * Named sensitivity re-runs of a pooled analysis (issue 29, item 3; Cochrane Handbook 10.14):
 * fixed (equal) effects vs random effects, another τ² estimator, and without the studies metafor's
 * influence() flags as influential. Each is rma() on the analysis's effects (inverse variance,
 * the analysis's test for random-effects models). Pure; runs on the server (job result) and in
 * the browser (a review's Analysis tab).
 */
import { isCommonEffect } from "./display.ts";
import { MetaInputError } from "./errors.ts";
import type { ExploredAnalysis } from "./explore.ts";
import { influence } from "./influence.ts";
import { analysisModelOptions } from "./metareg.ts";
import { rma } from "./rma.ts";
import type { Method, SensitivityRun } from "./types.ts";

export type { SensitivityRun } from "./types.ts";

function run(
  a: ExploredAnalysis,
  key: SensitivityRun["key"],
  label: string,
  keep: number[],
  method: Method,
  note: string | null,
): SensitivityRun {
  const base = {
    key,
    label,
    method,
    test: isCommonEffect(method) ? ("z" as const) : a.test,
    studies: keep.length,
    left_out: a.effects.filter((_, i) => !keep.includes(i)).map((e) => e.label),
  };
  if (keep.length < 2)
    return {
      ...base,
      estimate: null,
      ci_lb: null,
      ci_ub: null,
      tau2: null,
      I2: null,
      note: note ?? "Fewer than 2 studies remain.",
    };
  try {
    const r = rma(
      keep.map((i) => ({ yi: a.effects[i]!.yi, vi: a.effects[i]!.vi })),
      {
        measure: a.measure,
        method,
        test: base.test,
        ...(a.genqWeights && method === a.method ? { control: { weightScheme: a.genqWeights } } : {}),
      },
    );
    return { ...base, estimate: r.estimate, ci_lb: r.ci_lb, ci_ub: r.ci_ub, tau2: r.tau2, I2: r.I2, note };
  } catch (e) {
    if (!(e instanceof MetaInputError)) throw e;
    return { ...base, estimate: null, ci_lb: null, ci_ub: null, tau2: null, I2: null, note: e.message };
  }
}

/**
 * The main analysis and its re-runs, in this order: main; the other model (equal effects when the
 * main analysis is random effects, else REML random effects); another τ² estimator (DerSimonian–
 * Laird, or REML when the main one is DL; random-effects analyses only); without influential
 * studies (metafor influence(): needs 3 studies; the row says when none is influential).
 */
export function sensitivityAnalyses(a: ExploredAnalysis): SensitivityRun[] {
  const all = a.effects.map((_, i) => i);
  const out: SensitivityRun[] = [
    {
      key: "main",
      label: "Main analysis",
      method: a.method,
      test: a.test,
      studies: a.k,
      left_out: [],
      estimate: a.estimate,
      ci_lb: a.ci_lb,
      ci_ub: a.ci_ub,
      tau2: a.tau2,
      I2: a.I2,
      note: null,
    },
  ];
  if (a.effects.length < 2) return out;
  const common = isCommonEffect(a.method);
  out.push(
    common
      ? run(a, "model", "Random effects (REML)", all, "REML", null)
      : run(a, "model", "Fixed (equal) effects", all, "EE", null),
  );
  if (!common) {
    const other: Method = a.method === "DL" ? "REML" : "DL";
    out.push(run(a, "estimator", `Another τ² estimator (${other})`, all, other, null));
  }
  if (a.effects.length >= 3) {
    try {
      const inf = influence(
        a.effects.map((e) => e.yi),
        a.effects.map((e) => e.vi),
        null,
        analysisModelOptions(a),
      ).inf;
      const keep = all.filter((i) => !inf[i]);
      if (keep.length === all.length) {
        out.push({
          key: "influential",
          label: "Without influential studies",
          method: a.method,
          test: a.test,
          studies: a.k,
          left_out: [],
          estimate: null,
          ci_lb: null,
          ci_ub: null,
          tau2: null,
          I2: null,
          note: "No study is influential by metafor's criteria; nothing to leave out.",
        });
      } else out.push(run(a, "influential", "Without influential studies", keep, a.method, null));
    } catch (e) {
      if (!(e instanceof MetaInputError)) throw e;
    }
  }
  return out;
}
