/**
 * Subgroup analysis, meta-regression, influence, leave-one-out and cumulative meta-analysis against
 * metafor 3.8-1's documented BCG vaccine examples (dat.bcg, escalc(measure = "RR"); help pages of
 * rma.uni, influence.rma.uni, cumul and leave1out), values printed by R at 15 digits; plus the
 * behaviour metafor does not define (RevMan's test for subgroup differences, permutation test
 * seeding, input errors).
 */
import { describe, expect, it } from "vitest";
import { yi, vi, ablat, year } from "../../../tests/meta-analysis-bcg";
import {
  cumulative,
  dummyColumns,
  escalcPeto,
  estimateTau2,
  fitModel,
  influence,
  leaveOneOut,
  MetaInputError,
  metaRegression,
  pchisq,
  rma,
  rmaMH,
  subgroupAnalysis,
} from "./index.ts";

const alloc = [
  "random",
  "random",
  "random",
  "random",
  "alternate",
  "alternate",
  "random",
  "random",
  "random",
  "systematic",
  "systematic",
  "systematic",
  "systematic",
];

function close(got: number[] | number, want: number[] | number, rel = 1e-6): void {
  const g = Array.isArray(got) ? got : [got];
  const w = Array.isArray(want) ? want : [want];
  expect(g.length).toBe(w.length);
  g.forEach((x, i) =>
    expect(Math.abs(x - w[i]), `[${i}] ${x} vs ${w[i]}`).toBeLessThanOrEqual(Math.max(rel * Math.abs(w[i]), 1e-9)),
  );
}

describe("meta-regression (metafor rma.uni with mods)", () => {
  it("BCG, REML, mods = ~ ablat + year", () => {
    const m = metaRegression(yi, vi, [ablat, year], { method: "REML", names: ["ablat", "year"] });
    expect(m.names).toEqual(["intercept", "ablat", "year"]);
    close(m.b, [-3.54550507892072, -0.0280112752129665, 0.00190755659626913]);
    close(m.se, [29.095879826065, 0.0102340409465195, 0.0146838158164176]);
    close(m.QM, 12.2042505149781);
    close(m.QMp, 0.00223810610968374);
    expect(m.QMdf).toEqual([2, null]);
    close(m.QE, 28.3251436562553);
    expect(m.QEdf).toBe(10);
    close(m.tau2, 0.11078735154601);
    close(m.R2!, 64.6321749396932);
    close(m.I2, 71.9778010786232);
    expect(m.permutation).toBeNull();
  });

  it("BCG, REML + knha, a categorical moderator as dummies (mods = ~ factor(alloc)): F test", () => {
    const { columns, levels } = dummyColumns(alloc, ["alternate", "random", "systematic"]);
    expect(levels).toEqual(["alternate", "random", "systematic"]);
    const m = metaRegression(yi, vi, columns, { method: "REML", test: "knha" });
    close(m.b, [-0.517955810531562, -0.447818223641861, 0.0890381476549171]);
    close(m.QM, 0.966219985592622);
    close(m.QMp, 0.413384043387496);
    expect(m.QMdf).toEqual([2, 10]);
    close(m.tau2, 0.361502855889479);
    expect(m.R2).toBe(0);
  });

  it("permutation test: seeded, reproducible, p within (0, 1], the observed fit counted once", () => {
    const opts = { method: "REML" as const, permutation: { iterations: 200, seed: 7 } };
    const a = metaRegression(yi, vi, [ablat], opts).permutation!;
    const b = metaRegression(yi, vi, [ablat], opts).permutation!;
    expect(a).toEqual(b);
    expect(a.iterations).toBe(200);
    expect(a.QMp).toBeGreaterThanOrEqual(1 / 200);
    expect(a.QMp).toBeLessThan(0.05); // ablat explains most of the heterogeneity (QMp ≈ 1e-5 asymptotically)
    expect(a.pval).toHaveLength(2);
    const c = metaRegression(yi, vi, [ablat], { ...opts, permutation: { iterations: 200, seed: 8 } }).permutation!;
    expect(c.seed).toBe(8);
    expect(() => metaRegression(yi, vi, [ablat], { method: "REML", permutation: { iterations: 10 } })).toThrow(
      MetaInputError,
    );
  });

  it("rejects redundant moderators, too few studies and mismatched lengths with a MetaInputError", () => {
    expect(() => metaRegression(yi, vi, [ablat, ablat.map((x) => 2 * x)], { method: "REML" })).toThrow(/redundant/);
    expect(() =>
      metaRegression(yi.slice(0, 3), vi.slice(0, 3), [ablat.slice(0, 3), year.slice(0, 3)], { method: "REML" }),
    ).toThrow(MetaInputError);
    expect(() => metaRegression(yi, vi, [ablat.slice(1)], { method: "DL" })).toThrow(/Moderator 1 has 12 values/);
    expect(() => metaRegression(yi, vi, [], { method: "DL" })).toThrow(/at least one moderator/);
  });
});

describe("subgroup analysis", () => {
  const s = subgroupAnalysis(yi, vi, alloc, { method: "REML" });

  it("pools each subgroup as rma() on the subset, in order of first appearance", () => {
    expect(s.groups.map((g) => [g.level, g.k])).toEqual([
      ["random", 7],
      ["alternate", 2],
      ["systematic", 4],
    ]);
    const r = s.groups[0];
    close([r.b, r.se, r.tau2, r.I2], [-0.970964475758379, 0.275955701509003, 0.392526549118408, 89.9342820816863]);
    expect(r.studies).toEqual([0, 1, 2, 3, 6, 7, 8]);
  });

  it("tests subgroup differences as RevMan: fixed-effect Q of the subgroup estimates, df = G − 1", () => {
    const w = s.groups.map((g) => 1 / g.se ** 2);
    const mean = s.groups.reduce((a, g, i) => a + w[i] * g.b, 0) / w.reduce((a, b) => a + b, 0);
    const Q = s.groups.reduce((a, g, i) => a + w[i] * (g.b - mean) ** 2, 0);
    close(s.Q, Q, 1e-12);
    expect(s.df).toBe(2);
    close(s.p!, pchisq(Q, 2, false), 1e-12);
    close(s.I2, Math.max(0, (100 * (Q - 2)) / Q), 1e-12);
  });

  it("gives the common-τ² model rma(mods = ~ factor(g)) (same QM as the dummy-coded meta-regression)", () => {
    const f = fitModel(yi, vi, dummyColumns(alloc).columns, { method: "REML" });
    expect(s.mixed).not.toBeNull();
    close(s.mixed!.QM, f.QM, 1e-12);
    close(s.mixed!.tau2, 0.361502855889479);
  });

  it("shows a one-study subgroup as that study (z-based CI, τ² = 0) even under knha", () => {
    const g = [...alloc];
    g[12] = "solo";
    const one = subgroupAnalysis(yi, vi, g, { method: "DL", test: "knha" }).groups.find((x) => x.level === "solo")!;
    expect(one.k).toBe(1);
    close([one.b, one.se, one.tau2, one.I2], [yi[12], Math.sqrt(vi[12]), 0, 0], 1e-12);
    close(one.ci_lb, yi[12] - 1.959963984540054 * Math.sqrt(vi[12]), 1e-12);
    expect(one.df).toBeNull();
  });

  it("reports a single subgroup without a test and rejects a missing level", () => {
    const single = subgroupAnalysis(
      yi,
      vi,
      alloc.map(() => "all"),
      { method: "DL" },
    );
    expect(single.df).toBe(0);
    expect(single.p).toBeNull();
    expect(single.mixed).toBeNull();
    expect(single.mixedNote).toMatch(/one subgroup/);
    expect(() =>
      subgroupAnalysis(
        yi,
        vi,
        alloc.map((a, i) => (i === 3 ? "" : a)),
        { method: "DL" },
      ),
    ).toThrow(/Study 4 has no subgroup/);
    expect(() => subgroupAnalysis(yi, vi, alloc.slice(1), { method: "DL" })).toThrow(MetaInputError);
  });
});

describe("influence diagnostics (metafor influence.rma.uni, BCG REML)", () => {
  const f = influence(yi, vi, null, { method: "REML" });
  it("matches metafor's example to 1e-6", () => {
    close(
      f.rstudent,
      [
        -0.218142474344442, -1.29179018325719, -0.754719689785772, -1.45120007105889, 0.847710579386837,
        -0.117999458482776, -1.30372705919103, 1.45008026839721, 0.407613168355557, -1.12773861386972,
        0.669079195292433, 1.28984097565979, 1.18790294941749,
      ],
    );
    close(
      f.dffits,
      [
        -0.0407075604868468, -0.343587736952733, -0.160361478497718, -0.520050612341681, 0.270745185772369,
        -0.0190063297986498, -0.336157530820046, 0.477459927935019, 0.141548440735901, -0.348694630442247,
        0.231504482896252, 0.252619838989975, 0.354860860271421,
      ],
    );
    close(
      f.cook_d,
      [
        0.0017165423672918, 0.113249704512703, 0.0259803248436411, 0.229481429376374, 0.076231411790572,
        0.000413495499759997, 0.108741623311804, 0.199177558127151, 0.0219984167571109, 0.117017798658052,
        0.0580781251117936, 0.0634333822133935, 0.122812842275046,
      ],
    );
    close(
      f.cov_r,
      [
        1.11644891104804, 1.01019211996711, 1.06699597403483, 0.965126908803455, 1.13802315052117, 1.24071651616571,
        1.00771123287369, 1.0010702600835, 1.19676202958048, 1.05052741302667, 1.18597882278208, 1.02585672309977,
        1.06504038084714,
      ],
    );
    close(
      f.tau2_del,
      [
        0.336156745300306, 0.292583085554123, 0.320738056887219, 0.262758356241501, 0.327803258618395,
        0.359554181152191, 0.29302586988829, 0.273183034116211, 0.349452009922899, 0.298724600913035, 0.340488265334648,
        0.308162202718279, 0.303733326561131,
      ],
    );
    close(
      f.QE_del,
      [
        151.582572747109, 145.317607670209, 150.197044457953, 96.5625949713915, 151.320008931121, 128.186664682906,
        145.829638145065, 67.9858114990849, 152.205060685431, 139.827073316802, 151.465504507947, 150.786834541142,
        149.788423825434,
      ],
    );
    close(
      f.hat,
      [
        0.0505948307931551, 0.0636467963212659, 0.0443602776309674, 0.0969874673569736, 0.0886845628682752,
        0.100957381652943, 0.0602718170294241, 0.101894386345929, 0.0874313313169806, 0.0836760724733689,
        0.099250266628389, 0.0382162942284151, 0.0840285153539128,
      ],
    );
    close(
      f.weight,
      [
        5.05948307931551, 6.3646796321266, 4.43602776309674, 9.69874673569736, 8.86845628682752, 10.0957381652943,
        6.02718170294241, 10.1894386345929, 8.74313313169806, 8.3676072473369, 9.9250266628389, 3.82162942284151,
        8.40285153539128,
      ],
    );
    expect(f.inf.every((x) => x === false)).toBe(true);
  });

  it("flags an outlier with high leverage as influential", () => {
    const y = [...yi, 3];
    const v = [...vi, 0.001];
    const g = influence(y, v, null, { method: "DL" });
    expect(g.inf[13]).toBe(true);
    expect(g.inf.filter(Boolean).length).toBeGreaterThanOrEqual(1);
  });
});

describe("leave-one-out and cumulative meta-analysis", () => {
  it("leave1out matches metafor's example", () => {
    close(
      leaveOneOut(yi, vi, { method: "REML" }).estimate,
      [
        -0.707083788031437, -0.654031200397814, -0.685554417972832, -0.628409407862505, -0.764170094987222,
        -0.710876564850935, -0.655247599791984, -0.794767610948287, -0.741197299313848, -0.653032925763431,
        -0.757858625204249, -0.759812097339421, -0.777536180774624,
      ],
    );
  });

  it("cumul ordered by publication year matches metafor's example; row 1 is the first study alone", () => {
    const order = year
      .map((y, i) => [y, i])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map((x) => x[1]);
    const c = cumulative(yi, vi, { method: "REML" }, order);
    expect(c.order).toEqual(order);
    close(
      c.estimate,
      [
        -0.889311333920205, -1.32500344224488, -0.972079557781193, -1.00109369559612, -1.10142355005877,
        -0.973463876140063, -0.901251436421003, -0.788565567147329, -0.865607471697204, -0.78521054378687,
        -0.708206256582989, -0.794767610948287, -0.714532348365101,
      ],
    );
    close(
      c.tau2,
      [
        0, 0, 0.0872063416234463, 0.0762600663931823, 0.0857523854290568, 0.104604144891931, 0.120462691859899,
        0.178028085926412, 0.202335332494471, 0.200546697624915, 0.228093569782522, 0.273183034116211,
        0.313243325980895,
      ],
    );
    expect(c.se[0]).toBeCloseTo(Math.sqrt(vi[0]), 12);
    expect(() => cumulative(yi, vi, { method: "REML" }, [0, 0, 1])).toThrow(/every study exactly once/);
  });
});

describe("further τ² estimators (metafor's dersimonian2007 example: CLASP trials, log OR)", () => {
  // escalc(measure = "OR", ai, n1i, ci, n2i) of the CLASP data, printed by R at 17 digits
  const y = [
    -1.2976287240342348, -1.2648771073076674, 0.12079236684709294, -0.32937738870476885, -0.20067069546215155,
    -0.12853406867186257,
  ];
  const v = [
    0.34677403170780652, 0.26567573760625479, 0.19838951484521103, 0.026477083667147027, 0.22329679776488284,
    0.0064985602668567342,
  ];
  const eff = y.map((yi, i) => ({ yi, vi: v[i] }));
  // [τ², SE(τ²), μ̂, SE(μ̂)] from metafor 3.8-1 (two-step: GENQ / SJ with tau2.init, then the model with τ² fixed)
  const expected = {
    CA2: [0.146769331903916, 0.182233820217762, -0.386100299655622, 0.21153984499321],
    DL2: [0.105859769093915, 0.136936130190426, -0.365462785948802, 0.190063784925981],
    SJ2: [0.166812740531268, 0.112906903753012, -0.394089951354799, 0.220839221270912],
    HSk: [0.0270116705592215, 0.0292047037352404, -0.286272174960145, 0.125927507322173],
    PMM: [0.188454709061617, 0.201140172547208, -0.401598333530224, 0.230228342124445],
  } as const;
  for (const [method, want] of Object.entries(expected)) {
    it(`${method} matches metafor`, () => {
      const r = rma(eff, { measure: "OR", method: method as keyof typeof expected });
      close([r.tau2, r.tau2_se!, r.estimate, r.se], [...want]);
      // Table 3 of DerSimonian & Kacker (2007), τ to 4 decimals, where published
      const tau = { CA2: 0.3831, DL2: 0.3254, SJ2: 0.4084 }[method as "CA2"];
      if (tau) expect(Math.abs(Math.sqrt(r.tau2) - tau)).toBeLessThan(5e-5);
    });
  }
  it("GENQ takes user weights and rejects missing ones", () => {
    const tHE = estimateTau2(y, v, "HE").tau2;
    const g = estimateTau2(y, v, "GENQ", { weights: v.map((x) => 1 / (x + tHE)) });
    close(g.tau2, expected.CA2[0]);
    expect(() => estimateTau2(y, v, "GENQ")).toThrow(/one positive weight per study/);
  });
});

describe("Peto log odds ratio (escalc PETO) and the uncorrected CMH test (metafor 3.8-1)", () => {
  const t = [
    { events1: 0, n1: 20, events2: 3, n2: 21 },
    { events1: 5, n1: 303, events2: 17, n2: 303 },
    { events1: 12, n1: 565, events2: 9, n2: 477 },
  ];
  it("escalc(measure = 'PETO') with add = 1/2 to only0 (default) and add = 0", () => {
    const e = t.map((x) => escalcPeto(x));
    close(
      e.map((x) => x.yi),
      [-1.56614219114219, -1.13013698630137, 0.119951986038113],
    );
    close(
      e.map((x) => x.vi),
      [1.07750582750583, 0.188356164383562, 0.195602456105968],
    );
    const raw = escalcPeto(t[0], { add: 0 });
    close([raw.yi, raw.vi], [-2.05513784461153, 1.40434419381788]);
    expect(() => escalcPeto({ events1: 0, n1: 10, events2: 0, n2: 10 }, { add: 0 })).toThrow(MetaInputError);
  });
  it("rma.mh(measure = 'OR', correct = FALSE): CMH without continuity correction", () => {
    const tables = [...t, { events1: 69, n1: 1570, events2: 94, n2: 1565 }];
    const r = rmaMH(tables, { measure: "OR", correct: false });
    close([r.mhTests!.CMH, r.mhTests!.CMHp], [7.62351963195561, 0.00576119405775848]);
    expect(rmaMH(tables, { measure: "OR" }).mhTests!.CMH).toBeLessThan(r.mhTests!.CMH);
  });
});
