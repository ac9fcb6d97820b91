import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { summaryOfFindings } from "~/lib/meta-analysis/summary-of-findings";
import type { OutcomeAnalysis } from "~/lib/meta-analysis/types";
import { analysis, extracted, jobResult } from "../../../tests/meta-analysis-result";
import { AnalysisView, ResultsView } from "./analysis-results";
import { buildReportHtml } from "~/components/meta-analysis/report-html";

const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

const set = (overall: "low" | "some_concerns" | "high") =>
  ({ D1: "low", D2: "low", D3: overall, D4: "low", D5: "low", overall }) as const;

const withRob: OutcomeAnalysis = {
  ...analysis,
  riskOfBias: ["low", "high", null, "some_concerns", "low"],
  riskOfBiasDomains: [set("low"), set("high"), null, set("some_concerns"), set("low")],
  riskOfBiasSensitivity: [
    {
      scenario: "all",
      label: "All studies",
      k: 5,
      studyIds: ["1", "2", "3", "4", "5"],
      estimate: -0.83,
      ci_lb: -1.41,
      ci_ub: -0.25,
      pval: 0.012,
      I2: 80,
      tau2: 0.3,
    },
    {
      scenario: "without_high",
      label: "Without high risk of bias",
      k: 4,
      studyIds: ["1", "3", "4", "5"],
      estimate: -0.7,
      ci_lb: -1.3,
      ci_ub: -0.1,
      pval: 0.03,
      I2: 70,
      tau2: 0.2,
    },
    {
      scenario: "low_only",
      label: "Low risk of bias only",
      k: 2,
      studyIds: ["1", "5"],
      estimate: null,
      ci_lb: null,
      ci_ub: null,
      pval: null,
      I2: null,
      tau2: null,
      note: "The model is not estimable for these studies.",
    },
  ],
  summaryOfFindings: summaryOfFindings({ ...analysis, rows: extracted }, { assumedControlRisk: 0.1 }),
};

describe("risk of bias in the results", () => {
  it("adds a RoB column beside the forest plot with robvis glyphs and '?' for a study not assessed", () => {
    const html = renderToStaticMarkup(<AnalysisView a={withRob} index={0} />);
    const marks = [...html.matchAll(/data-testid="forest-rob" data-judgement="([a-z_]+)"/g)].map((m) => m[1]);
    expect(marks).toEqual(["low", "high", "not_assessed", "some_concerns", "low"]);
    expect(html).toContain('viewBox="0 0 804 ');
    expect(visible(html)).toContain("Rosenthal 1960: ");
    expect(visible(html)).toContain("risk of bias not assessed");
    // Without judgements: no column, the plot keeps its width.
    const plain = renderToStaticMarkup(<AnalysisView a={analysis} index={0} />);
    expect(plain).not.toContain("forest-rob");
    expect(plain).toContain('viewBox="0 0 760 ');
    expect(plain).not.toContain("rob-sensitivity");
    expect(plain).not.toContain("rob-plots");
  });

  it("shows the sensitivity analysis side by side with the main one, on the display scale", () => {
    const text = visible(renderToStaticMarkup(<AnalysisView a={withRob} index={0} />));
    expect(text).toContain("All studies 5 0.44 [0.24, 0.78] p = 0.012 80%");
    expect(text).toContain("Without high risk of bias 4 0.50 [0.27, 0.90] p = 0.030 70%");
    expect(text).toContain("Low risk of bias only 2 The model is not estimable for these studies.");
  });

  it("draws the traffic-light plot (studies with domain judgements) and the weighted summary plot", () => {
    const html = renderToStaticMarkup(<AnalysisView a={withRob} index={0} />);
    const traffic = /data-testid="rob-traffic-light-0"[\s\S]*?<\/svg>/.exec(html)![0];
    expect((traffic.match(/<g data-study=/g) ?? []).length).toBe(4);
    expect(traffic).not.toContain("Rosenthal 1960");
    expect(html).toContain("Weighted by meta-analysis weight");
  });

  it("renders the Summary of Findings table with certainty symbols, footnotes and per-1,000 effects in the report", () => {
    const report = buildReportHtml({
      title: "T",
      result: { ...jobResult, analyses: [withRob] },
      options: { method: "REML", test: "knha" },
      generatedAt: new Date("2026-11-26T12:00:00Z"),
    });
    const text = visible(report);
    expect(report).toContain('data-testid="summary-of-findings"');
    expect(text).toMatch(/tuberculosis \d+ \(5 studies\) [⊕◯]{4} (High|Moderate|Low|Very low)/);
    expect(text).toContain("RR 0.44 (0.24 to 0.78)");
    expect(text).toContain("100 per 1,000");
    expect(text).toMatch(/56 fewer per 1,000 \(from 76 fewer to 22 fewer\)/);
    expect(text).toContain("the assumed control risk the reviewer entered");
    const none = renderToStaticMarkup(
      <ResultsView result={{ ...jobResult, analyses: [{ ...analysis, summaryOfFindings: undefined }] }} />,
    );
    expect(none).not.toContain("summary-of-findings");
  });
});
