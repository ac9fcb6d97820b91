/**
 * Subgroup analysis in the product: the study characteristics offered as subgroup columns, the
 * engine's numbers behind the table, the subgroup forest plot with subtotals and the test for
 * subgroup differences, and the static report showing only a chosen analysis.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import {
  exploreMetaRegression,
  exploreSubgroups,
  moderatorChoices,
  NOT_REPORTED,
  PERMUTATION_TEST,
  subgroupColumns,
  subgroupTestText,
} from "~/lib/meta-analysis/explore";
import { metaRegression } from "~/lib/meta-analysis/metareg";
import { subgroupAnalysis } from "~/lib/meta-analysis/subgroup";
import { influence } from "~/lib/meta-analysis/influence";
import { analysisInfluence, InfluenceTable } from "./influence-table";
import { MetaRegressionPanel } from "./metareg-panel";
import { analysis, extracted, jobResult } from "../../../tests/meta-analysis-result";
import { ResultsView } from "./analysis-results";
import { SubgroupPanel } from "./subgroup-panel";

const designs = ["RCT", "RCT", "cohort", "cohort", "RCT"];
const rows = extracted.map((e, i) => ({ ...e, design: designs[i], timepoint: i === 0 ? "12 months" : null }));

describe("subgroupColumns", () => {
  it("offers the characteristics that split the studies into ≥ 2 subgroups, missing values as 'Not reported'", () => {
    const cols = subgroupColumns(analysis, rows);
    expect(cols.map((c) => c.key)).toEqual(["design", "timepoint"]);
    expect(cols[0].values).toEqual(designs);
    expect(cols[1].values).toEqual(["12 months", NOT_REPORTED, NOT_REPORTED, NOT_REPORTED, NOT_REPORTED]);
    // all RCTs, one outcome: nothing to split by
    expect(subgroupColumns(analysis, extracted)).toEqual([]);
  });
});

describe("exploreSubgroups", () => {
  it("runs the engine's subgroup analysis with the analysis's estimator and test", () => {
    const col = subgroupColumns(analysis, rows)[0];
    const view = exploreSubgroups(analysis, col);
    const direct = subgroupAnalysis(
      analysis.effects.map((e) => e.yi),
      analysis.effects.map((e) => e.vi),
      designs,
      {
        method: analysis.method,
        test: analysis.test,
      },
    );
    expect(view.error).toBeNull();
    expect(view.result).toEqual(direct);
    expect(view.rows.map((r) => r.map((s) => s.label))).toEqual([
      ["Aronson 1948", "Ferguson 1949", "Frimodt-Moller 1973"],
      ["Rosenthal 1960", "Hart 1977"],
    ]);
    view.rows.forEach((r) => expect(r.reduce((s, x) => s + x.weight, 0)).toBeCloseTo(100, 10));
    expect(subgroupTestText(direct)).toMatch(
      /^Test for subgroup differences: Chi² = \d+\.\d\d, df = 1 \(p [=<] [\d.]+\), I² = \d+\.\d%$/,
    );
  });
});

describe("SubgroupPanel", () => {
  const col = subgroupColumns(analysis, rows);
  it("on the page: the choice of column, and nothing else until one is chosen", () => {
    const html = renderToStaticMarkup(
      <SubgroupPanel a={analysis} index={0} columns={col} selected={null} onSelect={() => {}} />,
    );
    expect(html).toContain('data-testid="subgroup-select"');
    expect(html).toContain("Study design");
    expect(html).not.toContain('data-testid="subgroup-forest"');
  });
  it("draws the subgroup forest plot with headers, subtotals, the overall diamond and the test under it", () => {
    const html = renderToStaticMarkup(
      <SubgroupPanel a={analysis} index={0} columns={col} selected="design" onSelect={() => {}} />,
    );
    expect(html.match(/data-testid="subgroup-header"/g)).toHaveLength(2);
    expect(html.match(/data-testid="subgroup-study"/g)).toHaveLength(5);
    expect(html.match(/data-testid="subgroup-diamond"/g)).toHaveLength(2);
    expect(html).toContain('data-testid="subgroup-overall"');
    expect(html).toContain('data-testid="subgroup-test-line"');
    expect(html).toMatch(/Test for subgroup differences: Chi² = /);
    expect(html).toContain("Mixed-effects model with a common τ²");
    expect(html).toContain("Subgroup comparisons are observational");
    expect(html).not.toContain("NaN");
  });
  it("in the report: only a chosen subgroup analysis, without the control", () => {
    const result = { ...jobResult, extracted: rows };
    const none = renderToStaticMarkup(<ResultsView result={result} />);
    expect(none).not.toContain('data-testid="subgroup-analysis"');
    const chosen = renderToStaticMarkup(<ResultsView result={result} subgroups={{ 0: "design" }} />);
    expect(chosen).toContain('data-testid="subgroup-forest"');
    expect(chosen).not.toContain('data-testid="subgroup-select"');
  });
});

describe("meta-regression in the product", () => {
  it("offers the sample size (numeric) and the categorical characteristics as moderators", () => {
    const m = moderatorChoices(analysis, rows);
    expect(m.map((c) => [c.key, c.kind])).toEqual([
      ["totalN", "numeric"],
      ["design", "categorical"],
      ["timepoint", "categorical"],
    ]);
  });
  it("fits N and the dummy-coded design with the analysis's estimator and test (engine numbers)", () => {
    const m = moderatorChoices(analysis, rows).filter((c) => c.key !== "timepoint");
    const view = exploreMetaRegression(analysis, m);
    const n = rows.map((r) => r.totalN!);
    const direct = metaRegression(
      analysis.effects.map((e) => e.yi),
      analysis.effects.map((e) => e.vi),
      [n, designs.map((d) => (d === "cohort" ? 1 : 0))],
      {
        method: analysis.method,
        test: analysis.test,
      },
    );
    expect(view.error).toBeNull();
    expect(view.result!.b).toEqual(direct.b);
    expect(view.result!.names).toEqual(["intercept", "Sample size (N)", "Study design: cohort vs RCT"]);
    const html = renderToStaticMarkup(<MetaRegressionPanel a={analysis} choices={m} selected={["totalN", "design"]} />);
    expect(html).toContain('data-testid="meta-regression-table"');
    expect(html).toMatch(/Test of moderators: (F\(2, 2\)|QM\(df = 2\)) = /);
    expect(html).not.toContain("NaN");
    // nothing in the report when no moderator was chosen
    expect(renderToStaticMarkup(<MetaRegressionPanel a={analysis} choices={m} selected={[]} />)).toBe("");
  });
  it("adds metafor's permutation test only when the reviewer asks for it, with the engine's seeded p-values", () => {
    const m = moderatorChoices(analysis, rows).filter((c) => c.key === "totalN");
    const n = rows.map((r) => r.totalN!);
    const yi = analysis.effects.map((e) => e.yi);
    const vi = analysis.effects.map((e) => e.vi);
    const direct = metaRegression(yi, vi, [n], {
      method: analysis.method,
      test: analysis.test,
      permutation: { iterations: 1000, seed: 1 },
    });
    const view = exploreMetaRegression(analysis, m, { permutation: true });
    expect(view.result!.permutation).toEqual(direct.permutation);
    expect(exploreMetaRegression(analysis, m).result!.permutation).toBeNull();

    const off = renderToStaticMarkup(
      <MetaRegressionPanel a={analysis} choices={m} selected={["totalN"]} onChange={() => {}} />,
    );
    expect(off).toContain('data-testid="permutation-test"');
    expect(off).not.toContain("Permutation p");
    const on = renderToStaticMarkup(
      <MetaRegressionPanel a={analysis} choices={m} selected={["totalN", PERMUTATION_TEST]} />,
    );
    expect(on).toContain("Permutation p</th>");
    const qmp = direct.permutation!.QMp;
    expect(on).toContain(
      `Permutation test (1,000 permutations, seed 1): test of moderators ${qmp < 0.001 ? "p &lt; 0.001" : `p = ${qmp.toFixed(3)}`}.`,
    );
    // the permutation choice alone is not a moderator: nothing is fitted or shown in the report
    expect(renderToStaticMarkup(<MetaRegressionPanel a={analysis} choices={m} selected={[PERMUTATION_TEST]} />)).toBe(
      "",
    );
  });
  it("says why when the model cannot be fitted (too many moderators for the studies)", () => {
    const four = { ...analysis, effects: analysis.effects.slice(0, 4) };
    const view = exploreMetaRegression(four, moderatorChoices(four, rows));
    expect(view.result).toBeNull();
    expect(view.error).toBe("Too few studies (4) for a model with 4 coefficient(s).");
  });
});

describe("influence diagnostics table", () => {
  it("shows metafor influence() per study with the analysis's estimator and test", () => {
    const inf = analysisInfluence(analysis)!;
    expect(inf).toEqual(
      influence(
        analysis.effects.map((e) => e.yi),
        analysis.effects.map((e) => e.vi),
        null,
        { method: "REML", test: "knha" },
      ),
    );
    const html = renderToStaticMarkup(<InfluenceTable a={analysis} />);
    expect(html.match(/data-testid="influence-row"/g)).toHaveLength(5);
    expect(html).toContain("Cook&#x27;s d");
    expect(html).not.toContain("NaN");
  });
  it("is left out below 3 studies", () => {
    expect(
      renderToStaticMarkup(<InfluenceTable a={{ ...analysis, effects: analysis.effects.slice(0, 2), k: 2 }} />),
    ).toBe("");
  });
});
