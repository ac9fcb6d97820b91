/**
 * Degenerate and invalid input (one study, all-zero arms, zero variance, identical studies, negative
 * SDs, CIs that do not contain the estimate…) gets a MetaInputError with a clear message or finite
 * numbers — never NaN — and the distribution functions match R to ~1e-12.
 */
import { describe, expect, it } from "vitest";
import {
  escalc,
  hedgesJ,
  leave1out,
  MetaInputError,
  pchisq,
  pnorm,
  pt,
  qchisq,
  qnorm,
  qt,
  ranktest,
  regtest,
  rma,
  rmaMH,
  rmaPeto,
  trimfill,
  type EffectSize,
  type Method,
  type PooledResult,
} from "./index.ts";

const METHODS: Method[] = ["EE", "FE", "DL", "REML", "ML", "PM", "HS", "SJ", "HE", "EB"];

function allFinite(r: PooledResult): void {
  const numbers = [
    r.estimate,
    r.se,
    r.statistic,
    r.pval,
    r.ci_lb,
    r.ci_ub,
    r.pi_lb,
    r.pi_ub,
    r.tau2,
    r.I2,
    r.H2,
    r.QE,
    r.QEp,
    ...r.weights,
    ...(r.tau2_ci ?? []),
    ...(r.I2_ci ?? []),
    ...(r.H2_ci ?? []),
  ];
  for (const n of numbers) expect(Number.isFinite(n), `${n} is finite`).toBe(true);
  // every number anywhere in the result (nested too) is finite, so JSON keeps it
  const walk = (v: unknown): void => {
    if (typeof v === "number") expect(Number.isFinite(v), `${v} is finite`).toBe(true);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(r);
}

function expectInputError(fn: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(MetaInputError);
  expect((caught as Error).message).toMatch(message);
}

describe("escalc input checks", () => {
  it("rejects negative SDs, non-positive n, events above n and non-finite numbers", () => {
    const means = { kind: "means" as const, mean1: 10, sd1: 2, n1: 20, mean2: 12, sd2: 3, n2: 22 };
    expectInputError(() => escalc("MD", { ...means, sd1: -2 }), /Standard deviations cannot be negative/);
    expectInputError(() => escalc("SMD", { ...means, n2: 0 }), /Group sizes must be greater than 0/);
    expectInputError(() => escalc("MD", { ...means, mean1: Number.NaN }), /mean of group 1 must be a finite number/);
    const counts = { kind: "counts" as const, events1: 5, n1: 50, events2: 8, n2: 50 };
    expectInputError(() => escalc("RR", { ...counts, events1: 51 }), /Events cannot exceed the group size/);
    expectInputError(() => escalc("OR", { ...counts, events2: -1 }), /cannot be negative/);
    expectInputError(() => escalc("RR", { ...counts, n1: Infinity }), /finite number/);
    expectInputError(() => escalc("MD", counts), /Event counts give a risk ratio/);
    expectInputError(() => escalc("RR", means), /Means and SDs give/);
  });

  it("rejects zero variance and a ratio of means with non-positive means", () => {
    const zeroSd = { kind: "means" as const, mean1: 10, sd1: 0, n1: 20, mean2: 12, sd2: 0, n2: 22 };
    expectInputError(() => escalc("MD", zeroSd), /zero variance/);
    expectInputError(() => escalc("SMD", zeroSd), /pooled SD greater than 0/);
    expectInputError(() => escalc("ROM", { ...zeroSd, sd1: 1, mean2: -3 }), /positive means/);
    expectInputError(() => escalc("GEN", { kind: "yi-vi", yi: 0.2, vi: 0 }), /greater than 0/);
  });

  it("rejects a CI that does not contain its estimate, reversed limits and non-positive ratio limits", () => {
    expectInputError(
      () => escalc("RR", { kind: "estimate-ci", estimate: 0.5, lower: 0.6, upper: 0.9 }),
      /does not contain the estimate 0.5/,
    );
    expectInputError(
      () => escalc("MD", { kind: "estimate-ci", estimate: 1, lower: 2, upper: 0 }),
      /lower confidence limit must be below/,
    );
    expectInputError(
      () => escalc("OR", { kind: "estimate-ci", estimate: 1, lower: 0, upper: 2 }),
      /must be greater than 0/,
    );
  });

  it("recovers log ratios and differences from reported estimates and 95% CIs", () => {
    const rr = escalc("RR", { kind: "estimate-ci", estimate: 0.75, lower: 0.6, upper: 0.93 });
    expect(rr.yi).toBeCloseTo(Math.log(0.75), 15);
    expect(Math.sqrt(rr.vi)).toBeCloseTo((Math.log(0.93) - Math.log(0.6)) / (2 * 1.959964), 15);
    const md = escalc("MD", { kind: "estimate-ci", estimate: -2.1, lower: -3.5, upper: -0.7 });
    expect(md.yi).toBe(-2.1);
    expect(Math.sqrt(md.vi)).toBeCloseTo(2.8 / (2 * 1.959964), 15);
  });

  it("adds 0.5 to every cell of a study with a zero cell, including all-zero arms (metafor to='only0')", () => {
    const oneZero = escalc("OR", { kind: "counts", events1: 0, n1: 20, events2: 3, n2: 20 });
    expect(oneZero.yi).toBeCloseTo(Math.log((0.5 * 17.5) / (20.5 * 3.5)), 14);
    expect(oneZero.vi).toBeCloseTo(1 / 0.5 + 1 / 20.5 + 1 / 3.5 + 1 / 17.5, 14);
    const bothZero = escalc("RR", { kind: "counts", events1: 0, n1: 10, events2: 0, n2: 12 });
    expect(bothZero.yi).toBeCloseTo(Math.log(0.5 / 11) - Math.log(0.5 / 13), 14);
    expect(Number.isFinite(bothZero.vi)).toBe(true);
    const rd = escalc("RD", { kind: "counts", events1: 0, n1: 10, events2: 0, n2: 12 });
    expect(rd.yi).toBeCloseTo(0.5 / 11 - 0.5 / 13, 14);
  });
});

describe("degenerate models", () => {
  const eff: EffectSize[] = [
    { yi: -0.4, vi: 0.04 },
    { yi: -0.1, vi: 0.09 },
    { yi: -0.7, vi: 0.05 },
    { yi: 0.1, vi: 0.12 },
  ];

  it("needs at least 2 studies", () => {
    for (const method of METHODS) {
      expectInputError(() => rma([eff[0]], { measure: "GEN", method }), /At least 2 studies are needed/);
    }
    expectInputError(() => rma([], { measure: "GEN", method: "REML" }), /At least 2 studies are needed/);
    expectInputError(() => regtest(eff.slice(0, 2), { method: "REML" }), /At least 3 studies/);
    expectInputError(
      () => rmaMH([{ events1: 1, n1: 10, events2: 2, n2: 10 }], { measure: "OR" }),
      /At least 2 studies/,
    );
  });

  it("gives tau² = 0, I² = 0 and finite numbers for identical studies, under every estimator and test", () => {
    const same = Array.from({ length: 5 }, () => ({ yi: 0.3, vi: 0.02 }));
    for (const method of METHODS) {
      for (const test of ["z", "knha"] as const) {
        const r = rma(same, { measure: "RR", method, test });
        expect(r.tau2).toBe(0);
        expect(r.I2).toBe(0);
        expect(r.estimate).toBeCloseTo(0.3, 14);
        allFinite(r);
        if (test === "knha") {
          expect(r.se).toBe(0);
          expect(r.warnings?.[0]).toMatch(/same effect size/);
        }
      }
    }
    expect(ranktest(same).pval).toBeGreaterThanOrEqual(0);
    expect(
      Number.isFinite(
        regtest(
          same.map((e, i) => ({ yi: e.yi, vi: e.vi * (i + 1) })),
          { method: "REML" },
        ).pval,
      ),
    ).toBe(true);
    const tf = trimfill(same, { measure: "RR", method: "REML" });
    expect(tf.k0).toBe(0);
    allFinite(tf.adjusted);
  });

  it("rejects a zero or negative variance passed straight to rma", () => {
    expectInputError(
      () => rma([eff[0], { yi: 0.2, vi: 0 }], { measure: "GEN", method: "DL" }),
      /Study 2 has a sampling variance/,
    );
    expectInputError(
      () => rma([eff[0], { yi: Number.NaN, vi: 0.1 }], { measure: "GEN", method: "DL" }),
      /Study 2 has no finite effect size/,
    );
  });

  it("answers clearly when Mantel–Haenszel or Peto are undefined (all-zero arms)", () => {
    const noEvents = [
      { events1: 0, n1: 10, events2: 0, n2: 12 },
      { events1: 0, n1: 15, events2: 0, n2: 9 },
    ];
    expectInputError(() => rmaMH(noEvents, { measure: "OR" }), /Mantel–Haenszel odds ratio is undefined/);
    expectInputError(() => rmaMH(noEvents, { measure: "RR" }), /Mantel–Haenszel risk ratio is undefined/);
    expectInputError(() => rmaPeto(noEvents), /Peto odds ratio is undefined/);
    // a double-zero study among informative ones is kept for pooling and left out of Q (metafor drop00)
    const mixed = [
      ...noEvents.slice(0, 1),
      { events1: 3, n1: 30, events2: 7, n2: 31 },
      { events1: 5, n1: 40, events2: 9, n2: 38 },
    ];
    const mh = rmaMH(mixed, { measure: "OR" });
    allFinite(mh);
    expect(mh.k).toBe(3);
  });

  it("reports weights in percent, the ratio scale for ratio measures only, and leave-one-out rows", () => {
    const r = rma(eff, { measure: "OR", method: "REML", test: "knha" });
    expect(r.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 12);
    expect(r.ratio?.estimate).toBeCloseTo(Math.exp(r.estimate), 14);
    expect(r.ratio?.pi_ub).toBeCloseTo(Math.exp(r.pi_ub), 14);
    expect(r.df).toBe(3);
    expect(rma(eff, { measure: "MD", method: "REML" }).ratio).toBeNull();
    const rows = leave1out(eff, { measure: "OR", method: "REML" }, ["A", "B", "C", "D"]);
    expect(rows.map((x) => x.omitted)).toEqual(["A", "B", "C", "D"]);
  });
});

describe("Hedges' J", () => {
  it("uses the exact gamma form (R: exp(lgamma(m/2) - log(sqrt(m/2)) - lgamma((m-1)/2)))", () => {
    // values from R 4.x
    expect(Math.abs(hedgesJ(10) / 0.92274560805308703 - 1)).toBeLessThan(1e-13);
    expect(Math.abs(hedgesJ(37) / 0.97956856964826122 - 1)).toBeLessThan(1e-13);
    expect(Math.abs(hedgesJ(25000.5) / 0.99997000026522198 - 1)).toBeLessThan(1e-12);
    expect(hedgesJ(1)).toBeNaN();
  });
});

describe("distributions (values from R 4.x)", () => {
  it("match R's pnorm/qnorm/pt/qt/pchisq/qchisq", () => {
    const cases: [number, number][] = [
      [pnorm(-1.96), 0.02499789514822043],
      [pnorm(-10), 7.619853024160527e-24],
      [qnorm(0.975), 1.959963984540054],
      [qnorm(1e-10), -6.361340902404056],
      [pt(2.1, 3), 0.9367173987251578],
      [pt(50, 8, false), 1.417205322545891e-11],
      [qt(0.975, 8), 2.306004135204166],
      [qt(0.975, 2), 4.302652729749462],
      [qt(0.025, 5), -2.570581835636315],
      [pchisq(24.8, 8, false), 1.680592867835751e-3],
      [qchisq(0.025, 12), 4.403788506981702],
      [qchisq(0.975, 12), 23.33666415864533],
      [qchisq(0.025, 1), 9.820691171752562e-4],
    ];
    for (const [got, want] of cases) expect(Math.abs(got - want) / Math.abs(want)).toBeLessThan(1e-12);
  });
});

describe("profile-likelihood CI for tau²", () => {
  // dat.bcg as printed in metafor's docs (tpos, tneg, cpos, cneg); expected values printed by
  // R 4 + metafor 3.8-1: confint(rma(yi, vi, method = m), type = "PL")$random[1, ].
  const bcg = [
    [4, 119, 11, 128],
    [6, 300, 29, 274],
    [3, 228, 11, 209],
    [62, 13536, 248, 12619],
    [33, 5036, 47, 5761],
    [180, 1361, 372, 1079],
    [8, 2537, 10, 619],
    [505, 87886, 499, 87892],
    [29, 7470, 45, 7232],
    [17, 1699, 65, 1600],
    [186, 50448, 141, 27197],
    [5, 2493, 3, 2338],
    [27, 16886, 29, 17825],
  ].map(([a, b, c, d]) => escalc("OR", { kind: "counts", events1: a!, n1: a! + b!, events2: c!, n2: c! + d! }));

  it.each([
    ["ML", 0.3024566, 0.1151033, 0.8937065],
    ["REML", 0.337772, 0.1259494, 1.0326153],
  ] as const)("%s matches metafor", (method, tau2, lb, ub) => {
    const res = rma(bcg, { measure: "OR", method });
    expect(res.tau2).toBeCloseTo(tau2, 6);
    expect(res.tau2_ci_pl![0]).toBeCloseTo(lb, 6);
    expect(res.tau2_ci_pl![1]).toBeCloseTo(ub, 6);
  });

  it("is null for other estimators and starts at 0 when τ̂² is 0", () => {
    expect(rma(bcg, { measure: "OR", method: "DL" }).tau2_ci_pl).toBeNull();
    const same: EffectSize[] = [0.1, 0.12, 0.11].map((yi) => ({ yi, vi: 0.04 }));
    const res = rma(same, { measure: "GEN", method: "REML" });
    expect(res.tau2).toBe(0);
    expect(res.tau2_ci_pl![0]).toBe(0);
    expect(res.tau2_ci_pl![1]).toBeGreaterThan(0);
  });
});
