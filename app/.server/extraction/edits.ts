/**
 * The audit trail of corrections to extracted arm data, stored in D1 per user (extraction_edits):
 * each edit records the study, outcome, arm, field, old and new value, the user and the time.
 */
import { and, asc, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { z } from "zod";
import { extractionEdits } from "../../../db/schema";
import type { Database } from "../db/client";

/** Most edits accepted in one request. */
export const MAX_EDITS_PER_REQUEST = 200;

const value = z.number().refine(Number.isFinite, "must be a finite number").nullable();

export const EditSchema = z.object({
  studyKey: z.string().trim().min(1).max(200),
  outcome: z.string().trim().min(1).max(500),
  arm: z.enum(["intervention", "comparator"]),
  field: z.enum(["events", "groupSize", "mean", "sd"]),
  oldValue: value,
  newValue: value,
});
export const EditsRequestSchema = z.object({ edits: z.array(EditSchema).min(1).max(MAX_EDITS_PER_REQUEST) });
export type ExtractionEditInput = z.infer<typeof EditSchema>;

/** The stored form returned to the page: who is the user's email, when an ISO time. */
export interface ExtractionEditView extends ExtractionEditInput {
  id: number;
  who: string;
  when: string;
}

/**
 * Records edits for `user` in one batch (all or nothing), with `alongside` statements (e.g. the
 * review's activity-log entries) in the same batch.
 * @returns the stored edits in order.
 */
export async function recordEdits(
  deps: { db: Database },
  user: { id: string; email: string },
  edits: readonly ExtractionEditInput[],
  alongside: BatchItem<"sqlite">[] = [],
): Promise<ExtractionEditView[]> {
  const [rows] = await deps.db.batch([
    deps.db
      .insert(extractionEdits)
      .values(edits.map((e) => ({ userId: user.id, ...e })))
      .returning(),
    ...alongside,
  ]);
  return rows.map((row) => toView(row, user.email));
}

/** The user's edits for one study and outcome (or every outcome when `outcome` is omitted), oldest first. */
export async function listEdits(
  deps: { db: Database },
  user: { id: string; email: string },
  query: { studyKey: string; outcome?: string },
): Promise<ExtractionEditView[]> {
  const rows = await deps.db
    .select()
    .from(extractionEdits)
    .where(
      and(
        eq(extractionEdits.userId, user.id),
        eq(extractionEdits.studyKey, query.studyKey),
        ...(query.outcome ? [eq(extractionEdits.outcome, query.outcome)] : []),
      ),
    )
    .orderBy(asc(extractionEdits.id))
    .limit(1000);
  return rows.map((row) => toView(row, user.email));
}

function toView(row: typeof extractionEdits.$inferSelect, who: string): ExtractionEditView {
  return {
    id: row.id,
    studyKey: row.studyKey,
    outcome: row.outcome,
    arm: row.arm,
    field: row.field,
    oldValue: row.oldValue,
    newValue: row.newValue,
    who,
    when: new Date(row.createdAt).toISOString(),
  };
}
