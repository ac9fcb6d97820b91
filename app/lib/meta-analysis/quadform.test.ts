import { describe, expect, it } from "vitest";
import { pchisq } from "./distributions.ts";
import { escalc } from "./escalc.ts";
import { pQuadForm, rankOneDowndateEigenvalues, symmetricEigenvalues } from "./quadform.ts";
import { rma } from "./rma.ts";
import { estimateTau2, tau2GenQConfidenceInterval } from "./tau2.ts";

describe("pQuadForm (Imhof 1961)", () => {
  it("equals the χ² distribution when all weights are equal", () => {
    for (const [q, m] of [
      [0.01, 1],
      [0.5, 1],
      [3, 1],
      [5, 2],
      [10, 7],
      [50, 30],
    ]) {
      expect(Math.abs(pQuadForm(q, Array(m).fill(1)) - pchisq(q, m, false))).toBeLessThan(1e-13);
      expect(Math.abs(pQuadForm(q, Array(m).fill(1), true) - pchisq(q, m))).toBeLessThan(1e-13);
    }
  });
  it("equals the closed form of λ₁χ²₂ + λ₂χ²₂ (difference of exponentials)", () => {
    const [l1, l2] = [0.7, 3.1];
    for (const q of [0.1, 2, 10, 40]) {
      const exact = (l1 * Math.exp(-q / (2 * l1)) - l2 * Math.exp(-q / (2 * l2))) / (l1 - l2);
      expect(Math.abs(pQuadForm(q, [l1, l1, l2, l2]) - exact)).toBeLessThan(1e-13);
    }
  });
  it("matches Ruben's series (Farebrother AS 204, computed in R) for unequal weights", () => {
    // bench/lib/ruben-quadform.R ruben_upper(), R 4.x
    expect(pQuadForm(5, [10, 1, 0.3, 20, 0.5])).toBeCloseTo(0.891744617170484, 12);
    expect(pQuadForm(30, [10, 1, 0.3, 20, 0.5])).toBeCloseTo(0.38048184848164, 12);
    expect(pQuadForm(0.5, [1, 2, 3, 4])).toBeCloseTo(0.994146205111347, 12);
  });
  it("rejects negative or missing weights", () => {
    expect(() => pQuadForm(1, [1, -1])).toThrow(RangeError);
    expect(() => pQuadForm(1, [0])).toThrow(RangeError);
    expect(pQuadForm(0, [1, 2])).toBe(1);
  });
  it("the secular-equation eigenvalues of S P_A S (intercept only) equal Jacobi's, ties included", () => {
    const a = [4, 1, 2.5, 1, 7, 0.5];
    const v = [0.25, 1, 0.4, 1, 0.1, 2];
    const tau2 = 0.3;
    const sa = a.reduce((x, y) => x + y, 0);
    const s = v.map((x) => Math.sqrt(x + tau2));
    const sps = a.map((ai, i) => a.map((aj, j) => s[i] * ((i === j ? ai : 0) - (ai * aj) / sa) * s[j]));
    const jac = symmetricEigenvalues(sps).slice(0, 5);
    const sec = rankOneDowndateEigenvalues(
      a.map((x, i) => x * (v[i] + tau2)),
      a.map((x, i) => x * x * (v[i] + tau2)),
      sa,
    );
    expect(sec).toHaveLength(5);
    sec.forEach((x, i) => expect(Math.abs(x - jac[i])).toBeLessThan(1e-12 * jac[0]));
  });
  it("symmetricEigenvalues returns the spectrum in decreasing order", () => {
    const ev = symmetricEigenvalues([
      [2, 1, 0],
      [1, 2, 0],
      [0, 0, 5],
    ]);
    expect(ev.map((x) => +x.toFixed(12))).toEqual([5, 3, 1]);
  });
});

const BCG = [
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
];
const eff = BCG.map(([a, b, c, d]) => escalc("RR", { kind: "counts", events1: a, n1: a + b, events2: c, n2: c + d }));

describe("GENQM and the generalised Q-profile CI (BCG, log RR, weights 1/v)", () => {
  // metafor 3.8-1: rma(yi, vi, weights = 1/vi, method = "GENQM"); confint(); predict()
  // (CompQuadForm replaced by the Ruben-series shim bench/lib/ruben-quadform.R, Farebrother's algorithm)
  it("matches metafor's estimate, SE, τ² and its CI, I²/H² CI and prediction interval", () => {
    const r = rma(eff, { measure: "RR", method: "GENQM" });
    const rel = (got: number, want: number, tol: number) =>
      expect(Math.abs(got - want)).toBeLessThan(tol * Math.abs(want));
    rel(r.tau2, 0.382787908221, 1e-6);
    rel(r.tau2_se!, 0.283451235922, 1e-6);
    rel(r.estimate, -0.430285163654, 1e-6);
    rel(r.se, 0.315087376881, 1e-6);
    rel(r.tau2_ci![0], 0.101050142246, 5e-4);
    rel(r.tau2_ci![1], 1.63607344211, 5e-4);
    rel(r.I2_ci![0], 79.2728367352, 5e-4);
    rel(r.I2_ci![1], 98.4107502714, 5e-4);
    rel(r.H2_ci![1], 62.922773056, 5e-4);
    rel(r.pi_lb, -1.79110999799, 1e-6);
    rel(r.pi_ub, 0.930539670686, 1e-6);
  });
  it("is 0 when Q is below the median of its distribution at τ² = 0, and needs weights", () => {
    const yi = [0.1, 0.11, 0.09, 0.1];
    const vi = [0.05, 0.04, 0.06, 0.05];
    expect(estimateTau2(yi, vi, "GENQM", { weights: vi.map((v) => 1 / v) }).tau2).toBe(0);
    expect(
      tau2GenQConfidenceInterval(
        yi,
        vi,
        vi.map((v) => 1 / v),
        0,
      ),
    ).toEqual([0, 0]);
    expect(() => estimateTau2(yi, vi, "GENQM")).toThrow(/one positive weight per study/);
  });
  it("prediction interval types as metafor predict(pi.type)", () => {
    // metafor 3.8-1: predict(rma(yi, vi), pi.type = ...)
    const want = {
      riley: [-2.00837605069, 0.57931135396],
      t: [-1.99534210089, 0.566277404161],
      simple: [-1.81148783407, 0.382423137337],
    };
    for (const [piType, [lb, ub]] of Object.entries(want)) {
      const r = rma(eff, { measure: "RR", method: "REML", piType: piType as "riley" | "t" | "simple" });
      expect(r.pi_lb).toBeCloseTo(lb, 9);
      expect(r.pi_ub).toBeCloseTo(ub, 9);
    }
  });
});
