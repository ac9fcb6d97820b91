/**
 * The Upload page's pure helpers (SPEC §2 Upload page, §4 Uploaded study, §5 Upload, §9 Upload):
 * file-size formatting, drop validation, per-file progress, the analysis text sections, and the
 * downloadable HTML report. The upload itself is app/browser/upload-pdfs.ts.
 */

/** An uploaded study as GET /api/uploaded-studies returns it. */
export interface UploadedStudy {
  id: number;
  title: string;
  authors: string[];
  fileName: string;
  fileSize: number;
  uploadedAt: string;
  status: "queued" | "extracting" | "ready" | "failed";
  /** Percent of the processing done, 0–100. */
  progress: number;
  /** What processing is doing, in words ("Reading page 3 of 12"), or null. */
  stageDetail: string | null;
  failureReason: string | null;
  aiSummary: string | null;
  fullTextAnalysis: string | null;
  journal: string | null;
  publicationDate: string | null;
  doi: string | null;
  abstract: string | null;
  studyType: string | null;
  keywords: string[];
  pagesRead: number | null;
  totalPages: number | null;
}

/** Files per drop (SPEC §9). */
export const MAX_FILES_PER_DROP = 10;
/** Size stated in the drop-zone text (SPEC §5: stated, not enforced on the client). */
export const STATED_MAX_MB = 50;
export const ACCEPTED_TYPE = "application/pdf,.pdf";

const UNITS = ["Bytes", "KB", "MB", "GB"];

/** SPEC §9: Bytes, KB, MB, GB in 1024 steps with 2 decimals ("0 Bytes", "1.5 KB", "2.35 MB"). */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return "0 Bytes";
  const i = Math.min(UNITS.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${UNITS[i]}`;
}

/** Whether a file is a PDF by type or name (SPEC §5: application/pdf, .pdf). */
export function isPdfFile(file: { name: string; type: string }): boolean {
  return file.type === "application/pdf" || /\.pdf$/i.test(file.name);
}

/**
 * Splits dropped files into accepted and rejected ones with the spec's rejection messages: 'File
 * type must be application/pdf,.pdf' for non-PDFs and 'Too many files' for every file beyond 10.
 */
export function validateDrop<F extends { name: string; type: string }>(
  files: readonly F[],
): { accepted: F[]; rejected: { file: F; message: string }[] } {
  const accepted: F[] = [];
  const rejected: { file: F; message: string }[] = [];
  if (files.length > MAX_FILES_PER_DROP) {
    return { accepted, rejected: files.map((file) => ({ file, message: "Too many files" })) };
  }
  for (const file of files) {
    if (isPdfFile(file)) accepted.push(file);
    else rejected.push({ file, message: `File type must be ${ACCEPTED_TYPE}` });
  }
  return { accepted, rejected };
}

/** One file's result in the upload response. */
export interface UploadFileResult {
  fileName: string;
  success: boolean;
  message: string;
  id?: number;
}

/** Thrown by `uploadPdfs` (app/browser/upload-pdfs.ts) on a non-OK response: `status: body` (SPEC §7). */
export class UploadError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; message?: string; feature?: string } | null,
  ) {
    super(`${status}: ${body?.message ?? "Upload failed"}`);
    this.name = "UploadError";
  }
}

/**
 * The upload progress of each file from the bytes sent so far: the files are sent in order, so
 * file i is `(loaded - bytes before it) / its size`, clamped to 0..1.
 */
export function perFileProgress(sizes: readonly number[], loaded: number, total: number): number[] {
  const sum = sizes.reduce((a, b) => a + b, 0);
  // The multipart framing adds a little to the body; scale it away.
  const sent = total > 0 ? (loaded / total) * sum : 0;
  let before = 0;
  return sizes.map((size) => {
    const p = size === 0 ? (sent >= before ? 1 : 0) : (sent - before) / size;
    before += size;
    return Math.max(0, Math.min(1, p));
  });
}

/** A titled section of an analysis text. */
export interface TextSection {
  title: string;
  body: string;
}

/**
 * SPEC §4: splits analysis text into titled sections. Headings are Markdown headings (# to
 * ######), lines that are wholly bold (**…**), or short lines ending with a colon; text before
 * the first heading goes under `defaultTitle`. Empty sections are dropped.
 */
export function splitSections(text: string, defaultTitle: string): TextSection[] {
  const sections: TextSection[] = [];
  let title = defaultTitle;
  let lines: string[] = [];
  const flush = () => {
    const body = lines.join("\n").trim();
    if (body) sections.push({ title, body });
    lines = [];
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const hashes = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
    const bold = /^\*\*(.+?)\*\*:?$/.exec(line);
    const colon = line.length <= 80 && /^[^.!?]+:$/.test(line) ? line.slice(0, -1) : null;
    const heading = hashes?.[1] ?? bold?.[1] ?? colon;
    if (heading) {
      flush();
      title = heading.replace(/:$/, "").trim();
    } else {
      lines.push(raw);
    }
  }
  flush();
  return sections;
}

/** Removes the grounding markup of stored AI texts (⟦unverified: x⟧ → x, ⟦framing: x⟧ → x). */
export function stripMarkup(text: string): string {
  return text.replace(/⟦(?:unverified|framing):\s*([^⟧]*)⟧/g, "$1");
}

/** SPEC §9: metamind-{summary|analysis}-report-{timestamp}.html. */
export function reportFileName(type: "summary" | "analysis", now: Date = new Date()): string {
  return `metamind-${type}-report-${now.getTime()}.html`;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A self-contained HTML report: title, evidence and study-count line, the sections, and the
 * studies (title, authors, file name). All text is escaped. `bodyHtml`, when given, replaces the
 * sections: markup React rendered (renderToStaticMarkup escapes every text), e.g. ReportBody.
 */
export function reportHtml(input: {
  title: string;
  evidence: string;
  sections: readonly TextSection[];
  bodyHtml?: string;
  studies: readonly { title: string; authors: readonly string[]; fileName: string }[];
  generatedAt?: Date;
}): string {
  const when = (input.generatedAt ?? new Date()).toISOString();
  const sections =
    input.bodyHtml ??
    input.sections
      .map(
        (s) =>
          `<h2>${escapeHtml(s.title)}</h2>\n${s.body
            .split(/\n{2,}/)
            .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`)
            .join("\n")}`,
      )
      .join("\n");
  const studies = input.studies
    .map(
      (s) =>
        `<li><strong>${escapeHtml(s.title)}</strong><br>${escapeHtml(s.authors.join(", "))}<br><em>${escapeHtml(s.fileName)}</em></li>`,
    )
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(input.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:800px;margin:2rem auto;line-height:1.5;color:#0f172a}h1{font-size:1.6rem}h2,h3{font-size:1.15rem;margin-top:1.5rem}h4{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#475569;margin:1rem 0 .2rem}h5{font-size:.95rem;margin:.8rem 0 .2rem}details{font-size:.85rem;color:#475569}.meta{color:#475569}</style>
</head><body>
<h1>${escapeHtml(input.title)}</h1>
<p class="meta">${escapeHtml(input.evidence)} · ${input.studies.length} ${input.studies.length === 1 ? "study" : "studies"} · Generated ${escapeHtml(when)} by MetaMind</p>
${sections}
<h2>Studies</h2>
<ol>
${studies}
</ol>
</body></html>
`;
}

/** The structured bulk-analysis object (SPEC §3 Bulk analysis response). */
export interface StructuredAnalysis {
  executiveSummary: string;
  quantitativeFindings?: {
    pooledEffectSize?: string;
    confidenceIntervals?: string[] | string;
    primaryOutcomes?: string[] | string;
  };
  commonThemes?: string[];
  clinicalRecommendations?: string;
  conflictsAndHeterogeneity?: string;
  gradeAssessment?: string;
  clinicalImplications?: string;
  strengthOfEvidence?: string;
}

/** Whether content is a JSON object with executiveSummary (SPEC §4: then it renders structured). */
export function asStructured(content: unknown): StructuredAnalysis | null {
  let value = content;
  if (typeof content === "string") {
    try {
      value = JSON.parse(content) as unknown;
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" && typeof (value as StructuredAnalysis).executiveSummary === "string"
    ? (value as StructuredAnalysis)
    : null;
}

const list = (v: string[] | string | undefined): string =>
  Array.isArray(v) ? v.map((x) => `• ${x}`).join("\n") : (v ?? "");

/** The structured analysis as titled sections (for copy and download). */
export function structuredSections(a: StructuredAnalysis): TextSection[] {
  const out: TextSection[] = [
    { title: "Executive Summary", body: a.executiveSummary },
    { title: "Pooled Effect Size", body: a.quantitativeFindings?.pooledEffectSize ?? "" },
    { title: "Confidence Intervals", body: list(a.quantitativeFindings?.confidenceIntervals) },
    { title: "Primary Outcomes", body: list(a.quantitativeFindings?.primaryOutcomes) },
    { title: "Common Themes", body: list(a.commonThemes) },
    { title: "Clinical Recommendations", body: a.clinicalRecommendations ?? "" },
    { title: "Conflicts and Heterogeneity", body: a.conflictsAndHeterogeneity ?? "" },
    { title: "GRADE Assessment", body: a.gradeAssessment ?? "" },
    { title: "Clinical Implications", body: a.clinicalImplications ?? "" },
  ];
  return out.filter((s) => s.body.trim()).map((s) => ({ ...s, body: stripMarkup(s.body) }));
}

/** 'Evidence: Moderate' unless the strength of evidence is known (high/moderate/low). */
export function evidenceLabel(strength: string | null | undefined): string {
  const s = (strength ?? "").toLowerCase();
  if (s === "high" || s === "moderate" || s === "low") return `Evidence: ${s[0]!.toUpperCase()}${s.slice(1)}`;
  return "Evidence: Moderate";
}

/**
 * The toast text after `POST /api/upload-pdfs` answered: what was uploaded, and that extraction
 * is still to come (issue 16: never 'processed' while the files are only queued).
 */
export function uploadedMessage(results: readonly { success: boolean; message?: string }[]): string {
  const ok = results.filter((r) => r.success).length;
  const refusals = results
    .filter((r) => !r.success)
    .map((r) => r.message)
    .filter(Boolean);
  const head = `${ok} of ${results.length} uploaded${ok > 0 ? "; processing…" : ""}`;
  return refusals.length ? `${head}${ok > 0 ? "" : "."} ${refusals.join(" ")}` : head;
}

/** A file refused at upload, as the upload page keeps listing it until the next upload or dismissal. */
export interface UploadRefusal {
  fileName: string;
  message: string;
}

/**
 * After an upload: the files refused (to be listed on the page, not only in a toast) and whether
 * to switch to the list of uploaded studies — only when at least one file was accepted, so a
 * refusal is never hidden by a tab change.
 */
export function afterUpload(results: readonly UploadFileResult[]): { refused: UploadRefusal[]; showList: boolean } {
  return {
    refused: results.filter((r) => !r.success).map((r) => ({ fileName: r.fileName, message: r.message })),
    showList: results.some((r) => r.success),
  };
}

/**
 * Whether the uploads `ids` have finished processing in `studies` (none queued or extracting),
 * and how they ended; null while any is still processing. Ids no longer listed count as failed.
 */
export function processingOutcome(
  ids: readonly number[],
  studies: readonly Pick<UploadedStudy, "id" | "status">[],
): { ready: number; failed: number } | null {
  let ready = 0;
  let failed = 0;
  for (const id of ids) {
    const study = studies.find((s) => s.id === id);
    if (!study || study.status === "failed") failed++;
    else if (study.status === "ready") ready++;
    else return null;
  }
  return { ready, failed };
}

/**
 * The report modal's title (SPEC §2: 'Combined Summary of N Studies', 'Meta-Analysis of N
 * Uploaded Studies'), with the singular for one study.
 */
export function reportTitle(type: "summary" | "analysis", n: number): string {
  const studies = n === 1 ? "Study" : "Studies";
  return type === "summary" ? `Combined Summary of ${n} ${studies}` : `Meta-Analysis of ${n} Uploaded ${studies}`;
}
