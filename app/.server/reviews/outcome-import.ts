/**
 * Import of study-level data into a review outcome from CSV (issue 31, item 3): the file is read by
 * the pure core (app/lib/study-data-import.ts), each line matched to one of the review's studies
 * included at full-text screening (DOI → PMID → title → author-year), and, when no line has an
 * error, every line written in one D1 batch (review_study_data, replacing earlier imported data of
 * the same studies for the outcome). A file with any error writes nothing.
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import { reviewRecords, reviewStudyData } from "../../../db/schema";
import { GENERIC_POOL_MEASURES, type PoolMeasure } from "~/lib/review-extraction";
import {
  candidateLabel,
  type ColumnMapping,
  IMPORT_FIELDS,
  type ImportedData,
  type ImportError,
  MAX_IMPORT_CSV_BYTES,
  matchStudy,
  parseStudyDataCsv,
  suggestMapping,
} from "~/lib/study-data-import";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { requireOutcome } from "./outcomes";
import { requireReview } from "./service";

type ImportApp = Pick<AppServices, "db" | "bindings">;

/** Included studies an import matches against (a review with more is matched against the first, in import order). */
export const MAX_IMPORT_CANDIDATES = 5000;

/** Body of POST /api/reviews/{id}/outcomes/import. */
export const OutcomeImportSchema = z
  .object({
    outcomeId: z.number().int().positive(),
    csv: z
      .string()
      .min(1, "The file is empty.")
      .max(MAX_IMPORT_CSV_BYTES, `The file may have at most ${MAX_IMPORT_CSV_BYTES / 1024} KB.`),
    fileName: z.string().trim().max(200).optional(),
    mapping: z.partialRecord(z.enum(IMPORT_FIELDS), z.string().max(200)).optional(),
    outcomeValue: z.string().trim().max(500).nullable().optional(),
    measure: z
      .enum(GENERIC_POOL_MEASURES as [PoolMeasure, ...PoolMeasure[]])
      .nullable()
      .optional(),
  })
  .strict();
export type OutcomeImportInput = z.infer<typeof OutcomeImportSchema>;

/** One line of the preview: the study it was matched to and its data. */
export interface ImportPreviewRow {
  line: number;
  recordId: number;
  /** The matched study as the preview lists it ("Smith 2019"). */
  study: string;
  title: string;
  /** What the line called the study. */
  label: string;
  data: ImportedData;
  /** True when the study already has imported data for this outcome (the import replaces it). */
  replaces: boolean;
}

export interface ImportPreview {
  dryRun: boolean;
  outcome: { id: number; name: string };
  headers: string[];
  /** The mapping used (the suggested one unless the body gave one). */
  mapping: ColumnMapping;
  suggested: ColumnMapping;
  outcomeValues: string[];
  rowCount: number;
  rows: ImportPreviewRow[];
  /** Lines whose study is not one of the review's included studies. */
  unmatched: { line: number; study: string }[];
  errors: ImportError[];
  /** Rows written (0 on a dry run). */
  imported: number;
  importId: string | null;
}

/**
 * Reads, matches and (unless `dryRun`) writes a study-data file into a review outcome.
 * Needs the `write` role (owner or reviewer).
 * @throws AppError 404 REVIEW_NOT_FOUND / OUTCOME_NOT_FOUND; 403 FORBIDDEN_ROLE; 400 IMPORT_INVALID
 *   (not a dry run and any line has an error; `errors` and `unmatched` say which — nothing written).
 */
export async function importStudyData(
  app: ImportApp,
  target: { userId: string; reviewId: string | undefined },
  input: OutcomeImportInput,
  options: { dryRun: boolean },
): Promise<ImportPreview> {
  const review = await requireReview(app, target, "write");
  const outcome = await requireOutcome(app, review.id, String(input.outcomeId));
  const parsed = parseStudyDataCsv(input.csv, {
    mapping: input.mapping,
    outcomeValue: input.outcomeValue,
    defaultMeasure: input.measure ?? null,
  });
  const included = and(
    eq(reviewRecords.reviewId, review.id),
    isNull(reviewRecords.duplicateOf),
    eq(reviewRecords.taDecision, "include"),
    eq(reviewRecords.ftDecision, "include"),
  );
  const [records, existing] = await Promise.all([
    app.db
      .select({
        recordId: reviewRecords.id,
        title: reviewRecords.title,
        authors: reviewRecords.authors,
        year: reviewRecords.year,
        doi: reviewRecords.doi,
        pmid: reviewRecords.pmid,
      })
      .from(reviewRecords)
      .where(included)
      .orderBy(asc(reviewRecords.id))
      .limit(MAX_IMPORT_CANDIDATES),
    app.db
      .select({ recordId: reviewStudyData.recordId })
      .from(reviewStudyData)
      .where(eq(reviewStudyData.outcomeId, outcome.id)),
  ]);
  const already = new Set(existing.map((e) => e.recordId));
  const errors = [...parsed.errors];
  const unmatched: ImportPreview["unmatched"] = [];
  const rows: ImportPreviewRow[] = [];
  const lineOf = new Map<number, number>();
  for (const line of parsed.lines) {
    const label = line.labels[0] ?? line.doi ?? line.pmid ?? "";
    const hits = matchStudy(line, records);
    if (hits.length === 0) {
      unmatched.push({ line: line.line, study: label });
      errors.push({
        line: line.line,
        message: `"${label.slice(0, 80)}" is not one of the review's ${records.length} studies included at full text.`,
      });
      continue;
    }
    if (hits.length > 1) {
      errors.push({
        line: line.line,
        message: `"${label.slice(0, 80)}" matches ${hits.length} included studies (${hits.slice(0, 3).map(candidateLabel).join("; ")}): add its DOI or PMID, or its title.`,
      });
      continue;
    }
    const hit = hits[0]!;
    const first = lineOf.get(hit.recordId);
    if (first !== undefined) {
      errors.push({
        line: line.line,
        message: `Duplicate: line ${first} already gives data for ${candidateLabel(hit)}.`,
      });
      continue;
    }
    lineOf.set(hit.recordId, line.line);
    rows.push({
      line: line.line,
      recordId: hit.recordId,
      study: candidateLabel(hit),
      title: hit.title,
      label,
      data: line.data,
      replaces: already.has(hit.recordId),
    });
  }
  errors.sort((a, b) => a.line - b.line);
  const preview: ImportPreview = {
    dryRun: options.dryRun,
    outcome: { id: outcome.id, name: outcome.name },
    headers: parsed.headers,
    mapping: parsed.mapping,
    suggested: suggestMapping(parsed.headers),
    outcomeValues: parsed.outcomeValues,
    rowCount: parsed.rowCount,
    rows,
    unmatched,
    errors,
    imported: 0,
    importId: null,
  };
  if (options.dryRun) return preview;
  if (errors.length > 0) {
    throw new AppError(
      "IMPORT_INVALID",
      `${errors.length} problem${errors.length === 1 ? "" : "s"} in the file: nothing was imported.`,
      400,
      { errors: errors.slice(0, 200), unmatched },
    );
  }
  const importId = crypto.randomUUID();
  const recordIds = rows.map((r) => r.recordId);
  const values = rows.map((r) => ({
    reviewId: review.id,
    outcomeId: outcome.id,
    recordId: r.recordId,
    importId,
    importedBy: target.userId,
    fileName: input.fileName || null,
    line: r.line,
    ...columns(r.data),
  }));
  // D1 binds at most 100 parameters per statement: ids in chunks of 90, rows (≤ 21 parameters each) 4 per insert.
  const statements = [];
  for (let i = 0; i < recordIds.length; i += 90) {
    statements.push(
      app.db
        .delete(reviewStudyData)
        .where(
          and(eq(reviewStudyData.outcomeId, outcome.id), inArray(reviewStudyData.recordId, recordIds.slice(i, i + 90))),
        ),
    );
  }
  for (let i = 0; i < values.length; i += 4)
    statements.push(app.db.insert(reviewStudyData).values(values.slice(i, i + 4)));
  await app.db.batch(statements as unknown as Parameters<typeof app.db.batch>[0]);
  return { ...preview, imported: rows.length, importId };
}

function columns(d: ImportedData) {
  const none = {
    interventionEvents: null,
    interventionN: null,
    interventionMean: null,
    interventionSd: null,
    comparatorEvents: null,
    comparatorN: null,
    comparatorMean: null,
    comparatorSd: null,
    measure: null,
    estimate: null,
    ciLower: null,
    ciUpper: null,
  };
  if (d.kind === "counts")
    return {
      ...none,
      kind: d.kind,
      interventionEvents: d.events1,
      interventionN: d.n1,
      comparatorEvents: d.events2,
      comparatorN: d.n2,
    };
  if (d.kind === "means")
    return {
      ...none,
      kind: d.kind,
      interventionMean: d.mean1,
      interventionSd: d.sd1,
      interventionN: d.n1,
      comparatorMean: d.mean2,
      comparatorSd: d.sd2,
      comparatorN: d.n2,
    };
  return { ...none, kind: d.kind, measure: d.measure, estimate: d.estimate, ciLower: d.lower, ciUpper: d.upper };
}
