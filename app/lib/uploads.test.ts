import { describe, expect, it } from "vitest";
import {
  processingOutcome,
  reportTitle,
  uploadedMessage,
  afterUpload,
  asStructured,
  evidenceLabel,
  formatFileSize,
  perFileProgress,
  reportFileName,
  reportHtml,
  splitSections,
  stripMarkup,
  validateDrop,
} from "./uploads";

describe("formatFileSize (SPEC §9: 1024 steps, 2 decimals)", () => {
  it.each([
    [0, "0 Bytes"],
    [1, "1 Bytes"],
    [1023, "1023 Bytes"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [446202, "435.74 KB"],
    [1225228, "1.17 MB"],
    [50 * 1024 * 1024, "50 MB"],
    [3 * 1024 ** 3, "3 GB"],
  ])("%d → %s", (bytes, text) => expect(formatFileSize(bytes)).toBe(text));
});

describe("validateDrop (SPEC §5 drop rejections)", () => {
  const f = (name: string, type = "application/pdf") => ({ name, type });
  it("accepts PDFs by type or name and rejects other types with the spec's message", () => {
    const { accepted, rejected } = validateDrop([f("a.pdf"), f("b.PDF", ""), f("c.png", "image/png")]);
    expect(accepted.map((x) => x.name)).toEqual(["a.pdf", "b.PDF"]);
    expect(rejected).toEqual([{ file: f("c.png", "image/png"), message: "File type must be application/pdf,.pdf" }]);
  });
  it("rejects a drop of more than 10 files as 'Too many files'", () => {
    const eleven = Array.from({ length: 11 }, (_, i) => f(`${i}.pdf`));
    const { accepted, rejected } = validateDrop(eleven);
    expect(accepted).toEqual([]);
    expect(rejected.every((r) => r.message === "Too many files")).toBe(true);
    expect(validateDrop(eleven.slice(0, 10)).accepted).toHaveLength(10);
  });
});

describe("perFileProgress", () => {
  it("fills files in order", () => {
    expect(perFileProgress([100, 300], 0, 400)).toEqual([0, 0]);
    expect(perFileProgress([100, 300], 200, 400)).toEqual([1, 1 / 3]);
    expect(perFileProgress([100, 300], 400, 400)).toEqual([1, 1]);
  });
});

describe("splitSections (SPEC §4 analysis view)", () => {
  it("splits at ###/#### headings, bold lines and lines ending with a colon, with a default first section", () => {
    const text =
      "Intro line.\n### Objective\nTo test.\n#### Design & Population\n412 adults.\n**Limitations**\nNo blinding.\nConclusion:\nIt works.";
    expect(splitSections(text, "Executive Summary")).toEqual([
      { title: "Executive Summary", body: "Intro line." },
      { title: "Objective", body: "To test." },
      { title: "Design & Population", body: "412 adults." },
      { title: "Limitations", body: "No blinding." },
      { title: "Conclusion", body: "It works." },
    ]);
    expect(splitSections("Just text.", "Combined Analysis")).toEqual([
      { title: "Combined Analysis", body: "Just text." },
    ]);
  });
  it("strips grounding markup", () => {
    expect(stripMarkup("HR ⟦unverified: 0.5⟧ and ⟦framing: note⟧.")).toBe("HR 0.5 and note.");
  });
});

describe("reports", () => {
  it("titles the report with the right number", () => {
    expect(reportTitle("summary", 1)).toBe("Combined Summary of 1 Study");
    expect(reportTitle("summary", 3)).toBe("Combined Summary of 3 Studies");
    expect(reportTitle("analysis", 2)).toBe("Meta-Analysis of 2 Uploaded Studies");
  });
  it("names downloads metamind-{type}-report-{timestamp}.html", () => {
    expect(reportFileName("summary", new Date(1700000000000))).toBe("metamind-summary-report-1700000000000.html");
    expect(reportFileName("analysis", new Date(5))).toBe("metamind-analysis-report-5.html");
  });
  it("escapes every text in the HTML report", () => {
    const html = reportHtml({
      title: "Combined Summary of 1 Studies",
      evidence: "Evidence: Moderate",
      sections: [{ title: "<b>x</b>", body: "a < b & c" }],
      studies: [{ title: "T <script>", authors: ["A"], fileName: "f.pdf" }],
    });
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(html).toContain("a &lt; b &amp; c");
    expect(html).not.toContain("<script>");
  });
  it("reads structured analyses and the evidence label", () => {
    expect(asStructured({ executiveSummary: "x" })).toEqual({ executiveSummary: "x" });
    expect(asStructured('{"executiveSummary":"y"}')).toEqual({ executiveSummary: "y" });
    expect(asStructured("### Heading\ntext")).toBeNull();
    expect(evidenceLabel(null)).toBe("Evidence: Moderate");
    expect(evidenceLabel("high")).toBe("Evidence: High");
    expect(evidenceLabel("low")).toBe("Evidence: Low");
  });
});

describe("upload toasts (issue 16 defect 3)", () => {
  it("says what was uploaded and that processing follows", () => {
    expect(
      uploadedMessage([
        { success: true },
        { success: true },
        { success: true },
        { success: false, message: "x.txt is not a PDF." },
      ]),
    ).toBe("3 of 4 uploaded; processing… x.txt is not a PDF.");
    expect(uploadedMessage([{ success: false, message: "Empty." }])).toBe("0 of 1 uploaded. Empty.");
  });
  it("keeps refused files for the page and stays on the upload tab when nothing was accepted", () => {
    expect(afterUpload([{ fileName: "notes.txt", success: false, message: "notes.txt is not a PDF." }])).toEqual({
      refused: [{ fileName: "notes.txt", message: "notes.txt is not a PDF." }],
      showList: false,
    });
    expect(
      afterUpload([
        { fileName: "a.pdf", success: true, message: "ok", id: 1 },
        { fileName: "b.txt", success: false, message: "b.txt is not a PDF." },
      ]),
    ).toEqual({
      refused: [{ fileName: "b.txt", message: "b.txt is not a PDF." }],
      showList: true,
    });
  });
  it("reports the outcome only once every upload has left queued/extracting", () => {
    expect(
      processingOutcome(
        [1, 2],
        [
          { id: 1, status: "ready" },
          { id: 2, status: "extracting" },
        ],
      ),
    ).toBeNull();
    expect(
      processingOutcome(
        [1, 2, 3],
        [
          { id: 1, status: "ready" },
          { id: 2, status: "failed" },
        ],
      ),
    ).toEqual({ ready: 1, failed: 2 });
  });
});
