import { describe, expect, it } from "vitest";
import { jobResult } from "../../../tests/meta-analysis-result";
import { buildReportHtml, escapeHtml } from "./report-html";

const generatedAt = new Date("2026-11-22T01:00:00Z");

describe("report HTML", () => {
  const html = buildReportHtml({
    title: "BCG <vaccine> & TB",
    description: 'Trials of "BCG"',
    result: {
      ...jobResult,
      extracted: jobResult.extracted.map((e, i) => (i === 0 ? { ...e, extractedBy: "user" } : e)),
    },
    options: { method: "REML", test: "knha" },
    generatedAt,
  });

  it("is one self-contained document: inline CSS and SVG, no scripts, no external resources", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain("<style>");
    expect(html).not.toMatch(/<script|<link\b|<img\b|<iframe/i);
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import/);
    // Forest, funnel, PRISMA, Baujat and cumulative forest plots.
    expect((html.match(/<svg\b/g) ?? []).length).toBe(5);
    expect(html).toContain('data-testid="baujat-plot"');
    expect(html).toContain('data-testid="cumulative-forest-plot"');
    expect(html).toContain('data-testid="sensitivity-analyses"');
    expect(html).toContain('data-testid="forest-plot"');
    expect(html).toContain('data-testid="funnel-plot"');
    expect(html).toContain('data-testid="prisma-diagram"');
    expect(html).not.toMatch(/NaN|Infinity/);
  });

  it("escapes the title and description", () => {
    expect(html).toContain("<title>BCG &lt;vaccine&gt; &amp; TB</title>");
    expect(html).not.toContain("<vaccine>");
    expect(escapeHtml(`<a href="x">'`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;");
  });

  it("states the methods with the estimator, the test and the engine", () => {
    expect(html).toContain("Restricted maximum likelihood (REML)");
    expect(html).toContain("Hartung–Knapp");
    expect(html).toContain("computed by MetaMind&#x27;s metafor-compatible engine");
    expect(html).toContain("values marked as edited were corrected by the reviewer");
  });

  it("holds the data table with quotes, GRADE, narrative and excluded studies", () => {
    expect(html).toContain("Tuberculosis occurred in 4 of 123 vaccinated and 11 of 139 control participants.");
    expect(html).toContain('data-testid="grade-table"');
    expect(html).toContain("Executive summary");
    expect(html).toContain("A narrative review");
    expect(html).toContain("2026-11-22 01:00 UTC");
  });
});
