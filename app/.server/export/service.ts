import { inArray } from "drizzle-orm";
import { studies as studiesTable, type UserRow } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError, parseInput } from "../http/errors";
import { shownStudy } from "../studies/ensure";
import { latestSummaries } from "../studies/queries";
import { toBibtexExport, toCsv, toHtml, toJson, toRisExport } from "./formats";
import { toPdf } from "./pdf";
import {
  ExportRequestSchema,
  PRO_EXPORT_FEATURES,
  type ExportFile,
  type ExportFormat,
  type ExportStudy,
} from "./types";

const EXTENSIONS: Record<ExportFormat, string> = {
  csv: "csv",
  json: "json",
  html: "html",
  bibtex: "bib",
  ris: "ris",
  pdf: "pdf",
};

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
  html: "text/html; charset=utf-8",
  bibtex: "application/x-bibtex; charset=utf-8",
  ris: "application/x-research-info-systems; charset=utf-8",
  pdf: "application/pdf",
};

const PRO_REASONS = {
  citation_export: "Citation exports (BibTeX, RIS) require Professional subscription",
  pdf_export: "PDF exports require Professional subscription",
} as const;

/** SPEC §8: the text shown under 'PDF Export Unavailable' when the server cannot build a PDF. */
export const PDF_UNAVAILABLE_MESSAGE = "PDF generation is temporarily unavailable. Please try HTML format instead.";

/** The dated file name of an export: metamind-studies-YYYY-MM-DD.{ext} (UTC date). */
export function exportFilename(format: ExportFormat, now: Date): string {
  return `metamind-studies-${now.toISOString().slice(0, 10)}.${EXTENSIONS[format]}`;
}

/**
 * Checks who may export what (SPEC §5, §6): guests get 401 'Sign In Required'; BibTeX and RIS
 * need Professional (citation_export), PDF needs Professional (pdf_export).
 * @throws AppError 401 UNAUTHORIZED {title}; 403 PRO_REQUIRED {feature}.
 */
export function authorizeExport(user: Pick<UserRow, "plan"> | null, format: ExportFormat): void {
  if (!user) {
    throw new AppError("UNAUTHORIZED", "Create an account to download and export your research data.", 401, {
      title: "Sign In Required",
    });
  }
  const feature = PRO_EXPORT_FEATURES[format];
  if (feature && user.plan !== "pro") {
    throw new AppError("PRO_REQUIRED", PRO_REASONS[feature], 403, { feature });
  }
}

/** Stored (or just shown) studies by id (in the requested order) with their newest AI summaries. */
async function loadStudies(db: Database, ids: number[]): Promise<ExportStudy[]> {
  const unique = [...new Set(ids)];
  const rows = [];
  for (let i = 0; i < unique.length; i += 90) {
    rows.push(
      ...(await db
        .select()
        .from(studiesTable)
        .where(inArray(studiesTable.id, unique.slice(i, i + 90)))),
    );
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Studies a search showed but nobody has acted on yet have no row (issue 17).
  for (const id of unique) {
    const shown = byId.has(id) ? null : shownStudy(id);
    if (shown) byId.set(id, shown);
  }
  const missing = unique.filter((id) => !byId.has(id));
  if (missing.length) {
    throw new AppError("STUDY_NOT_FOUND", `Unknown study ids: ${missing.slice(0, 10).join(", ")}`, 404, { missing });
  }
  const summaries = await latestSummaries({ db }, { studyIds: unique });
  return unique.map((id) => {
    const r = byId.get(id)!;
    return {
      id: r.id,
      title: r.title,
      authors: r.authors,
      journal: r.journal,
      publicationDate: r.publicationDate,
      doi: r.doi,
      pmid: r.pmid,
      pmcid: r.pmcid,
      abstract: r.abstract,
      aiSummary: summaries.get(id)?.content ?? null,
      source: r.source,
      studyType: r.studyType,
      url: r.url,
      openAccessUrl: r.openAccessUrl,
      citationCount: r.citationCount,
      impactFactor: r.impactFactor,
    };
  });
}

/**
 * POST /api/export (SPEC §7): validates the request, authorizes the format, gathers the studies
 * (full objects as sent, then stored studies by id) and builds the dated file.
 * @throws AppError 400 INVALID_INPUT / NO_STUDIES ('Please select some studies first.'),
 *   401 UNAUTHORIZED, 403 PRO_REQUIRED, 404 STUDY_NOT_FOUND,
 *   500 PDF_EXPORT_FAILED (message {@link PDF_UNAVAILABLE_MESSAGE}) when the PDF cannot be built.
 */
export async function buildExport(
  { db }: { db: Database },
  { user, body, now }: { user: UserRow | null; body: unknown; now: Date },
): Promise<ExportFile> {
  const input = parseInput(ExportRequestSchema, body);
  authorizeExport(user, input.format);
  const ids = (input.studyIds ?? []).map(Number);
  const studies: ExportStudy[] = [...(input.studies ?? [])];
  if (studies.length + ids.length === 0) {
    throw new AppError("NO_STUDIES", "Please select some studies first.", 400, { title: "No studies to export" });
  }
  if (studies.length + ids.length > 500) {
    throw new AppError("INVALID_INPUT", "At most 500 studies per export", 400);
  }
  if (ids.length) studies.push(...(await loadStudies(db, ids)));
  const filename = exportFilename(input.format, now);
  const contentType = CONTENT_TYPES[input.format];
  switch (input.format) {
    case "csv":
      return { body: toCsv(studies, input), contentType, filename };
    case "json":
      return { body: toJson(studies, input, now), contentType, filename };
    case "html":
      return { body: toHtml(studies, input, now), contentType, filename };
    case "bibtex":
      return { body: toBibtexExport(studies, input), contentType, filename };
    case "ris":
      return { body: toRisExport(studies, input), contentType, filename };
    case "pdf":
      try {
        return { body: await toPdf(studies, input, now), contentType, filename };
      } catch (error) {
        console.error("PDF export failed", error);
        throw new AppError("PDF_EXPORT_FAILED", PDF_UNAVAILABLE_MESSAGE, 500);
      }
  }
}
