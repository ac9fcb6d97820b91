import { describe, expect, it } from "vitest";
import { yi, vi, ablat } from "../../../tests/meta-analysis-bcg";
import { MetaInputError } from "./errors";
import { baujat, bubbleFit, cumulativeRows } from "./plot-data";

// metafor's dat.bcg, escalc(measure = "RR"); reference values from metafor 3.8-1 on this machine
// (baujat(rma(yi, vi, test = "knha")), predict(rma(yi, vi, mods = ~ ablat), newmods = c(10, 30, 55))).

const close = (actual: number[], expected: number[], tol = 1e-6) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) =>
    expect(Math.abs(a - expected[i]!) / Math.max(1e-8, Math.abs(expected[i]!))).toBeLessThan(tol),
  );
};

describe("baujat (metafor baujat.rma)", () => {
  it("matches metafor on the BCG data (REML, Hartung–Knapp)", () => {
    const points = baujat(yi, vi, { method: "REML", test: "knha" });
    close(
      points.map((p) => p.x),
      [
        0.0478183320720557, 1.4934111867875, 0.550875274577078, 1.58604972349137, 0.677710921899524, 0.0160055498336126,
        1.53190284779699, 1.66384562229749, 0.162523307613225, 1.11684754527013, 0.432221021481111, 1.59223843440986,
        1.2637879713967,
      ],
    );
    close(
      points.map((p) => p.y),
      [
        0.00147410681649845, 0.11124775373036, 0.0235837199257187, 0.224075654946941, 0.0668752319456515,
        0.000334966830387892, 0.107518371717049, 0.193722702808192, 0.0183356883789239, 0.1085185117435,
        0.0491303764479884, 0.0640617478471527, 0.115307007962912,
      ],
    );
  });
  it("needs 3 studies", () => {
    expect(() => baujat(yi.slice(0, 2), vi.slice(0, 2), { method: "DL", test: "z" })).toThrow(MetaInputError);
  });
});

describe("bubbleFit (metafor predict.rma with one moderator)", () => {
  const at = (fit: ReturnType<typeof bubbleFit>, x0: number) => {
    // Latitudes 13..55 in 41 points: step 1.05; compare at exact grid points via the fitted line.
    const pred = fit.intercept + fit.slope * x0;
    return pred;
  };
  it("has metafor's line and confidence band (REML + knha: t band; DL: normal band)", () => {
    const knha = bubbleFit(yi, vi, ablat, { method: "REML", test: "knha" }, 43);
    close(
      [10, 30, 55].map((x) => at(knha, x)),
      [-0.0395523149058634, -0.62158553346616, -1.34912705666653],
    );
    // The grid runs 13..55 in steps of 1 (43 points): x = 30 and 55 are on it.
    const g30 = knha.line.find((p) => p.x === 30)!;
    const g55 = knha.line.find((p) => p.x === 55)!;
    close(
      [g30.ci_lb, g30.ci_ub, g55.ci_lb, g55.ci_ub],
      [-0.889833768045461, -0.353337298886859, -1.85363605478335, -0.844618058549709],
    );
    const dl = bubbleFit(yi, vi, ablat, { method: "DL", test: "z" }, 43);
    const d30 = dl.line.find((p) => p.x === 30)!;
    close([d30.pred, d30.ci_lb, d30.ci_ub], [-0.61731845022163, -0.814011560793287, -0.420625339649972]);
    expect(knha.weights.reduce((s, w) => s + w, 0)).toBeCloseTo(100, 10);
  });
});

describe("cumulativeRows", () => {
  it("adds the studies in the given order, the last row being the full model", () => {
    const order = ablat.map((_, i) => i).sort((a, b) => ablat[a]! - ablat[b]! || a - b);
    const rows = cumulativeRows(yi, vi, { method: "DL", test: "z" }, order);
    expect(rows.map((r) => r.index)).toEqual(order);
    expect(rows[0]!.estimate).toBeCloseTo(yi[order[0]!]!, 12);
    const all = cumulativeRows(yi, vi, { method: "DL", test: "z" });
    expect(rows.at(-1)!.estimate).toBeCloseTo(all.at(-1)!.estimate, 12);
  });
});
