import { and, asc, count, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { savedReports, studentAssignments, studyGuides } from "../../../db/schema";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";

/**
 * The student portal (SPEC §2 /student, §3 Student assignment, §4 Reports): a student's own
 * assignments (title, due date, notes) and study guides (copies of their saved reports), each
 * guide optionally transferred to one assignment. Every id is checked against its owner: another
 * user's id answers 404 exactly like an unknown one.
 */

type Deps = Pick<AppServices, "db">;

/** Assignments a student may keep, and study guides. */
export const MAX_ASSIGNMENTS = 200;
export const MAX_STUDY_GUIDES = 200;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const dueDate = z
  .string()
  .regex(ISO_DATE, "dueDate must be a date as YYYY-MM-DD")
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    "dueDate is not a real date",
  );

export const AssignmentInputSchema = z
  .object({
    title: z.string().trim().min(1, "title is required").max(200),
    dueDate,
    notes: z.string().max(5000).default(""),
  })
  .strict();

export const AssignmentPatchSchema = z
  .object({
    title: z.string().trim().min(1, "title is required").max(200).optional(),
    dueDate: dueDate.optional(),
    notes: z.string().max(5000).optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, "Give at least one of title, dueDate, notes");

export const TransferInputSchema = z
  .object({
    /** A study guide id, or "report-{savedReportId}" for a saved report not yet copied. */
    studyGuideId: z.union([z.number().int().positive(), z.string().regex(/^(report-)?\d{1,15}$/)]),
  })
  .strict();

export interface Assignment {
  id: number;
  title: string;
  dueDate: string;
  notes: string;
  createdAt: string;
  updatedAt: string;
}

export interface StudyGuide {
  id: number;
  title: string;
  reportType: string;
  htmlContent: string;
  assignmentId: number | null;
  createdAt: string;
}

/** Parses a positive integer id from a path segment; 400 `code` otherwise. */
export function parseId(raw: string | undefined, code = "INVALID_ASSIGNMENT_ID"): number {
  if (!raw || !/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw new AppError(code, "The id must be a positive integer.", 400);
  return Number(raw);
}

const toAssignment = (row: typeof studentAssignments.$inferSelect): Assignment => ({
  id: row.id,
  title: row.title,
  dueDate: row.dueDate,
  notes: row.notes,
  createdAt: new Date(row.createdAt).toISOString(),
  updatedAt: new Date(row.updatedAt).toISOString(),
});

const toGuide = (row: typeof studyGuides.$inferSelect): StudyGuide => ({
  id: row.id,
  title: row.title,
  reportType: row.reportType,
  htmlContent: row.htmlContent,
  assignmentId: row.assignmentId,
  createdAt: new Date(row.createdAt).toISOString(),
});

/** The student's assignments, soonest due first (ties: oldest first). */
export async function listAssignments({ db }: Deps, { userId }: { userId: string }): Promise<Assignment[]> {
  const rows = await db
    .select()
    .from(studentAssignments)
    .where(eq(studentAssignments.userId, userId))
    .orderBy(asc(studentAssignments.dueDate), asc(studentAssignments.id));
  return rows.map(toAssignment);
}

/** Creates an assignment; 409 LIMIT_REACHED past {@link MAX_ASSIGNMENTS}. */
export async function createAssignment(
  { db }: Deps,
  { userId, input }: { userId: string; input: z.infer<typeof AssignmentInputSchema> },
): Promise<Assignment> {
  const [{ n } = { n: 0 }] = await db
    .select({ n: count() })
    .from(studentAssignments)
    .where(eq(studentAssignments.userId, userId));
  if (n >= MAX_ASSIGNMENTS)
    throw new AppError("LIMIT_REACHED", `You can keep up to ${MAX_ASSIGNMENTS} assignments.`, 409);
  const [row] = await db
    .insert(studentAssignments)
    .values({ userId, ...input })
    .returning();
  return toAssignment(row!);
}

/** Updates the caller's assignment; 404 ASSIGNMENT_NOT_FOUND for an unknown or foreign id. */
export async function updateAssignment(
  { db }: Deps,
  { userId, id, patch }: { userId: string; id: number; patch: z.infer<typeof AssignmentPatchSchema> },
): Promise<Assignment> {
  const [row] = await db
    .update(studentAssignments)
    .set({ ...patch, updatedAt: Date.now() })
    .where(and(eq(studentAssignments.id, id), eq(studentAssignments.userId, userId)))
    .returning();
  if (!row) throw new AppError("ASSIGNMENT_NOT_FOUND", "Assignment not found", 404);
  return toAssignment(row);
}

/** Deletes the caller's assignment (its study guides stay, unassigned); 404 for an unknown or foreign id. */
export async function deleteAssignment({ db }: Deps, { userId, id }: { userId: string; id: number }): Promise<void> {
  const result = await db
    .delete(studentAssignments)
    .where(and(eq(studentAssignments.id, id), eq(studentAssignments.userId, userId)));
  if (!result.meta.changes) throw new AppError("ASSIGNMENT_NOT_FOUND", "Assignment not found", 404);
}

/** The student's study guides, newest first. */
export async function listStudyGuides({ db }: Deps, { userId }: { userId: string }): Promise<StudyGuide[]> {
  const rows = await db
    .select()
    .from(studyGuides)
    .where(eq(studyGuides.userId, userId))
    .orderBy(desc(studyGuides.createdAt), desc(studyGuides.id));
  return rows.map(toGuide);
}

/**
 * Copies the caller's saved report (type meta-analysis or export, with HTML) into a study guide,
 * or returns the guide already made from it. 404 REPORT_NOT_FOUND for an unknown or foreign
 * report; 400 NO_CONTENT when it has no HTML; 409 LIMIT_REACHED past {@link MAX_STUDY_GUIDES}.
 */
export async function studyGuideFromReport(
  { db }: Deps,
  { userId, reportId }: { userId: string; reportId: number },
): Promise<StudyGuide> {
  const [report] = await db
    .select({ name: savedReports.name, type: savedReports.type, htmlContent: savedReports.htmlContent })
    .from(savedReports)
    .where(and(eq(savedReports.id, reportId), eq(savedReports.userId, userId)))
    .limit(1);
  if (!report) throw new AppError("REPORT_NOT_FOUND", "Report not found", 404);
  if (!report.htmlContent?.trim()) throw new AppError("NO_CONTENT", "This report has no exportable content.", 400);
  const [existing] = await db
    .select()
    .from(studyGuides)
    .where(
      and(
        eq(studyGuides.userId, userId),
        eq(studyGuides.title, report.name),
        eq(studyGuides.htmlContent, report.htmlContent),
      ),
    )
    .limit(1);
  if (existing) return toGuide(existing);
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(studyGuides).where(eq(studyGuides.userId, userId));
  if (n >= MAX_STUDY_GUIDES)
    throw new AppError("LIMIT_REACHED", `You can keep up to ${MAX_STUDY_GUIDES} study guides.`, 409);
  const [row] = await db
    .insert(studyGuides)
    .values({ userId, title: report.name, reportType: report.type, htmlContent: report.htmlContent })
    .returning();
  return toGuide(row!);
}

/**
 * Transfers a study guide to one of the caller's assignments (SPEC §7). `studyGuideId` is a
 * guide id or "report-{savedReportId}" (the Profile's report, copied first). 404
 * ASSIGNMENT_NOT_FOUND / STUDY_GUIDE_NOT_FOUND / REPORT_NOT_FOUND for unknown or foreign ids.
 */
export async function transferStudyGuide(
  deps: Deps,
  { userId, assignmentId, studyGuideId }: { userId: string; assignmentId: number; studyGuideId: number | string },
): Promise<StudyGuide> {
  const { db } = deps;
  const [assignment] = await db
    .select({ id: studentAssignments.id })
    .from(studentAssignments)
    .where(and(eq(studentAssignments.id, assignmentId), eq(studentAssignments.userId, userId)))
    .limit(1);
  if (!assignment) throw new AppError("ASSIGNMENT_NOT_FOUND", "Assignment not found", 404);
  const raw = String(studyGuideId);
  const guideId = raw.startsWith("report-")
    ? (await studyGuideFromReport(deps, { userId, reportId: Number(raw.slice("report-".length)) })).id
    : Number(raw);
  const [row] = await db
    .update(studyGuides)
    .set({ assignmentId })
    .where(and(eq(studyGuides.id, guideId), eq(studyGuides.userId, userId)))
    .returning();
  if (!row) throw new AppError("STUDY_GUIDE_NOT_FOUND", "Study guide not found", 404);
  return toGuide(row);
}
