import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { UploadedStudy } from "~/lib/uploads";
import { StudyItem } from "./study-list";

const study = (status: UploadedStudy["status"]): UploadedStudy => ({
  id: 1,
  title: "Scanned trial report",
  authors: [],
  fileName: "scan.pdf",
  fileSize: 2048,
  uploadedAt: "2026-01-01T00:00:00.000Z",
  status,
  progress: 100,
  stageDetail: null,
  failureReason: status === "failed" ? "No text layer: the PDF is a scan" : null,
  aiSummary: null,
  fullTextAnalysis: null,
  journal: null,
  publicationDate: null,
  doi: null,
  abstract: null,
  studyType: null,
  keywords: [],
  pagesRead: null,
  totalPages: null,
});

const noop = () => {};
const render = (s: UploadedStudy) =>
  renderToStaticMarkup(
    <StudyItem
      study={s}
      selected={false}
      pending={null}
      streaming={null}
      onSelect={noop}
      onSummary={noop}
      onAnalysis={noop}
      onDelete={noop}
      onViewSummary={noop}
      onViewAnalysis={noop}
    />,
  );

describe("StudyItem", () => {
  it("a failed upload states why and offers only Delete, no summary or analysis", () => {
    const html = render(study("failed"));
    expect(html).toContain("Failed: No text layer: the PDF is a scan");
    expect(html).not.toContain("Generate Summary");
    expect(html).not.toContain("Full Analysis");
    expect(html).not.toContain("No Summary");
    expect(html).toContain("Delete");
  });

  it("a ready upload offers its summary and analysis", () => {
    const html = render(study("ready"));
    expect(html).toContain("Generate Summary");
    expect(html).toContain("Full Analysis");
  });
});
