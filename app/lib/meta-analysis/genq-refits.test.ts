/**
 * GENQ/GENQM refits with the generalised weights (issue 29): weights by rule (genqWeightsFor, the
 * control's weightScheme) equal the explicit arrays, go with their studies into every refit, do not
 * depend on their scale, and reproduce metafor 3.8 on the BCG data with weights 1/√v (Jackson 2013):
 *   d <- escalc("RR", ai=tpos, bi=tneg, ci=cpos, di=cneg, data=dat.bcg)
 *   r <- rma(yi, vi, data=d, weights=1/sqrt(vi), method="GENQ", test="knha")
 *   leave1out(r); influence(r); cumul(r); rma(yi, vi, data=d, weights=1/sqrt(vi), mods=~ablat, method="GENQ", test="knha")
 */
import { describe, expect, it } from "vitest";
import { yi, vi, ablat } from "../../../tests/meta-analysis-bcg";
import { regtest, trimfill } from "./bias";
import { GENQ_WEIGHT_CHOICES, methodLabel } from "./display";
import { MetaInputError } from "./errors";
import { cumulative, influence, leaveOneOut } from "./influence";
import { analysisModelOptions, metaRegression } from "./metareg";
import { rma } from "./rma";
import { subgroupAnalysis } from "./subgroup";
import { genqWeightsFor } from "./tau2";

const scheme = { method: "GENQ" as const, test: "knha" as const, control: { weightScheme: "inverse-se" as const } };

function close(got: ArrayLike<number>, want: number[], digits = 8) {
  want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, digits));
}

describe("GENQ weights by rule", () => {
  it("genqWeightsFor: 1/v, 1/√v and 1; an unknown rule is a MetaInputError", () => {
    expect(Array.from(genqWeightsFor("inverse-variance", [0.25, 4]))).toEqual([4, 0.25]);
    expect(Array.from(genqWeightsFor("inverse-se", [0.25, 4]))).toEqual([2, 0.5]);
    expect(Array.from(genqWeightsFor("equal", [0.25, 4]))).toEqual([1, 1]);
    expect(() => genqWeightsFor("n" as never, [1])).toThrow(MetaInputError);
    expect(GENQ_WEIGHT_CHOICES).toEqual(["inverse-variance", "inverse-se", "equal"]);
  });

  it("a rule gives the same fits as the explicit weights, carried with their studies and free of scale", () => {
    const a = vi.map((v) => 1 / Math.sqrt(v));
    const explicit = { method: "GENQ" as const, test: "knha" as const, control: { weights: a } };
    const scaled = { ...explicit, control: { weights: a.map((x) => 10 * x) } };
    const effects = yi.map((y, i) => ({ yi: y, vi: vi[i] }));
    const r1 = rma(effects, { measure: "RR", ...scheme });
    const r2 = rma(effects, { measure: "RR", ...explicit });
    expect(r1.estimate).toBeCloseTo(r2.estimate, 12);
    expect(r1.genqWeights).toBe("inverse-se");
    expect(r2.genqWeights).toBeUndefined();
    const l1 = leaveOneOut(yi, vi, scheme);
    const l2 = leaveOneOut(yi, vi, explicit);
    const l3 = leaveOneOut(yi, vi, scaled);
    close(l2.estimate, l1.estimate, 12);
    close(l3.estimate, l1.estimate, 12);
    close(influence(yi, vi, null, scaled).cook_d, influence(yi, vi, null, scheme).cook_d, 12);
    const order = [12, 0, 5, 3, 1, 2, 4, 6, 7, 8, 9, 10, 11];
    close(cumulative(yi, vi, explicit, order).estimate, cumulative(yi, vi, scheme, order).estimate, 12);
  });

  it("weights that do not fit the studies are a MetaInputError", () => {
    expect(() => leaveOneOut(yi, vi, { method: "GENQ", control: { weights: [1, 2] } })).toThrow(MetaInputError);
    const bad = vi.map((_, i) => (i === 3 ? 0 : 1));
    expect(() => influence(yi, vi, null, { method: "GENQM", control: { weights: bad } })).toThrow(/Study 4/);
    expect(() => cumulative(yi, vi, { method: "GENQ", control: { weights: [1] } })).toThrow(MetaInputError);
  });
});

describe("GENQ with weights 1/√v against metafor 3.8 (BCG, knha)", () => {
  it("rma, leave1out, influence, cumul", () => {
    const r = rma(
      yi.map((y, i) => ({ yi: y, vi: vi[i] })),
      { measure: "RR", ...scheme },
    );
    close([r.estimate, r.se, r.tau2], [-0.58829080687, 0.208012748166, 0.315495514122], 10);
    const l = leaveOneOut(yi, vi, scheme);
    close(l.estimate, [-0.580457196415, -0.554467530523, -0.570837538132], 10);
    close(l.tau2, [0.332786314689, 0.296244861315, 0.319935221322], 10);
    const f = influence(yi, vi, null, scheme);
    close(f.rstudent, [-0.358702812394, -1.41230418526, -0.865007695467], 9);
    close(f.dffits, [-0.0359363556539, -0.168079688777, -0.0822046003756], 10);
    close(f.cook_d, [0.00141822141657, 0.0264393908133, 0.00704001603243], 10);
    close(f.hat, [0.02536346289, 0.0328087915468, 0.0224555701126], 10);
    close(f.weight, [2.536346289, 3.28087915468, 2.24555701126], 8);
    close(cumulative(yi, vi, scheme).estimate, [-0.88931133392, -1.2818946371, -1.30032594424, -1.37930761219], 10);
  });

  it("meta-regression on latitude (coefficients, SE, residual τ², QM, pseudo-R²)", () => {
    const m = metaRegression(yi, vi, [ablat], scheme);
    close(m.b, [0.287608964154, -0.0292711859266], 10);
    close(m.se, [0.328176122957, 0.00928939450911], 10);
    expect(m.tau2).toBeCloseTo(0.1111707595, 9);
    expect(m.QM).toBeCloseTo(9.92900712067, 8);
    expect(m.R2).toBeCloseTo(64.76312514, 6);
  });

  it("Egger's test (regtest) and trim and fill carry the weights as metafor does", () => {
    const effects = yi.map((y, i) => ({ yi: y, vi: vi[i] }));
    // regtest(r): rma(yi, vi, weights = 1/sqrt(vi), mods = sqrt(vi), method = "GENQ", test = "knha")
    const e = regtest(effects, scheme);
    close([e.statistic, e.pval, e.intercept], [-1.03073661057, 0.324795338092, -0.382699165713], 9);
    // trimfill(rma(yi, vi, weights = 1/sqrt(vi), method = "GENQ")): the filled studies get their mirror's weight
    const t = trimfill(effects, { measure: "RR", method: "GENQ", control: { weightScheme: "inverse-se" } });
    expect(t.k0).toBe(2);
    close([t.adjusted.estimate, t.adjusted.se, t.adjusted.tau2], [-0.519571568994, 0.210637855556, 0.362602544134], 9);
  });

  it("subgroups keep each study's weight (per-group fit = the fit of that subset)", () => {
    const g = ablat.map((x) => (x >= 30 ? "far" : "near"));
    const s = subgroupAnalysis(yi, vi, g, scheme);
    const far = g.flatMap((v, i) => (v === "far" ? [i] : []));
    const sub = rma(
      far.map((i) => ({ yi: yi[i], vi: vi[i] })),
      { measure: "RR", ...scheme },
    );
    expect(s.groups[0].b).toBeCloseTo(sub.estimate, 12);
    expect(s.groups[0].se).toBeCloseTo(sub.se, 12);
  });
});

describe("labels and options of an analysis", () => {
  it("methodLabel names the weights of GENQ/GENQM only; analysisModelOptions carries the rule", () => {
    expect(methodLabel("GENQ", "inverse-se")).toBe("Generalised Q, inverse standard-error weights 1/SE (Jackson 2013)");
    expect(methodLabel("GENQM")).toBe(
      "Median-unbiased generalised Q, inverse-variance weights 1/v (as DerSimonian–Laird)",
    );
    expect(methodLabel("REML", "equal")).toBe("Restricted maximum likelihood");
    expect(analysisModelOptions({ method: "GENQ", test: "z", genqWeights: "equal" })).toEqual({
      method: "GENQ",
      test: "z",
      control: { weightScheme: "equal" },
    });
    expect(analysisModelOptions({ method: "REML", test: "knha" })).toEqual({ method: "REML", test: "knha" });
  });
});
