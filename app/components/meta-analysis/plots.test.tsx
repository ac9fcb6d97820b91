import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { analysis, jobResult } from "../../../tests/meta-analysis-result";
import { AnalysisView, eggerNote, ResultsView, sectionTitle, trimFillNote } from "./analysis-results";
import { DataTable, outcomeRows } from "./data-table";
import { displayEstimate, ForestPlot, forestDomain, studyInterval, type ForestStudy } from "./forest-plot";
import { FunnelPlot, funnelDomains } from "./funnel-plot";
import { GradeTable } from "./grade-table";
import { HeterogeneityPanel, interpretI2 } from "./heterogeneity-panel";
import { PrismaDiagram, phaseLabelLength, prismaBoxes, prismaLayout } from "./prisma-diagram";
import { rowsFromExtraction } from "~/lib/meta-analysis/page-logic";

const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

const studies: ForestStudy[] = analysis.effects.map((e, i) => ({
  label: e.label,
  yi: e.yi,
  vi: e.vi,
  weight: analysis.weights[i]!,
}));
const pooled = { label: "RE model (REML, HK)", estimate: -0.83, ci_lb: -1.41, ci_ub: -0.25, pi_lb: -1.9, pi_ub: 0.24 };

/** Attribute values of every element with the test id. */
function attrs(html: string, testId: string, attr: string): number[] {
  const re = new RegExp(`<[^>]*data-testid="${testId}"[^>]*>`, "g");
  return [...html.matchAll(re)].map((m) => Number(new RegExp(`\\s${attr}="([^"]+)"`).exec(m[0])![1]));
}

describe("ForestPlot", () => {
  it("draws one square per study sized by weight, the diamond, the prediction interval and the null line", () => {
    const html = renderToStaticMarkup(<ForestPlot id="f" measure="RR" studies={studies} pooled={pooled} />);
    expect(html).toContain('role="img"');
    expect(html).toContain('aria-labelledby="f-title f-desc"');
    const widths = attrs(html, "forest-square", "width");
    expect(widths).toHaveLength(5);
    // Hart 1977 has the largest weight (33.1%), Rosenthal the smallest (9.2%).
    expect(Math.max(...widths)).toBe(widths[3]);
    expect(Math.min(...widths)).toBe(widths[2]);
    expect(html).toContain('data-testid="pooled-diamond"');
    expect(html).toContain('data-testid="prediction-interval"');
    expect(html).toContain('data-testid="null-line"');
    expect(visible(html)).toContain("33.1%");
    expect(visible(html)).toContain(`RR [95% CI]`);
    expect(visible(html)).toContain(displayEstimate("RR", -0.83, -1.41, -0.25));
    expect(visible(html)).toContain("Risk ratio (log scale)");
  });

  it("labels a ratio axis with ratios around 1 at log positions", () => {
    const html = renderToStaticMarkup(<ForestPlot id="f" measure="OR" studies={studies} pooled={pooled} />);
    const axis = /<g data-testid="forest-axis">([\s\S]*?)<\/g><text/.exec(html)![1]!;
    const labels = [...axis.matchAll(/>([0-9.]+)<\/text>/g)].map((m) => m[1]);
    expect(labels).toContain("1");
    expect(labels).toContain("0.5");
    // The null line sits at the x of the "1" tick.
    const nullX = Number(
      /data-testid="null-line"[^>]*?x1="([^"]+)"|x1="([^"]+)"[^>]*data-testid="null-line"/
        .exec(html)!
        .slice(1)
        .find(Boolean),
    );
    const oneTick = [...axis.matchAll(/<text x="([^"]+)"[^>]*>1<\/text>/g)][0]![1];
    expect(Number(oneTick)).toBeCloseTo(nullX, 6);
  });

  it("draws differences on a linear axis with the null line at 0", () => {
    const md = studies.map((s) => ({ ...s, yi: s.yi * 10 }));
    const html = renderToStaticMarkup(
      <ForestPlot
        id="f"
        measure="MD"
        studies={md}
        pooled={{ ...pooled, estimate: -8, ci_lb: -14, ci_ub: -2, pi_lb: -19, pi_ub: 2 }}
      />,
    );
    expect(visible(html)).toContain("Mean difference");
    expect(visible(html)).not.toContain("log scale");
  });

  it("shows degenerate values as text, never NaN", () => {
    const bad: ForestStudy[] = [
      { label: "Zero variance", yi: 0.2, vi: Number.NaN, weight: Number.NaN },
      { label: "Fine", yi: -0.2, vi: 0.04, weight: 100 },
    ];
    const html = renderToStaticMarkup(
      <ForestPlot
        id="f"
        measure="RR"
        studies={bad}
        pooled={{ ...pooled, pi_lb: Number.NaN, pi_ub: Number.NaN, estimate: Number.NaN }}
      />,
    );
    expect(html).not.toMatch(/NaN|Infinity/);
    expect(visible(html)).toContain("not estimable");
    expect(attrs(html, "forest-square", "width")).toHaveLength(1);
    expect(html).not.toContain("pooled-diamond");
    expect(html).not.toContain("prediction-interval");
  });

  it("computes study CIs and a domain that includes no effect", () => {
    const [lo, hi] = studyInterval(0, 1)!;
    expect(lo).toBeCloseTo(-1.959964, 6);
    expect(hi).toBeCloseTo(1.959964, 6);
    expect(studyInterval(0, -1)).toBeNull();
    const [d0, d1] = forestDomain("RR", [{ label: "a", yi: 1, vi: 0.01, weight: 1 }], null);
    expect(d0).toBeLessThan(0);
    expect(d1).toBeGreaterThan(1.19);
  });
});

describe("FunnelPlot", () => {
  it("plots observed and trim-and-fill points distinctly with Egger's line inside the funnel region", () => {
    const html = renderToStaticMarkup(
      <FunnelPlot
        id="u"
        measure="RR"
        studies={analysis.effects}
        estimate={-0.83}
        egger={{ intercept: -0.45, slope: -2.1, pval: 0.153 }}
        filled={[{ yi: 0.1, vi: 0.2 }]}
      />,
    );
    expect(attrs(html, "funnel-point", "r")).toHaveLength(5);
    expect(attrs(html, "funnel-filled-point", "r")).toHaveLength(1);
    expect(html).toMatch(/data-testid="funnel-filled-point"[^>]*fill="#ffffff"/);
    expect(html).toContain('data-testid="egger-line"');
    expect(html).toContain('data-testid="funnel-region"');
    expect(visible(html)).toContain("Egger's line (p = 0.153)");
    expect(visible(html)).toContain("Standard error");
  });

  it("puts the most precise study highest (inverted SE axis)", () => {
    const html = renderToStaticMarkup(
      <FunnelPlot id="u" measure="RR" studies={analysis.effects} estimate={-0.83} egger={null} />,
    );
    const cy = attrs(html, "funnel-point", "cy");
    const se = analysis.effects.map((e) => Math.sqrt(e.vi));
    const mostPrecise = se.indexOf(Math.min(...se));
    expect(Math.min(...cy)).toBe(cy[mostPrecise]);
    expect(visible(html)).toContain("Egger's test not estimable");
    const few = renderToStaticMarkup(
      <FunnelPlot id="u" measure="RR" studies={analysis.effects.slice(0, 2)} estimate={-0.83} egger={null} />,
    );
    expect(visible(few)).toContain("Egger's test needs 3 or more studies");
  });

  it("leaves out unplottable points and reports them, without NaN", () => {
    const html = renderToStaticMarkup(
      <FunnelPlot
        id="u"
        measure="MD"
        studies={[
          { label: "x", yi: Number.NaN, vi: 1 },
          { label: "y", yi: 1, vi: -1 },
        ]}
        estimate={Number.NaN}
        egger={null}
      />,
    );
    expect(html).not.toMatch(/NaN|Infinity/);
    expect(visible(html)).toContain("2 not plottable");
    const d = funnelDomains([], Number.NaN);
    expect(d.se).toEqual([0, 1]);
  });
});

describe("PrismaDiagram", () => {
  it("shows identification per database, duplicates, screening, exclusions with reasons and inclusion", () => {
    const html = renderToStaticMarkup(<PrismaDiagram id="p" counts={jobResult.prisma!} />);
    const text = visible(html);
    expect(text).toContain("(n = 200)");
    expect(text).toContain("PubMed (n = 120)");
    expect(text).toContain("Europe PMC (n = 80)");
    expect(text).toContain("Duplicate records removed (n = 15)");
    expect(text).toContain("Records screened (n = 185)");
    expect(text).toContain("Records excluded (n = 179)");
    expect(text).toContain("Reports sought for retrieval (n = 6)");
    expect(text).toContain("Reports not retrieved (n = 0)");
    expect(text).toContain("No usable effect data (n = 1)");
    expect(text).toContain("Studies included in review (n = 5)");
    expect(html).toContain('<title id="p-title">PRISMA 2020 flow diagram</title>');
    expect(prismaBoxes({ ...jobResult.prisma!, reportsExcluded: [] }).reportsExcluded).toEqual([
      "Reports excluded:",
      "none (n = 0)",
    ]);
  });

  it("states the records not yet decided beside each stage's exclusions so that every box adds up", () => {
    const counts = {
      identified: { PubMed: 200, "embase.ris": 80 },
      duplicatesRemoved: 16,
      screened: 23,
      excluded: 14,
      awaitingScreening: 241,
      maybe: 1,
      sought: 8,
      notRetrieved: 1,
      reportsAssessed: 5,
      awaitingFullText: 2,
      fullTextMaybe: 1,
      reportsExcluded: [{ reason: "Wrong outcome", count: 3 }],
      included: 1,
    };
    const b = prismaBoxes(counts);
    expect(b.screened).toEqual(["Records to screen (n = 264)", "screened so far (n = 23)"]);
    expect(b.excluded).toEqual([
      "Records excluded (n = 14)",
      "Not yet decided (n = 242):",
      "awaiting a decision (n = 241)",
      "marked maybe (n = 1)",
    ]);
    expect(b.assessed).toEqual(["Reports to assess for eligibility (n = 7)", "assessed so far (n = 5)"]);
    expect(b.reportsExcluded).toEqual([
      "Reports excluded:",
      "Wrong outcome (n = 3)",
      "Not yet decided (n = 3):",
      "awaiting a decision (n = 2)",
      "marked maybe (n = 1)",
    ]);
    const text = visible(renderToStaticMarkup(<PrismaDiagram id="p" counts={counts} />));
    expect(text).toContain("marked maybe (n = 1)");
    expect(text).not.toContain("Records screened");
    // Without a maybe the derived flow is unchanged: sought = screened − excluded.
    expect(prismaBoxes({ ...jobResult.prisma!, sought: undefined }).sought).toEqual([
      "Reports sought for retrieval (n = 6)",
    ]);
  });

  it("makes each phase band at least as tall as its vertical label", () => {
    for (const counts of [jobResult.prisma!, { ...jobResult.prisma!, identified: {} }]) {
      const { phases } = prismaLayout(counts);
      for (const [label, top, bottom] of phases)
        expect(bottom - top, label).toBeGreaterThanOrEqual(phaseLabelLength(label));
    }
    expect(phaseLabelLength("Included")).toBeGreaterThan(35);
  });
});

describe("GRADE, heterogeneity and the analysis view", () => {
  it("lists every GRADE domain with its judgement and reason", () => {
    const html = renderToStaticMarkup(<GradeTable outcome="tuberculosis" grade={analysis.grade} />);
    expect((html.match(/data-testid="grade-row"/g) ?? []).length).toBe(5);
    expect(visible(html)).toContain("⊕⊕◯◯ LOW");
    expect(visible(html)).toContain("Serious (−1)");
    expect(visible(html)).toContain("I² = 61% and the prediction interval crosses no effect.");
  });

  it("says in words what does not apply to one study", () => {
    const html = renderToStaticMarkup(
      <HeterogeneityPanel
        measure="RR"
        method="REML"
        k={1}
        tau2={0}
        tau2_ci={null}
        I2={Number.NaN}
        H2={Number.NaN}
        QE={0}
        QEp={Number.NaN}
        pi_lb={Number.NaN}
        pi_ub={Number.NaN}
      />,
    );
    expect(html).not.toMatch(/NaN/);
    expect(visible(html)).toContain("not applicable (one study)");
    expect(interpretI2(80)).toMatch(/Considerable/);
    expect(interpretI2(Number.NaN)).toMatch(/could not be estimated/);
  });

  it("renders an analysis with back-transformed numbers, notes and every section", () => {
    const html = renderToStaticMarkup(
      <AnalysisView a={{ ...analysis, notes: ["Begg's test needs more studies."] }} index={0} />,
    );
    const text = visible(html);
    expect(text).toContain(`RR ${displayEstimate("RR", -0.83, -1.41, -0.25)}`);
    expect(text).toContain("-0.8300 (0.2100)");
    expect(text).toContain("Begg's test needs more studies.");
    for (const id of [
      "forest-plot",
      "funnel-plot",
      "heterogeneity-panel",
      "leave-one-out",
      "grade-table",
      "trimfill-note",
      "egger-note",
    ]) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(trimFillNote(analysis)).toMatch(/imputed 1 study on the right side/);
    expect(trimFillNote({ ...analysis, trimfill: null, k: 2 })).toBe(
      "Trim and fill was not run (it needs at least 3 studies).",
    );
    expect(eggerNote(analysis)).toContain("t(3) = -1.90, p = 0.153");
    expect(html).not.toMatch(/NaN/);
  });

  it("says what a single-study or degenerate analysis cannot give, without NaN", () => {
    const one = {
      ...analysis,
      k: 1,
      effects: analysis.effects.slice(0, 1),
      weights: [100],
      se: Number.NaN,
      statistic: Number.NaN,
      pval: Number.NaN,
      pi_lb: Number.NaN,
      pi_ub: Number.NaN,
      I2: Number.NaN,
      H2: Number.NaN,
      QEp: Number.NaN,
      tau2_ci: null,
      egger: null,
      begg: null,
      trimfill: null,
      leaveOneOut: [],
    };
    const html = renderToStaticMarkup(<AnalysisView a={one} index={1} />);
    expect(html).not.toMatch(/NaN|Infinity/);
    const text = visible(html);
    expect(text).toContain("Only one study reports this outcome");
    expect(text).toContain("not applicable (one study)");
    expect(text).toContain("Leave-one-out analysis needs at least 3 studies.");
  });

  it("renders the whole result: analyses, unpooled outcomes, narrative and PRISMA", () => {
    const html = renderToStaticMarkup(
      <ResultsView
        result={{
          ...jobResult,
          unpooled: [
            {
              outcome: "mortality",
              measure: "RR",
              reportedMeasure: "HR",
              studyIds: ["3"],
              reason: "Only one study reports it",
            },
          ],
        }}
      />,
    );
    const text = visible(html);
    expect(text).toContain("Outcomes reported but not pooled");
    expect(text).toContain("mortality (Hazard ratio, 1 study): Only one study reports it");
    expect(text).toContain("Executive summary");
    expect(text).toContain("Pooled effect size");
    expect(html).toContain('data-testid="prisma-diagram"');
    expect(sectionTitle("futureResearchPriorities")).toBe("Future research priorities");
  });
});

describe("DataTable", () => {
  it("renders editable inputs with a quote mark per value", () => {
    const rows = rowsFromExtraction(jobResult.extracted);
    const html = renderToStaticMarkup(<DataTable rows={rows} excluded={jobResult.excluded} onChange={() => {}} />);
    expect((html.match(/data-testid="data-row"/g) ?? []).length).toBe(5);
    expect((html.match(/<input type="number"/g) ?? []).length).toBe(20);
    expect((html.match(/data-testid="value-quote-mark"/g) ?? []).length).toBe(20);
    expect(visible(html)).toContain("A narrative review — No effect estimate with a confidence interval found");
  });

  it("shows a long outcome name whole in a box as tall as it needs", () => {
    const rows = rowsFromExtraction(jobResult.extracted);
    const name = "Major adverse cardiovascular events including stroke at 12 months";
    rows[0] = { ...rows[0]!, outcome: name };
    const html = renderToStaticMarkup(<DataTable rows={rows} excluded={[]} onChange={() => {}} />);
    expect(html).toContain(`>${name}</textarea>`);
    expect(outcomeRows(name)).toBe(3);
    expect(outcomeRows("")).toBe(1);
    expect(html).toMatch(/<textarea[^>]*rows="3"[^>]*>Major adverse/);
  });

  it("prints quotes in full when read-only and flags rows that cannot be pooled", () => {
    const rows = rowsFromExtraction(jobResult.extracted);
    rows[0] = { ...rows[0]!, data: { kind: "counts", events1: 200, n1: 123, events2: 11, n2: 139 } };
    const html = renderToStaticMarkup(<DataTable rows={rows} excluded={[]} />);
    expect(html).not.toContain("<input");
    expect(visible(html)).toContain("Tuberculosis occurred in 6 of 306 vaccinated");
    expect(visible(html)).toContain("Events cannot exceed the group size.");
  });
});
