import { eq, inArray, sql } from "drizzle-orm";
import { studies, type StudyRow } from "../../../db/schema";
import type { Database } from "../db/client";
import { normalizeTitleKey } from "../search/normalize";
import type { NormalizedStudy } from "../search/types";

/** D1 allows at most 100 bound parameters per statement. */
const PARAM_CHUNK = 90;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface Lookup {
  byDoi: Map<string, StudyRow>;
  byPmid: Map<string, StudyRow>;
  byTitle: Map<string, StudyRow>;
}

async function lookupExisting(db: Database, records: NormalizedStudy[]): Promise<Lookup> {
  const dois = [...new Set(records.map((r) => r.doi).filter((v): v is string => !!v))];
  const pmids = [...new Set(records.map((r) => r.pmid).filter((v): v is string => !!v))];
  const titles = [...new Set(records.map((r) => normalizeTitleKey(r.title)).filter(Boolean))];
  const queries = [
    ...chunks(dois, PARAM_CHUNK).map((c) => db.select().from(studies).where(inArray(studies.doi, c))),
    ...chunks(pmids, PARAM_CHUNK).map((c) => db.select().from(studies).where(inArray(studies.pmid, c))),
    ...chunks(titles, PARAM_CHUNK).map((c) =>
      db.select().from(studies).where(inArray(studies.titleKey, c)),
    ),
  ];
  const lookup: Lookup = { byDoi: new Map(), byPmid: new Map(), byTitle: new Map() };
  if (queries.length === 0) return lookup;
  const results = await db.batch(queries as [(typeof queries)[number], ...typeof queries]);
  for (const rows of results) {
    for (const row of rows) {
      if (row.doi) lookup.byDoi.set(row.doi, row);
      if (row.pmid) lookup.byPmid.set(row.pmid, row);
      if (!lookup.byTitle.has(row.titleKey)) lookup.byTitle.set(row.titleKey, row);
    }
  }
  return lookup;
}

/** A title match only counts when no identifier contradicts it (two papers may share a title). */
function titleCompatible(row: StudyRow, record: NormalizedStudy): boolean {
  if (row.doi && record.doi && row.doi !== record.doi) return false;
  if (row.pmid && record.pmid && row.pmid !== record.pmid) return false;
  return true;
}

function findExisting(lookup: Lookup, record: NormalizedStudy, titleKey: string): StudyRow | null {
  if (record.doi && lookup.byDoi.has(record.doi)) return lookup.byDoi.get(record.doi)!;
  if (record.pmid && lookup.byPmid.has(record.pmid)) return lookup.byPmid.get(record.pmid)!;
  const byTitle = lookup.byTitle.get(titleKey);
  return byTitle && titleCompatible(byTitle, record) ? byTitle : null;
}

function longer(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return b.length > a.length ? b : a;
}

/**
 * Upserts de-duplicated search records into `studies` so every record has a stable id that later
 * calls (summaries, bookmarks, exports) can reference. A record matches an existing row by DOI,
 * then PMID, then normalised title (when no identifier contradicts it); matches are enriched
 * (missing identifiers, longer abstract, more authors, higher citation count), never overwritten
 * with poorer data. Identifiers already held by another row are not copied, so the unique DOI and
 * PMID indexes never fail.
 *
 * @returns the stored rows, index-aligned with `records`.
 */
export async function upsertStudies(db: Database, records: NormalizedStudy[]): Promise<StudyRow[]> {
  if (records.length === 0) return [];
  const lookup = await lookupExisting(db, records);
  const result: (StudyRow | null)[] = new Array(records.length).fill(null);
  const statements: { index: number; query: ReturnType<typeof buildInsert> | ReturnType<typeof buildUpdate> }[] = [];
  const claimedDois = new Set(lookup.byDoi.keys());
  const claimedPmids = new Set(lookup.byPmid.keys());

  records.forEach((record, index) => {
    const titleKey = normalizeTitleKey(record.title);
    const existing = findExisting(lookup, record, titleKey);
    if (existing) {
      const doi = existing.doi ?? (record.doi && !claimedDois.has(record.doi) ? record.doi : null);
      const pmid =
        existing.pmid ?? (record.pmid && !claimedPmids.has(record.pmid) ? record.pmid : null);
      if (doi) claimedDois.add(doi);
      if (pmid) claimedPmids.add(pmid);
      statements.push({ index, query: buildUpdate(db, existing, record, doi, pmid) });
    } else {
      const doi = record.doi && !claimedDois.has(record.doi) ? record.doi : null;
      const pmid = record.pmid && !claimedPmids.has(record.pmid) ? record.pmid : null;
      if (doi) claimedDois.add(doi);
      if (pmid) claimedPmids.add(pmid);
      statements.push({ index, query: buildInsert(db, record, titleKey, doi, pmid) });
    }
  });

  const queries = statements.map((s) => s.query);
  const outputs = await db.batch(queries as [(typeof queries)[number], ...typeof queries]);
  const missing: number[] = [];
  outputs.forEach((rows, i) => {
    const { index } = statements[i]!;
    const row = (rows as StudyRow[])[0];
    if (row) result[index] = row;
    else missing.push(index);
  });

  // Rows inserted concurrently by another request: read them back by their identifiers.
  if (missing.length > 0) {
    const again = await lookupExisting(db, missing.map((i) => records[i]!));
    for (const index of missing) {
      const record = records[index]!;
      result[index] = findExisting(again, record, normalizeTitleKey(record.title));
    }
  }
  return result.map((row, i) => {
    if (!row) throw new Error(`Study could not be stored: ${records[i]!.title.slice(0, 80)}`);
    return row;
  });
}

function buildInsert(
  db: Database,
  record: NormalizedStudy,
  titleKey: string,
  doi: string | null,
  pmid: string | null,
) {
  return db
    .insert(studies)
    .values({
      doi,
      pmid,
      pmcid: record.pmcid,
      titleKey,
      title: record.title,
      abstract: record.abstract,
      authors: record.authors,
      journal: record.journal,
      publicationDate: record.publicationDate,
      source: record.source,
      sourceId: record.sourceId,
      studyType: record.studyType,
      publicationTypes: record.publicationTypes,
      fullTextAvailable: record.fullTextAvailable,
      isOpenAccess: record.isOpenAccess,
      openAccessUrl: record.openAccessUrl,
      url: record.url,
      impactFactor: record.impactFactor,
      citationCount: record.citationCount,
    })
    .onConflictDoNothing()
    .returning();
}

function buildUpdate(
  db: Database,
  row: StudyRow,
  record: NormalizedStudy,
  doi: string | null,
  pmid: string | null,
) {
  const citationCount =
    row.citationCount == null
      ? record.citationCount
      : Math.max(row.citationCount, record.citationCount ?? 0);
  return db
    .update(studies)
    .set({
      doi,
      pmid,
      pmcid: row.pmcid ?? record.pmcid,
      abstract: longer(row.abstract, record.abstract),
      authors: record.authors.length > row.authors.length ? record.authors : row.authors,
      journal: row.journal ?? record.journal,
      publicationDate:
        (record.publicationDate?.length ?? 0) > (row.publicationDate?.length ?? 0)
          ? record.publicationDate
          : row.publicationDate,
      studyType: row.studyType === "Research Article" ? record.studyType : row.studyType,
      publicationTypes: [...new Set([...row.publicationTypes, ...record.publicationTypes])],
      fullTextAvailable: row.fullTextAvailable || record.fullTextAvailable,
      isOpenAccess: row.isOpenAccess || record.isOpenAccess,
      openAccessUrl: row.openAccessUrl ?? record.openAccessUrl,
      url: row.url ?? record.url,
      impactFactor: row.impactFactor ?? record.impactFactor,
      citationCount,
      updatedAt: sql`(unixepoch('subsec') * 1000)`,
    })
    .where(eq(studies.id, row.id))
    .returning();
}
