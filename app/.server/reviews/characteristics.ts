/**
 * Characteristics of included studies (issue 29, item 0): per study included at full-text screening,
 * the Cochrane table (design, country, setting, N randomised, population, intervention, comparator,
 * follow-up, funding, conflicts of interest) plus the columns reviewers add. Built-in cells are
 * pre-filled by rules from the study's best text (./characteristics-rules.ts: a value only with a
 * verbatim quote); every change is an edit row (who, when, old → new), the latest edit of a cell
 * being its value. Access through requireReview: read for viewers, write for owner and reviewers.
 */
import { and, asc, count, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import {
  reviewCharacteristicColumns,
  reviewCharacteristicEdits,
  reviewRecords,
  users,
  type ReviewRecordRow,
} from "../../../db/schema";
import {
  BUILT_IN_COLUMNS,
  CHARACTERISTIC_TYPES,
  type CharacteristicColumn,
  type CharacteristicEdit,
  type CharacteristicsStudy,
  type CharacteristicsTable,
  normaliseCharacteristicValue,
  type PrefilledValue,
} from "~/lib/characteristics";
import type { AppServices } from "../context";
import { recordDocument } from "../extraction/service";
import { AppError } from "../http/errors";
import { enforceRateLimits, RATE_LIMITS } from "../security/rate-limit";
import { prefillCharacteristics } from "./characteristics-rules";
import { MAX_EXTRACTED_STUDIES, recordReport } from "./outcomes";
import { requireRecord, requireReview } from "./service";

type CharacteristicsApp = Pick<AppServices, "db" | "bindings" | "env" | "fetch">;
type Target = { userId: string; reviewId: string | undefined };

/** Columns reviewers may add to one review. */
export const MAX_ADDED_COLUMNS = 30;
/** Studies whose text is read at the same time. */
const READ_CONCURRENCY = 4;

/** POST /api/reviews/{id}/characteristics/columns body. */
export const CharacteristicColumnInputSchema = z
  .object({
    name: z
      .string({ error: "name is required" })
      .trim()
      .min(1, "name is required")
      .max(80, "name may have at most 80 characters"),
    type: z.enum(CHARACTERISTIC_TYPES as [string, ...string[]], { error: "type is categorical, numeric or text" }),
  })
  .strict();

/** POST /api/reviews/{id}/characteristics/edits body: one cell's new value (null or "" clears it). */
export const CharacteristicEditInputSchema = z
  .object({
    recordId: z.number({ error: "recordId is required" }).int().positive(),
    column: z.string({ error: "column is required" }).min(1).max(40),
    value: z.string().max(2000).nullable(),
  })
  .strict();

const included = (reviewId: string) =>
  and(
    eq(reviewRecords.reviewId, reviewId),
    isNull(reviewRecords.duplicateOf),
    eq(reviewRecords.taDecision, "include"),
    eq(reviewRecords.ftDecision, "include"),
  );

async function columnsOf(app: CharacteristicsApp, reviewId: string): Promise<CharacteristicColumn[]> {
  const added = await app.db
    .select()
    .from(reviewCharacteristicColumns)
    .where(eq(reviewCharacteristicColumns.reviewId, reviewId))
    .orderBy(asc(reviewCharacteristicColumns.id));
  return [...BUILT_IN_COLUMNS, ...added.map((c) => ({ key: `c${c.id}`, name: c.name, type: c.type, builtIn: false }))];
}

/** The rules' values for one record, read from its best text (JATS turned into text; unreadable JATS → title and abstract). */
async function prefillRecord(
  app: CharacteristicsApp,
  ownerId: string,
  record: ReviewRecordRow,
): Promise<{ values: Record<string, PrefilledValue>; source: { kind: string; note: string | null } }> {
  const source = await recordReport(app, ownerId, record);
  // An abstract source already starts with the title.
  const { document, fallback } = recordDocument(source, record, { withTitle: source.kind !== "abstract" });
  return {
    values: prefillCharacteristics(document),
    source: fallback
      ? { kind: "abstract", note: `the Europe PMC full text could not be read (${fallback})` }
      : { kind: source.kind, note: source.note },
  };
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * The characteristics table of the review's studies included at full text (duplicates left out;
 * at most the first 100, in import order), with each cell's value (latest edit, else the rules'
 * value with its quote), and the audit trail oldest first. Counted against the user's hourly
 * extraction limit (the texts are read), unless `countRead` is false — the review's JSON export,
 * which has its own limit and must not fail on this one.
 * @throws AppError 404 REVIEW_NOT_FOUND; 429 RATE_LIMITED.
 */
export async function getCharacteristics(
  app: CharacteristicsApp,
  target: Target,
  { countRead = true }: { countRead?: boolean } = {},
): Promise<CharacteristicsTable> {
  const review = await requireReview(app, target, "read");
  if (countRead)
    await enforceRateLimits(app, [{ rule: RATE_LIMITS.reviewExtractionPerAccount, subject: target.userId }]);
  const [records, [total], columns, edits] = await Promise.all([
    app.db
      .select()
      .from(reviewRecords)
      .where(included(review.id))
      .orderBy(asc(reviewRecords.id))
      .limit(MAX_EXTRACTED_STUDIES),
    app.db.select({ n: count() }).from(reviewRecords).where(included(review.id)),
    columnsOf(app, review.id),
    app.db
      .select()
      .from(reviewCharacteristicEdits)
      .where(eq(reviewCharacteristicEdits.reviewId, review.id))
      .orderBy(asc(reviewCharacteristicEdits.id)),
  ]);
  const ids = new Set(records.map((r) => r.id));
  const keys = new Set(columns.map((c) => c.key));
  const latest = new Map<string, string | null>();
  for (const e of edits) latest.set(`${e.recordId}:${e.columnKey}`, e.newValue);
  const studies = await mapLimited(records, READ_CONCURRENCY, async (record): Promise<CharacteristicsStudy> => {
    const { values: prefilled, source } = await prefillRecord(app, review.userId, record);
    const values: CharacteristicsStudy["values"] = {};
    for (const c of columns) {
      const k = `${record.id}:${c.key}`;
      if (latest.has(k)) values[c.key] = { value: latest.get(k) ?? null, quote: null, edited: true };
      else
        values[c.key] = {
          value: prefilled[c.key]?.value ?? null,
          quote: prefilled[c.key]?.quote ?? null,
          edited: false,
        };
    }
    return { recordId: record.id, title: record.title, year: record.year, source, values };
  });
  const audit: CharacteristicEdit[] = edits
    .filter((e) => ids.has(e.recordId) && keys.has(e.columnKey))
    .map((e) => ({
      recordId: e.recordId,
      column: e.columnKey,
      oldValue: e.oldValue,
      newValue: e.newValue,
      who: e.who,
      when: new Date(e.createdAt).toISOString(),
    }));
  return { columns, studies, audit, included: total?.n ?? records.length };
}

/**
 * Adds a column (name unique in the review, built-in names included).
 * @throws AppError 404; 403 FORBIDDEN_ROLE (viewer); 409 COLUMN_EXISTS / TOO_MANY_COLUMNS.
 */
export async function addCharacteristicColumn(
  app: CharacteristicsApp,
  target: Target,
  input: z.infer<typeof CharacteristicColumnInputSchema>,
): Promise<CharacteristicColumn> {
  const review = await requireReview(app, target, "write");
  const columns = await columnsOf(app, review.id);
  const exists = () => new AppError("COLUMN_EXISTS", `The table already has the column "${input.name}".`, 409);
  if (columns.some((c) => c.name.toLowerCase() === input.name.toLowerCase())) throw exists();
  if (columns.filter((c) => !c.builtIn).length >= MAX_ADDED_COLUMNS)
    throw new AppError("TOO_MANY_COLUMNS", `A review holds at most ${MAX_ADDED_COLUMNS} added columns.`, 409);
  try {
    const [row] = await app.db
      .insert(reviewCharacteristicColumns)
      .values({
        reviewId: review.id,
        name: input.name,
        type: input.type as CharacteristicColumn["type"],
        createdBy: target.userId,
      })
      .returning();
    return { key: `c${row!.id}`, name: row!.name, type: row!.type, builtIn: false };
  } catch (error) {
    if (/UNIQUE/i.test(String(error instanceof Error ? error.message : error))) throw exists();
    throw error;
  }
}

/**
 * Removes an added column (built-in columns stay; its edits stay in the audit table).
 * @throws AppError 404 REVIEW_NOT_FOUND / COLUMN_NOT_FOUND; 403 FORBIDDEN_ROLE.
 */
export async function deleteCharacteristicColumn(
  app: CharacteristicsApp,
  target: Target & { columnId: string | undefined },
): Promise<void> {
  const review = await requireReview(app, target, "write");
  const id = Number(target.columnId);
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("COLUMN_NOT_FOUND", "Column not found", 404);
  const deleted = await app.db
    .delete(reviewCharacteristicColumns)
    .where(and(eq(reviewCharacteristicColumns.id, id), eq(reviewCharacteristicColumns.reviewId, review.id)))
    .returning({ id: reviewCharacteristicColumns.id });
  if (deleted.length === 0) throw new AppError("COLUMN_NOT_FOUND", "Column not found", 404);
}

/**
 * Sets one cell of an included study. The old value is the cell's current one (its latest edit,
 * else the rules' value, read again from the study's text). A value equal to the current one is
 * not recorded (returns null).
 * @throws AppError 400 INVALID_VALUE (not a number in a numeric column, too long); 404
 *   RECORD_NOT_FOUND (unknown or not included at full text) / COLUMN_NOT_FOUND; 403 FORBIDDEN_ROLE.
 */
export async function editCharacteristic(
  app: CharacteristicsApp,
  target: Target,
  input: z.infer<typeof CharacteristicEditInputSchema>,
): Promise<CharacteristicEdit | null> {
  const review = await requireReview(app, target, "write");
  const record = await requireRecord(app, review, input.recordId);
  if (record.duplicateOf !== null || record.taDecision !== "include" || record.ftDecision !== "include") {
    throw new AppError("RECORD_NOT_FOUND", "The study is not included at full text.", 404);
  }
  const column = (await columnsOf(app, review.id)).find((c) => c.key === input.column);
  if (!column) throw new AppError("COLUMN_NOT_FOUND", "Column not found", 404);
  const next = normaliseCharacteristicValue(column.type, input.value);
  if ("error" in next) throw new AppError("INVALID_VALUE", next.error, 400);
  const [previous] = await app.db
    .select({ newValue: reviewCharacteristicEdits.newValue })
    .from(reviewCharacteristicEdits)
    .where(
      and(
        eq(reviewCharacteristicEdits.reviewId, review.id),
        eq(reviewCharacteristicEdits.recordId, record.id),
        eq(reviewCharacteristicEdits.columnKey, column.key),
      ),
    )
    .orderBy(desc(reviewCharacteristicEdits.id))
    .limit(1);
  const old = previous
    ? previous.newValue
    : column.builtIn
      ? ((await prefillRecord(app, review.userId, record)).values[column.key]?.value ?? null)
      : null;
  if (old === next.value) return null;
  const [user] = await app.db.select({ email: users.email }).from(users).where(eq(users.id, target.userId)).limit(1);
  const [row] = await app.db
    .insert(reviewCharacteristicEdits)
    .values({
      reviewId: review.id,
      recordId: record.id,
      columnKey: column.key,
      oldValue: old,
      newValue: next.value,
      userId: target.userId,
      who: user?.email ?? target.userId,
    })
    .returning();
  return {
    recordId: row!.recordId,
    column: row!.columnKey,
    oldValue: row!.oldValue,
    newValue: row!.newValue,
    who: row!.who,
    when: new Date(row!.createdAt).toISOString(),
  };
}
