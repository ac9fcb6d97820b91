import { describe, expect, it } from "vitest";
import { pchisq } from "./distributions";
import { MetaInputError } from "./errors";
import { genqTau2CI, symmetricEigenvalues, weightedChisqUpper } from "./genqm";
import { estimateTau2 } from "./tau2";

// metafor's dat.bcg, escalc(measure = "RR").
const yi = [-0.889311333920205, -1.58538865720143, -1.34807314829969, -1.44155119002131, -0.217547322211296, -0.786115585818864, -1.62089822359839, 0.0119523335238405, -0.469417648738149, -1.37134480347278, -0.339358828338391, 0.445913400571379, -0.0173139482168798];
const vi = [0.325584765003961, 0.194581121398144, 0.415367965367965, 0.0200100319022476, 0.0512101721696309, 0.00690561845590876, 0.223017247572315, 0.00396157929781773, 0.056434210463249, 0.0730247936130289, 0.0124122139715597, 0.532505845200153, 0.0714046596839863];
const ablat = [44, 55, 42, 52, 13, 44, 19, 13, 27, 42, 18, 33, 33];
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe("weightedChisqUpper (distribution of Σλχ²₁)", () => {
  it("equals the scaled χ² for equal weights", () => {
    expect(rel(weightedChisqUpper(5, [2, 2, 2]), pchisq(2.5, 3, false))).toBeLessThan(1e-12);
    expect(rel(weightedChisqUpper(0.3, [0.7]), pchisq(0.3 / 0.7, 1, false))).toBeLessThan(1e-12);
  });
  // Reference: Imhof's (1961) integral with R's integrate() (rel.tol 1e-10), R 4.2.2 on this machine
  // (CompQuadForm, which metafor calls, is not installed here).
  it("matches Imhof's integral for unequal weights", () => {
    expect(rel(weightedChisqUpper(5, [3, 1.5, 0.7, 0.2]), 0.401509880982744)).toBeLessThan(1e-8);
    expect(rel(weightedChisqUpper(0.8, [0.9, 0.5, 0.45, 0.3, 0.1, 0.05]), 0.860217910939781)).toBeLessThan(1e-8);
    expect(rel(weightedChisqUpper(40, [10, 8, 2, 1, 0.5]), 0.134121970718016)).toBeLessThan(1e-8);
  });
  it("rejects non-positive weights", () => {
    expect(() => weightedChisqUpper(1, [1, 0])).toThrow(MetaInputError);
  });
});

describe("symmetricEigenvalues", () => {
  it("finds the eigenvalues of a symmetric matrix, largest first", () => {
    const ev = symmetricEigenvalues([2, 1, 0, 1, 2, 0, 0, 0, 5], 3);
    [5, 3, 1].forEach((v, i) => expect(ev[i]).toBeCloseTo(v, 12));
  });
});

describe("GENQM (metafor rma(method = 'GENQM', weights))", () => {
  // Reference: metafor's GENQM algorithm in R (P_a, eigen(S P S), uniroot(tol = 1e-10) of
  // P(Q ≤ q_obs | τ²) = 0.5) with Imhof's integral in place of farebrother().
  it("is the τ² at which the observed generalised Q is the median of its distribution", () => {
    const tight = { tol: 1e-10 };
    expect(rel(estimateTau2(yi, vi, "GENQM", { weights: vi.map((v) => 1 / v), ...tight }).tau2, 0.38280949648191)).toBeLessThan(1e-6);
    expect(rel(estimateTau2(yi, vi, "GENQM", { weights: vi.map(() => 1), ...tight }).tau2, 0.36128577759766)).toBeLessThan(1e-6);
    expect(rel(estimateTau2(yi, vi, "GENQM", { weights: vi.map((v) => 1 / v), ...tight }, [ablat]).tau2, 0.0778542276809614)).toBeLessThan(1e-6);
  });
  it("needs weights", () => {
    expect(() => estimateTau2(yi, vi, "GENQM")).toThrow(/one positive weight per study/);
  });
});

describe("GENQ-type confidence interval of τ² (metafor confint(type = 'GENQ'))", () => {
  // Reference: metafor's confint.rma.uni GENQ branch in R (uniroot(tol = 1e-10)) with Imhof's integral.
  it("bounds τ² where the observed generalised Q is at the 2.5% and 97.5% points of its distribution", () => {
    const w = vi.map((v) => 1 / v);
    const [lb, ub] = genqTau2CI(yi, vi, w, [], { tau2: 0.38280949648191, tol: 1e-10 });
    expect(rel(lb, 0.101050069454828)).toBeLessThan(1e-6);
    expect(rel(ub, 1.63608820114062)).toBeLessThan(1e-6);
    const [lb2, ub2] = genqTau2CI(yi, vi, w, [ablat], { tau2: 0.0778542276809614, tol: 1e-10 });
    expect(rel(lb2, 0.0123343784544082)).toBeLessThan(1e-6);
    expect(rel(ub2, 0.403623843625057)).toBeLessThan(1e-6);
  });
  it("is [0, 0] when even τ² = 0 makes the observed Q improbably small", () => {
    const flat = [0.1, 0.1001, 0.0999, 0.1, 0.1002];
    const v = [0.04, 0.05, 0.03, 0.04, 0.06];
    expect(genqTau2CI(flat, v, v.map((x) => 1 / x), [], { tau2: 0 })).toEqual([0, 0]);
  });
});
