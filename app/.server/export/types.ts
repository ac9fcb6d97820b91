import { z } from "zod";

/** SPEC §9 export formats. */
export const EXPORT_FORMATS = ["csv", "json", "html", "bibtex", "ris", "pdf"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Formats that need Professional and the plan feature they are gated by (SPEC §5, §6). */
export const PRO_EXPORT_FEATURES: Partial<Record<ExportFormat, "citation_export" | "pdf_export">> = {
  bibtex: "citation_export",
  ris: "citation_export",
  pdf: "pdf_export",
};

/** Studies one export may contain. */
export const MAX_EXPORT_STUDIES = 500;

const text = (max: number) => z.string().max(max).nullish();

/**
 * A study sent in full (SPEC §7: full study objects, e.g. uploaded studies). Unknown fields are
 * ignored; lengths are capped so one request cannot build an unbounded file.
 */
export const ExportStudySchema = z.object({
  id: z.union([z.string().max(64), z.number().int()]),
  title: z.string().trim().min(1, "Every study needs a title").max(2000),
  authors: z.array(z.string().max(500)).max(2000).default([]),
  journal: text(1000),
  publicationDate: text(64),
  doi: text(300),
  pmid: text(32),
  pmcid: text(32),
  abstract: text(50_000),
  aiSummary: text(50_000),
  source: text(64),
  studyType: text(100),
  url: text(2000),
  openAccessUrl: text(2000),
  citationCount: z.number().nullish(),
  impactFactor: z.number().nullish(),
});

export type ExportStudy = z.output<typeof ExportStudySchema>;

/** POST /api/export body (SPEC §7 / §3 Export options). */
export const ExportRequestSchema = z.object({
  studies: z
    .array(ExportStudySchema)
    .max(MAX_EXPORT_STUDIES, `At most ${MAX_EXPORT_STUDIES} studies per export`)
    .optional(),
  studyIds: z
    .array(
      z.union([
        z.number().int().positive(),
        z.string().regex(/^[1-9]\d{0,14}$/, "Study ids are positive whole numbers"),
      ]),
    )
    .max(MAX_EXPORT_STUDIES, `At most ${MAX_EXPORT_STUDIES} studies per export`)
    .optional(),
  format: z.enum(EXPORT_FORMATS, { error: "Format must be one of csv, json, html, bibtex, ris, pdf" }),
  includeMetadata: z.boolean().default(true),
  includeAbstracts: z.boolean().default(true),
  includeSummaries: z.boolean().default(false),
  includeCitations: z.boolean().default(false),
});

export type ExportRequest = z.output<typeof ExportRequestSchema>;
export type ExportOptions = Pick<
  ExportRequest,
  "includeMetadata" | "includeAbstracts" | "includeSummaries" | "includeCitations"
>;

/** A built export file. */
export interface ExportFile {
  body: Uint8Array<ArrayBuffer> | string;
  contentType: string;
  filename: string;
}
