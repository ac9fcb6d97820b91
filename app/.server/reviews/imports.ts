/**
 * Bringing records into a review (issue 13): a reference file (RIS, PubMed/MEDLINE, BibTeX, CSV),
 * every record of a search (up to 'All available' per database), or the user's uploaded PDFs.
 * Each call is one source; the records go through {@link addRecords} (de-duplication, limits,
 * one D1 batch).
 */
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { uploadedStudies, type UserRow } from "../../../db/schema";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { PROVIDERS } from "../search/providers";
import { parseSearchRequest, searchStudies, uncachedSearch, type SearchRequest } from "../search/service";
import { ensureStudies } from "../studies/ensure";
import type { ApiStudy } from "../studies/queries";
import type { ProviderId } from "../search/types";
import { detectFormat, ImportParseError, parseReferenceFile, type ImportWarning } from "./parse";
import { rankAfterImport } from "./screening";
import { assertSearchRoom, markedSource, savedSearchFromForm, searchRoomGuard, tooManySearches } from "./saved-search";
import { addRecords, requireReview, type ImportResult, type IncomingRecord } from "./service";

/** Options of the import services: `background` (the Worker's waitUntil) ranks the review after answering. */
export interface ImportOptions {
  background?: (task: Promise<unknown>) => void;
}

/** Largest reference file accepted, in bytes. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** Warnings an import answer lists at most; one last entry counts the rest. */
export const MAX_IMPORT_WARNINGS = 100;

/** At most {@link MAX_IMPORT_WARNINGS} warnings, the last one saying how many more there were. */
export function boundedWarnings(warnings: ImportWarning[]): ImportWarning[] {
  if (warnings.length <= MAX_IMPORT_WARNINGS) return warnings;
  const rest = warnings.length - (MAX_IMPORT_WARNINGS - 1);
  const next = warnings[MAX_IMPORT_WARNINGS - 1]!;
  return [
    ...warnings.slice(0, MAX_IMPORT_WARNINGS - 1),
    {
      line: next.line,
      message: `and ${rest.toLocaleString("en")} more warnings from this line on (first: ${next.message})`,
    },
  ];
}

/** Records per database a search import brings in: the search's 'All available' (500). */
export const SEARCH_IMPORT_LIMIT = 500;

/**
 * POST /api/reviews/{id}/import: multipart/form-data with `file` (and optionally `format`: ris,
 * nbib, bibtex, csv; and `database`: the name PRISMA shows for the file's records, default the
 * file name; and `searchDatabase` + `searchQuery`: the database and query that produced the file, which
 * make it a saved search that living updates re-run, see ./saved-search.ts). A file that cannot be read is a 400 MALFORMED_FILE naming the line (`line`), and
 * nothing of it is imported; records read with a problem (no title: stored as '[No title]') are
 * imported and listed in `warnings: [{line, message}]` (at most {@link MAX_IMPORT_WARNINGS}).
 * @throws AppError 404 REVIEW_NOT_FOUND; 400 INVALID_MULTIPART / NO_FILE / MALFORMED_FILE /
 *   NO_RECORDS / INVALID_SAVED_SEARCH; 413 FILE_TOO_LARGE / TOO_MANY_RECORDS; 415
 *   UNSUPPORTED_FORMAT; 403 PRO_REQUIRED; 409 TOO_MANY_SEARCHES (nothing imported).
 */
export async function importFile(
  app: Pick<AppServices, "db" | "bindings">,
  { user, reviewId, request }: { user: UserRow; reviewId: string | undefined; request: Request },
  options: ImportOptions = {},
): Promise<ImportResult> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "owner");
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > MAX_IMPORT_BYTES + 64 * 1024) {
    throw new AppError("FILE_TOO_LARGE", "Reference files can be at most 20 MB.", 413);
  }
  if (!/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    throw new AppError("INVALID_MULTIPART", "Send the file as multipart/form-data in the field 'file'.", 400);
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new AppError("INVALID_MULTIPART", "The upload could not be read as multipart/form-data.", 400);
  }
  const file = form.get("file");
  if (!(file instanceof File)) throw new AppError("NO_FILE", "Attach the reference file in the field 'file'.", 400);
  if (file.size > MAX_IMPORT_BYTES) throw new AppError("FILE_TOO_LARGE", "Reference files can be at most 20 MB.", 413);
  if (file.size === 0) throw new AppError("MALFORMED_FILE", "Line 1: the file is empty.", 400, { line: 1 });
  const savedSearch = savedSearchFromForm(form);
  if (savedSearch) await assertSearchRoom(app, review.id);
  const text = new TextDecoder("utf-8").decode(await file.arrayBuffer());
  const explicit = form.get("format");
  const format = detectFormat(file.name, typeof explicit === "string" ? explicit : null, text.slice(0, 200));
  if (!format) {
    throw new AppError(
      "UNSUPPORTED_FORMAT",
      "Use a .ris, .nbib/.txt (PubMed), .bib or .csv file, or name the format (ris, nbib, bibtex, csv).",
      415,
    );
  }
  let parsed;
  const warnings: ImportWarning[] = [];
  try {
    parsed = parseReferenceFile(format, text, warnings);
  } catch (error) {
    if (error instanceof ImportParseError) {
      throw new AppError("MALFORMED_FILE", `${file.name}: ${error.message}. Nothing was imported.`, 400, {
        line: error.line,
        format,
      });
    }
    throw error;
  }
  const database = form.get("database");
  const name = (
    typeof database === "string" && database.trim() ? database.trim() : file.name || `${format} file`
  ).slice(0, 200);
  const details = { fileName: file.name, bytes: file.size, warnings: warnings.length };
  const result = await addRecords(app, {
    user,
    review,
    source: {
      kind: "file",
      name,
      format,
      ...(savedSearch ? markedSource(details, savedSearch, user, new Date()) : { details }),
    },
    records: parsed.map((r) => ({ ...r, origin: name })),
    ...(savedSearch ? { guard: { ...searchRoomGuard(review.id), refused: () => tooManySearches() } } : {}),
  });
  if (options.background) rankAfterImport(app, review, options.background);
  return { ...result, warnings: boundedWarnings(warnings) };
}

/** POST /api/reviews/{id}/import-search body: the search parameters of /api/search. */
export const ImportSearchSchema = z
  .object({ q: z.string().max(500) })
  .catchall(z.union([z.string().max(500), z.number(), z.boolean(), z.array(z.string().max(50)).max(10)]));

function toSearchParams(body: z.infer<typeof ImportSearchSchema>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (key === "page" || key === "limit") continue;
    params.set(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  params.set("page", "1");
  params.set("limit", String(SEARCH_IMPORT_LIMIT));
  return params;
}

const fromStudy = (s: ApiStudy, origin: string): IncomingRecord => ({
  title: s.title,
  abstract: s.abstract,
  authors: s.authors,
  year: s.publicationDate ? Number(s.publicationDate.slice(0, 4)) || null : null,
  journal: s.journal,
  doi: s.doi,
  pmid: s.pmid,
  keywords: null,
  url: s.url,
  origin,
  studyId: s.id,
});

/** What a search brings to a review: its records (stored as studies), its details for the source, its failed databases. */
export interface SearchImport {
  records: IncomingRecord[];
  details: Record<string, unknown>;
  /** Databases that did not answer (name and why), for living-review updates. */
  failures: { source: string; reason: string }[];
}

/**
 * Runs a search (the same databases, filters and plan rules as /api/search, as `user`) and turns
 * every record it returned into a record for a review; each record's PRISMA origin is its database.
 * The records' studies are stored (importing is the first action on them, issue 17). `fresh` asks
 * every database again instead of using the search cache (living-review updates).
 * @throws AppError as searchStudies (403 PRO_REQUIRED, 503 when no database answers).
 */
export async function runSearchImport(
  app: AppServices,
  user: UserRow,
  request: SearchRequest,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<SearchImport> {
  const perProvider = new Map<ProviderId, ApiStudy[]>();
  const result = await searchStudies(app, user, request, {
    ...(fresh ? { cached: uncachedSearch(request) } : {}),
    onProvider: (event) => {
      if (event.report.status === "ok") perProvider.set(event.provider, event.studies);
    },
  });
  const records: IncomingRecord[] = [];
  for (const id of request.providers) {
    for (const s of perProvider.get(id) ?? []) records.push(fromStudy(s, PROVIDERS[id].label));
  }
  if (records.length > 0) {
    const storedIds = await ensureStudies(
      app,
      records.map((r) => r.studyId!),
    );
    for (const r of records) r.studyId = storedIds.get(r.studyId!) ?? null;
  }
  const counts = Object.fromEntries(
    request.providers.map((id) => [
      id,
      {
        status: result.providers[id]?.status ?? "failed",
        records: perProvider.get(id)?.length ?? 0,
        totalHits: result.providers[id]?.totalCount ?? 0,
      },
    ]),
  );
  const failures = request.providers
    .filter((id) => (result.providers[id]?.status ?? "failed") !== "ok")
    .map((id) => ({
      source: PROVIDERS[id].label,
      reason: result.providers[id]?.error ?? `The database answered ${result.providers[id]?.status ?? "nothing"}.`,
    }));
  return {
    records,
    details: { providers: counts, filters: request.filters, limitPerDatabase: SEARCH_IMPORT_LIMIT },
    failures,
  };
}

/**
 * Runs the search with 'All available' (500 records) per database and brings every record it
 * returned into the review as one source. Cross-database duplicates are merged and counted like any
 * other.
 * @throws AppError as parseSearchRequest / searchStudies (400, 403 PRO_REQUIRED, 503) and addRecords.
 */
export async function importSearch(
  app: AppServices,
  { user, reviewId, body }: { user: UserRow; reviewId: string | undefined; body: z.infer<typeof ImportSearchSchema> },
  options: ImportOptions = {},
): Promise<ImportResult> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "owner");
  const request = parseSearchRequest(toSearchParams(body));
  const found = await runSearchImport(app, user, request);
  if (found.records.length === 0) throw new AppError("NO_RECORDS", "The search found no records to add.", 400);
  const result = await addRecords(app, {
    user,
    review,
    source: {
      kind: "search",
      name: request.providers.map((id) => PROVIDERS[id].label).join(", "),
      query: request.query,
      details: found.details,
    },
    records: found.records,
  });
  if (options.background) rankAfterImport(app, review, options.background);
  return result;
}

/** POST /api/reviews/{id}/import-uploads body. */
export const ImportUploadsSchema = z.object({
  uploadIds: z.array(z.number().int().positive()).min(1, "Choose at least one uploaded PDF").max(500),
});

/**
 * Brings the user's uploaded PDFs in as records (with their extracted text as the full text).
 * @throws AppError 404 REVIEW_NOT_FOUND / UPLOAD_NOT_FOUND (unknown or another user's upload).
 */
export async function importUploads(
  app: Pick<AppServices, "db" | "bindings">,
  { user, reviewId, uploadIds }: { user: UserRow; reviewId: string | undefined; uploadIds: number[] },
  options: ImportOptions = {},
): Promise<ImportResult> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "owner");
  const ids = [...new Set(uploadIds)];
  const rows = [];
  for (let i = 0; i < ids.length; i += 90) {
    rows.push(
      ...(await app.db
        .select()
        .from(uploadedStudies)
        .where(and(eq(uploadedStudies.userId, user.id), inArray(uploadedStudies.id, ids.slice(i, i + 90))))),
    );
  }
  if (rows.length !== ids.length) throw new AppError("UPLOAD_NOT_FOUND", "Uploaded study not found", 404);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const origin = "Uploaded PDFs";
  const result = await addRecords(app, {
    user,
    review,
    source: { kind: "uploads", name: origin, details: { uploadIds: ids } },
    records: ids.map((id) => {
      const u = byId.get(id)!;
      return {
        title: u.title,
        abstract: u.abstract,
        authors: u.authors,
        year: u.publicationDate ? Number(u.publicationDate.slice(0, 4)) || null : null,
        journal: u.journal,
        doi: u.doi,
        pmid: null,
        keywords: u.keywords.join("; ") || null,
        url: null,
        origin,
        uploadedStudyId: u.id,
        fullText: u.fullTextContent ? u.fullTextContent.slice(0, 200_000) : null,
      };
    }),
  });
  if (options.background) rankAfterImport(app, review, options.background);
  return result;
}
