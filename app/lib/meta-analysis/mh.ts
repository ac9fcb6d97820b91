import { pchisq, pnorm, qnorm } from "./distributions.ts";
import { escalc } from "./escalc.ts";
import { MetaInputError } from "./errors.ts";
import { ratioOf } from "./rma.ts";
import type { EffectData, EffectSize, PooledResult } from "./types.ts";

/** A 2×2 table: events and group sizes per arm (treatment = 1, control = 2). `kind` is optional. */
export type CountsTable = Omit<Extract<EffectData, { kind: "counts" }>, "kind"> & { kind?: "counts" };

export interface MhOptions {
  measure: "OR" | "RR" | "RD";
  /** Confidence level in percent (default 95). */
  level?: number;
  /** Continuity correction of the Cochran–Mantel–Haenszel test (metafor rma.mh(correct), default true). */
  correct?: boolean;
}

interface Cells {
  a: number;
  b: number;
  c: number;
  d: number;
  n1: number;
  n2: number;
  N: number;
}

function toCells(tables: CountsTable[], measure: "OR" | "RR" | "RD"): Cells[] {
  if (!Array.isArray(tables) || tables.length < 2) {
    throw new MetaInputError(
      `At least 2 studies are needed for a meta-analysis (got ${Array.isArray(tables) ? tables.length : 0}).`,
    );
  }
  return tables.map((t, i) => {
    // escalc validates the counts (finite, 0 ≤ events ≤ n, n > 0) with a clear message.
    escalc(measure, { kind: "counts", events1: t.events1, n1: t.n1, events2: t.events2, n2: t.n2 }, { study: i });
    const a = t.events1;
    const c = t.events2;
    return { a, b: t.n1 - a, c, d: t.n2 - c, n1: t.n1, n2: t.n2, N: t.n1 + t.n2 };
  });
}

/**
 * Per-study yi/vi used for Q: escalc with add = 1/2, to = "only0", drop00 = TRUE (metafor rma.mh /
 * rma.peto first element of add/to/drop00): studies with no events (or only events) in both arms are left out.
 */
function studyEffects(cells: Cells[], measure: "OR" | "RR" | "RD"): EffectSize[] {
  return cells
    .filter((t) => !((t.a === 0 && t.c === 0) || (t.b === 0 && t.d === 0)))
    .map((t) => escalc(measure, { kind: "counts", events1: t.a, n1: t.n1, events2: t.c, n2: t.n2 }));
}

function fixedResult(
  family: "MH" | "PETO",
  measure: "OR" | "RR" | "RD",
  k: number,
  beta: number,
  se: number,
  level: number,
  Q: { QE: number; QEp: number; I2: number; H2: number },
  w: number[],
): PooledResult {
  if (!Number.isFinite(beta) || !(se > 0) || !Number.isFinite(se)) {
    throw new MetaInputError(
      `The ${family === "MH" ? "Mantel–Haenszel" : "Peto"} estimate cannot be computed from these tables (too few events).`,
    );
  }
  const crit = qnorm((1 - level / 100) / 2, false);
  const statistic = beta / se;
  const ci_lb = beta - crit * se;
  const ci_ub = beta + crit * se;
  const sw = w.reduce((s, x) => s + x, 0);
  return {
    measure,
    family,
    method: "FE",
    test: "z",
    k,
    estimate: beta,
    se,
    statistic,
    pval: 2 * pnorm(Math.abs(statistic), false),
    df: null,
    ci_lb,
    ci_ub,
    pi_lb: ci_lb,
    pi_ub: ci_ub,
    tau2: 0,
    tau2_se: null,
    tau2_ci: null,
    I2_ci: null,
    H2_ci: null,
    ...Q,
    weights: w.map((x) => (100 * x) / sw),
    ratio: ratioOf(measure, beta, ci_lb, ci_ub, ci_lb, ci_ub),
    mhTests: null,
    warnings: [],
  };
}

function qStats(QE: number, kYi: number): { QE: number; QEp: number; I2: number; H2: number } {
  if (kYi > 1) {
    return {
      QE,
      QEp: pchisq(QE, kYi - 1, false),
      I2: QE > 0 ? Math.max(0, (100 * (QE - (kYi - 1))) / QE) : 0,
      H2: QE / (kYi - 1),
    };
  }
  return { QE: 0, QEp: 1, I2: 0, H2: 1 };
}

/**
 * Mantel–Haenszel fixed-effect pooling of 2×2 tables, as metafor's rma.mh() with its defaults.
 * - OR: R = Σ a d/N, S = Σ b c/N, log OR = log(R/S); SE by Robins, Breslow & Greenland (1986).
 * - RR: log(Σ a n2/N / Σ c n1/N); SE by Greenland & Robins (1985).
 * - RD: Σ(a n2 − c n1)/N / Σ n1 n2/N; SE by Sato, Greenland & Robins (1989).
 * Pooling uses the raw counts (no continuity correction; double-zero tables contribute as they
 * are). Q = Σ w_i (y_i − β)² over the escalc effects (0.5 added to zero cells, double-zero tables
 * dropped), df = their number − 1, I² = max(0, (Q − df)/Q)·100, H² = Q/df. Weights (%) as
 * metafor's weights.rma.mh: OR b c/N, RR c n1/N, RD n1 n2/N. Estimate on the log scale for OR/RR.
 * The result has family "MH", method "FE", test "z", τ² = 0 and the PI equal to the CI; for OR,
 * `mhTests` holds the CMH, Breslow–Day and Tarone statistics.
 * Throws MetaInputError for invalid tables, k < 2, or when the estimate is undefined (e.g. no events).
 */
export function rmaMH(tables: CountsTable[], opts: MhOptions): PooledResult {
  const measure = opts.measure;
  const level = opts.level ?? 95;
  const cells = toCells(tables, measure);
  let beta: number;
  let se: number;
  let w: number[];
  if (measure === "OR") {
    let R = 0;
    let S = 0;
    let sPR = 0;
    let sPSQR = 0;
    let sQS = 0;
    for (const { a, b, c, d, N } of cells) {
      const P = a / N + d / N;
      const Q = b / N + c / N;
      const Ri = (a / N) * d;
      const Si = (b / N) * c;
      R += Ri;
      S += Si;
      sPR += P * Ri;
      sPSQR += P * Si + Q * Ri;
      sQS += Q * Si;
    }
    if (R === 0 || S === 0) {
      throw new MetaInputError(
        "The Mantel–Haenszel odds ratio is undefined for these tables (no discordant events in one direction).",
      );
    }
    beta = Math.log(R / S);
    se = Math.sqrt(0.5 * (sPR / (R * R) + sPSQR / (R * S) + sQS / (S * S)));
    w = cells.map(({ b, c, N }) => (b / N) * c);
  } else if (measure === "RR") {
    let R = 0;
    let S = 0;
    let num = 0;
    let sa = 0;
    let sc = 0;
    for (const { a, c, n1, n2, N } of cells) {
      R += a * (n2 / N);
      S += c * (n1 / N);
      num += (n1 / N) * (n2 / N) * (a + c) - (a / N) * c;
      sa += a;
      sc += c;
    }
    if (sa === 0 || sc === 0) {
      throw new MetaInputError("The Mantel–Haenszel risk ratio is undefined when one arm has no events in any study.");
    }
    beta = Math.log(R / S);
    se = Math.sqrt(num / (R * S));
    w = cells.map(({ c, n1, N }) => (c / N) * n1);
  } else {
    let num = 0;
    let den = 0;
    for (const { a, c, n1, n2, N } of cells) {
      num += a * (n2 / N) - c * (n1 / N);
      den += n1 * (n2 / N);
    }
    beta = num / den;
    let s1 = 0;
    let s2 = 0;
    for (const { a, c, n1, n2, N } of cells) {
      s1 += c * (n1 / N) ** 2 - a * (n2 / N) ** 2 + ((n1 / N) * (n2 / N) * (n2 - n1)) / 2;
      s2 += (a * (n2 - c)) / N + (c * (n1 - a)) / N;
    }
    se = Math.sqrt((beta * s1 + s2 / 2) / (den * den));
    w = cells.map(({ n1, n2, N }) => (n1 / N) * n2);
  }
  const eff = studyEffects(cells, measure);
  let QE = 0;
  for (const e of eff) QE += (e.yi - beta) ** 2 / e.vi;
  const result = fixedResult("MH", measure, cells.length, beta, se, level, qStats(Math.max(0, QE), eff.length), w);
  if (measure === "OR") result.mhTests = mhOrTests(cells, Math.exp(beta), opts.correct ?? true);
  return result;
}

/**
 * Cochran–Mantel–Haenszel test (with continuity correction unless `correct` is false, as metafor
 * rma.mh(correct)), Breslow–Day test and Tarone's correction for the MH odds ratio (Breslow & Day
 * 1980, Tarone 1985).
 */
function mhOrTests(cells: Cells[], orMH: number, correct: boolean): NonNullable<PooledResult["mhTests"]> {
  let num = 0;
  let den = 0;
  for (const { a, n1, n2, N, c, b, d } of cells) {
    const xt = a + c;
    const yt = b + d;
    num += a - (n1 / N) * xt;
    den += (n1 / N) * (n2 / N) * (xt * (yt / (N - 1)));
  }
  const CMH = (correct ? Math.abs(num) - 0.5 : num) ** 2 / den;
  let bd = 0;
  let sumDiff = 0;
  let sumVar = 0;
  let kPos = 0;
  for (const { a, c, b, d, n1, n2, N } of cells) {
    const xt = a + c;
    const yt = b + d;
    let N11: number;
    if (orMH === 1) {
      N11 = (n1 / N) * xt;
    } else {
      const A = orMH * (n1 + xt) + (n2 - xt);
      const B = Math.sqrt(A * A - 4 * n1 * xt * orMH * (orMH - 1));
      N11 = (A - B) / (2 * (orMH - 1));
    }
    if (!(N11 > 0 && xt > 0 && yt > 0)) continue;
    kPos++;
    const N12 = n1 - N11;
    const N21 = xt - N11;
    const N22 = N11 - n1 - xt + N;
    const v = 1 / (1 / N11 + 1 / N12 + 1 / N21 + 1 / N22);
    bd += (a - N11) ** 2 / v;
    sumDiff += a - N11;
    sumVar += v;
  }
  const BD = Math.max(0, bd);
  const TA = Math.max(0, BD - (sumDiff * sumDiff) / sumVar);
  return {
    CMH,
    CMHp: pchisq(CMH, 1, false),
    BD: kPos > 0 ? BD : null,
    BDp: kPos > 1 ? pchisq(BD, kPos - 1, false) : null,
    TA: kPos > 0 ? TA : null,
    TAp: kPos > 1 ? pchisq(TA, kPos - 1, false) : null,
  };
}

/**
 * Peto's one-step odds ratio (Yusuf et al. 1985), as metafor's rma.peto(): O − E = a − (a+c)n1/N,
 * V = (a+c)(b+d) n1 n2 / (N²(N−1)); log OR = Σ(O−E)/ΣV, SE = 1/√ΣV (log scale). Q = Σ(O−E)²/V −
 * (Σ(O−E))²/ΣV over tables with V > 0, df = number of tables without double-zero (or double-all)
 * arms − 1; I² = max(0, (Q − df)/Q)·100, H² = Q/df. Weights (%) ∝ V. Throws MetaInputError for
 * invalid tables, k < 2, or ΣV = 0.
 */
export function rmaPeto(tables: CountsTable[], opts: { level?: number } = {}): PooledResult {
  const level = opts.level ?? 95;
  const cells = toCells(tables, "OR");
  let sumOE = 0;
  let sumV = 0;
  let q1 = 0;
  const V = cells.map(({ a, b, c, d, n1, n2, N }) => {
    const xt = a + c;
    const yt = b + d;
    const E = (xt * n1) / N;
    const v = N > 1 ? (xt * yt * (n1 / N) * (n2 / N)) / (N - 1) : 0;
    sumOE += a - E;
    sumV += v;
    if (v > 0) q1 += (a - E) ** 2 / v;
    return v;
  });
  if (!(sumV > 0)) {
    throw new MetaInputError(
      "The Peto odds ratio is undefined for these tables (no events, or only events, in every study).",
    );
  }
  const beta = sumOE / sumV;
  const se = Math.sqrt(1 / sumV);
  const QE = Math.max(0, q1 - (sumOE * sumOE) / sumV);
  const kYi = cells.filter((t) => !((t.a === 0 && t.c === 0) || (t.b === 0 && t.d === 0))).length;
  const kPos = V.filter((v) => v > 0).length;
  const Q = kPos > 1 ? qStats(QE, kYi) : { QE, QEp: 1, I2: 0, H2: 1 };
  return fixedResult("PETO", "OR", cells.length, beta, se, level, Q, V);
}
