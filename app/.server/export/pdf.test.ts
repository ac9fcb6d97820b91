import { PDFDocument } from "pdf-lib";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { isCollectiveName, toCslName, toDateParts } from "../citations/csl";
import { PDF_MARGIN_PT, toPdf } from "./pdf";
import type { ExportStudy } from "./types";

const study = (i: number): ExportStudy => ({
  id: i,
  title: `Effects of zinc on immunity in older adults — trial ${i} (Ångström café)`,
  authors: ["Jane Smith", "Lu D", "Édouard Müller"],
  journal: "Journal of Nutrition",
  publicationDate: "2020-04-01",
  doi: `10.1000/zinc.${i}`,
  abstract: "Background: zinc matters. ".repeat(40) + "Ελληνικά κείμενο 中文",
  aiSummary: "Zinc shortened colds by 2 days.",
});

describe("PDF export", () => {
  it("is A4 with 0.75 in margins, paginates, and keeps the text (unencodable characters replaced)", async () => {
    const bytes = await toPdf(
      Array.from({ length: 12 }, (_, i) => study(i + 1)),
      { includeMetadata: true, includeAbstracts: true, includeSummaries: true, includeCitations: false },
      new Date("2026-01-02T00:00:00Z"),
    );
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBeGreaterThan(1);
    for (const page of doc.getPages()) {
      expect(page.getWidth()).toBeCloseTo(595.28, 1);
      expect(page.getHeight()).toBeCloseTo(841.89, 1);
    }
    expect(PDF_MARGIN_PT).toBe(54);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
    expect(text).toContain("MetaMind study export");
    expect(text).toContain("12 studies · exported 2026-01-02");
    expect(text).toContain("Effects of zinc on immunity in older adults");
    expect(text).toContain("DOI: 10.1000/zinc.1");
    expect(text).toContain("AI summary: Zinc shortened colds by 2 days.");
    expect(text).toMatch(/Page 1 of \d+/);
  });
});

describe("CSL names and dates", () => {
  it("reads the providers' author formats", () => {
    expect(toCslName("Lu D")).toEqual({ family: "Lu", given: "D." });
    expect(toCslName("Tita ATN")).toEqual({ family: "Tita", given: "A. T. N." });
    expect(toCslName("Smith, Jane")).toEqual({ family: "Smith", given: "Jane" });
    expect(toCslName("Douglas P. Hardin")).toEqual({ family: "Hardin", given: "Douglas P." });
    expect(toCslName("Edwin van Teijlingen")).toEqual({ family: "van Teijlingen", given: "Edwin" });
    expect(toCslName("Plato")).toEqual({ literal: "Plato" });
    expect(toCslName("RECOVERY Collaborative Group")).toEqual({ literal: "RECOVERY Collaborative Group" });
    expect(
      toCslName("Eunice Kennedy Shriver National Institute of Child Health Human Development Network, Bethesda, MD"),
    ).toEqual({
      literal: "Eunice Kennedy Shriver National Institute of Child Health Human Development Network",
    });
    expect(isCollectiveName("Jane Smith")).toBe(false);
  });

  it("turns ISO prefixes into date parts", () => {
    expect(toDateParts("2021-03-04")).toEqual([2021, 3, 4]);
    expect(toDateParts("2021-03")).toEqual([2021, 3]);
    expect(toDateParts("2021")).toEqual([2021]);
    expect(toDateParts("2021-13")).toEqual([2021]);
    expect(toDateParts("spring")).toBeUndefined();
    expect(toDateParts(null)).toBeUndefined();
  });
});
