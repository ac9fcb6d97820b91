import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { savedReports } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError } from "../http/errors";
import { DEFAULT_MAX_JSON_DEPTH, jsonDepth } from "../http/json-body";
import { sanitizeReportHtml } from "./sanitize";

/** SPEC §5 / §9: report name at most 100 characters, description at most 500. */
export const MAX_REPORT_NAME_LENGTH = 100;
export const MAX_REPORT_DESCRIPTION_LENGTH = 500;
/** Reports a user may keep. */
export const MAX_SAVED_REPORTS = 200;
/** Largest htmlContent accepted (characters, before sanitizing). */
export const MAX_REPORT_HTML_CHARS = 2_000_000;
/** Largest reportData accepted (characters of its JSON). */
export const MAX_REPORT_DATA_CHARS = 1_000_000;
/** Studies one report may name. */
export const MAX_REPORT_STUDIES = 1000;

export const REPORT_TYPES = ["meta-analysis", "export"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** SPEC §3 Saved report as the API returns it. */
export interface SavedReport {
  id: number;
  name: string;
  type: ReportType;
  studyIds: string[];
  reportData: Record<string, unknown>;
  htmlContent: string | null;
  createdAt: string;
}

/** POST /api/saved-reports body (SPEC §7), before the rules of {@link validateReportInput}. */
export const SavedReportBodySchema = z.object({
  name: z.unknown(),
  type: z.enum(REPORT_TYPES, { error: "Type must be meta-analysis or export" }),
  studyIds: z
    .array(z.union([z.string().trim().min(1).max(64), z.number().int().nonnegative()]))
    .max(MAX_REPORT_STUDIES, `At most ${MAX_REPORT_STUDIES} studies per report`)
    .default([]),
  reportData: z.record(z.string(), z.unknown()).nullish(),
  htmlContent: z.string().max(MAX_REPORT_HTML_CHARS, "Report HTML is too large").nullish(),
});

/**
 * SPEC §5 Save report: the name is required after trimming ('Name required' / 'Please enter a
 * name for your report.'), at most 100 characters; reportData.description at most 500.
 * @throws AppError 400 NAME_REQUIRED, NAME_TOO_LONG, DESCRIPTION_TOO_LONG, INVALID_INPUT.
 */
export function validateReportInput(body: unknown): {
  name: string;
  type: ReportType;
  studyIds: string[];
  reportData: Record<string, unknown>;
  htmlContent: string | null;
} {
  const parsed = SavedReportBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      "INVALID_INPUT",
      issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "Invalid report",
      400,
    );
  }
  const { name: rawName, type, studyIds, reportData, htmlContent } = parsed.data;
  const name = typeof rawName === "string" ? rawName.trim() : "";
  if (!name) {
    throw new AppError("NAME_REQUIRED", "Please enter a name for your report.", 400, { title: "Name required" });
  }
  if (name.length > MAX_REPORT_NAME_LENGTH) {
    throw new AppError("NAME_TOO_LONG", `Report name must be at most ${MAX_REPORT_NAME_LENGTH} characters.`, 400);
  }
  const data = { ...(reportData ?? {}) };
  if (data.description !== undefined && data.description !== null) {
    if (typeof data.description !== "string") {
      throw new AppError("INVALID_INPUT", "reportData.description must be text.", 400);
    }
    const description = data.description.trim();
    if (description.length > MAX_REPORT_DESCRIPTION_LENGTH) {
      throw new AppError(
        "DESCRIPTION_TOO_LONG",
        `Description must be at most ${MAX_REPORT_DESCRIPTION_LENGTH} characters.`,
        400,
      );
    }
    data.description = description;
  }
  if (JSON.stringify(data).length > MAX_REPORT_DATA_CHARS) {
    throw new AppError("PAYLOAD_TOO_LARGE", "Report data is too large.", 413);
  }
  const html = htmlContent && htmlContent.trim() ? sanitizeReportHtml(htmlContent) : null;
  return { name, type, studyIds: studyIds.map(String), reportData: data, htmlContent: html || null };
}

/**
 * Deepest reportData read back. Bodies deeper than the JSON body bound are refused on write
 * (400 INVALID_BODY); rows stored before that bound existed may be deeper.
 */
const MAX_STORED_REPORT_DEPTH = DEFAULT_MAX_JSON_DEPTH;

/**
 * Reads a stored report_data text. A value nested deeper than {@link MAX_STORED_REPORT_DEPTH}, or
 * not a JSON object, reads as `{}` so one bad row cannot break the user's list (its name, HTML and
 * studies are still shown and it can be deleted).
 */
export function readStoredReportData(text: string | null): Record<string, unknown> {
  if (!text || jsonDepth(text, MAX_STORED_REPORT_DEPTH) > MAX_STORED_REPORT_DEPTH) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The user's saved reports, newest first. */
export async function listSavedReports(
  { db }: { db: Database },
  { userId }: { userId: string },
): Promise<SavedReport[]> {
  const rows = await db
    .select({
      id: savedReports.id,
      name: savedReports.name,
      type: savedReports.type,
      studyIds: savedReports.studyIds,
      reportDataText: sql<string | null>`cast(${savedReports.reportData} as text)`,
      htmlContent: savedReports.htmlContent,
      createdAt: savedReports.createdAt,
    })
    .from(savedReports)
    .where(eq(savedReports.userId, userId))
    .orderBy(desc(savedReports.createdAt), desc(savedReports.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    type: row.type,
    studyIds: row.studyIds,
    reportData: readStoredReportData(row.reportDataText),
    htmlContent: row.htmlContent,
    createdAt: new Date(row.createdAt).toISOString(),
  }));
}

/**
 * Validates ({@link validateReportInput}), sanitizes the HTML and stores a report. The per-user
 * cap is checked inside the INSERT so concurrent saves cannot exceed it.
 * @throws AppError 400 (validation), 413 PAYLOAD_TOO_LARGE, 409 LIMIT_REACHED.
 */
export async function createSavedReport(
  { db }: { db: Database },
  { userId, body }: { userId: string; body: unknown },
): Promise<SavedReport> {
  const input = validateReportInput(body);
  const row = await db.get<{ id: number; createdAt: number } | undefined>(sql`
    INSERT INTO saved_reports (user_id, name, type, study_ids, report_data, html_content)
    SELECT ${userId}, ${input.name}, ${input.type}, ${JSON.stringify(input.studyIds)},
           ${JSON.stringify(input.reportData)}, ${input.htmlContent}
    WHERE (SELECT count(*) FROM saved_reports WHERE user_id = ${userId}) < ${MAX_SAVED_REPORTS}
    RETURNING id, created_at AS createdAt`);
  if (!row) {
    throw new AppError(
      "LIMIT_REACHED",
      `You can keep at most ${MAX_SAVED_REPORTS} saved reports. Delete one to save another.`,
      409,
      { limit: MAX_SAVED_REPORTS },
    );
  }
  return { id: row.id, ...input, createdAt: new Date(row.createdAt).toISOString() };
}

/** Parses a report id path segment: a positive integer, else 400 INVALID_REPORT_ID. */
export function parseReportId(raw: string | undefined): number {
  const parsed = z
    .string()
    .regex(/^[1-9]\d{0,14}$/)
    .transform(Number)
    .safeParse(raw);
  if (!parsed.success) throw new AppError("INVALID_REPORT_ID", "Report id must be a positive whole number", 400);
  return parsed.data;
}

/**
 * Deletes one of the user's reports.
 * @throws AppError 404 REPORT_NOT_FOUND for an unknown id or another user's report (same answer,
 *   so other users' ids are not revealed).
 */
export async function deleteSavedReport(
  { db }: { db: Database },
  { userId, id }: { userId: string; id: number },
): Promise<void> {
  const deleted = await db
    .delete(savedReports)
    .where(and(eq(savedReports.id, id), eq(savedReports.userId, userId)))
    .returning({ id: savedReports.id });
  if (deleted.length === 0) throw new AppError("REPORT_NOT_FOUND", "Report not found.", 404);
}
