import { describe, expect, it } from "vitest";
import { extractArms } from "../../../arms/index.ts";
import { documentFacts, extractStudyFacts } from "../../facts.ts";
import { documentSentences, joinedStudyDocument, parseReport, partOf, reportDocument, studyDocument } from "./index.ts";

const TITLE = "Quetorin versus placebo in adults with depression: a randomised controlled trial";
const ABSTRACT =
  "  Methods: We randomised 202 adults to quetorin (n = 101) or placebo (n = 101).\nResults: Remission occurred in 41/101 vs 21/101 (RR 1.95, 95% CI 1.24 to 3.06).  ";
const FULL_TEXT = [
  "Results",
  "",
  "Table 2 Outcomes at week 8",
  "Outcome        Quetorin (n = 101)    Placebo (n = 101)",
  "Remission      41 (40.6%)            21 (20.8%)",
  "Response       55 (54.5%)            30 (29.7%)",
  "",
  "Adverse events were mild. Nausea was the most common.",
].join("\n");

describe("StudyDocument: one document built once from a study's source", () => {
  it("keeps a study's parts verbatim, so a part's offsets slice the text the caller gave", () => {
    const doc = studyDocument({ title: TITLE, abstract: ABSTRACT, fullText: FULL_TEXT });
    expect(doc.parts.map((p) => p.kind)).toEqual(["title", "abstract", "fullText"]);
    expect(partOf(doc, "abstract")?.text).toBe(ABSTRACT);
    expect(partOf(doc, "fullText")?.text).toBe(FULL_TEXT);
    expect(doc.text.slice(doc.parts[0]!.start, doc.parts[0]!.end)).toBe(TITLE);
    // The full text's fixed-width table is read into a grid, as plain text reports are.
    expect(doc.tables).toHaveLength(1);
    expect(doc.tables[0]!.rows.map((r) => r[0])).toEqual(["Remission", "Response"]);
    // Every paragraph lies inside one part and has no surrounding whitespace.
    for (const p of doc.paragraphs) {
      const text = doc.text.slice(p.start, p.end);
      expect(text).toBe(text.trim());
      expect(doc.parts.some((q) => q.kind === p.section && p.start >= q.start && p.end <= q.end)).toBe(true);
    }
  });

  it("leaves out a blank part and gives no tables to a study without full text", () => {
    const doc = studyDocument({ title: TITLE, abstract: "   ", fullText: null });
    expect(doc.parts.map((p) => p.kind)).toEqual(["title"]);
    expect(partOf(doc, "abstract")).toBeNull();
    expect(doc.tables).toEqual([]);
  });

  it("splits sentences once per document, each with its section and part", () => {
    const doc = studyDocument({ title: TITLE, abstract: ABSTRACT, fullText: FULL_TEXT });
    const sentences = documentSentences(doc);
    expect(documentSentences(doc)).toBe(sentences);
    const texts = sentences.map((s) => doc.text.slice(s.start, s.end));
    expect(texts).toContain("Adverse events were mild.");
    const nausea = sentences.find((s) => doc.text.slice(s.start, s.end).startsWith("Nausea"))!;
    expect(nausea.part).toBe("fullText");
    expect(sentences.find((s) => doc.text.slice(s.start, s.end).includes("202 adults"))!.part).toBe("abstract");
  });

  it("builds a report's document from the same parsers the arm path used, as one full-text part", () => {
    const doc = reportDocument(FULL_TEXT, "text", TITLE);
    const report = parseReport(FULL_TEXT, "text");
    expect(doc.text).toBe(report.text);
    expect(doc.tables).toEqual(report.tables);
    expect(doc.parts).toEqual([{ kind: "fullText", start: 0, end: report.text.length }]);
    expect(doc.title).toBe(TITLE);
  });

  it("is read by arms and study facts alike: the same object gives the table's counts and the facts", () => {
    const doc = studyDocument({ title: TITLE, abstract: ABSTRACT, fullText: FULL_TEXT });
    const arms = extractArms(doc, { intervention: "quetorin", comparator: "placebo", outcome: "response" });
    expect(arms.intervention.events).toBe(55);
    expect(arms.comparator.events).toBe(30);
    const facts = documentFacts(doc);
    expect(facts.text).toBe(doc.text);
    expect(facts.design).toBe("rct");
  });

  it("keeps a caller's joined title + abstract text as it is (offsets unchanged) and reads facts as before", () => {
    const text = `${TITLE}\n\n${ABSTRACT}`;
    const doc = joinedStudyDocument(text, { titleEnd: TITLE.length });
    expect(doc.text).toBe(text);
    expect(doc.parts.map((p) => [p.kind, text.slice(p.start, p.end)])).toEqual([
      ["title", TITLE],
      ["abstract", ABSTRACT.trimStart()],
    ]);
    expect(documentFacts(doc)).toEqual(extractStudyFacts(text, { titleEnd: TITLE.length }));
    expect(joinedStudyDocument("Only a title", { titleEnd: 12 }).parts.map((p) => p.kind)).toEqual(["title"]);
  });
});
