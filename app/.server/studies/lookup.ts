/**
 * The search's one read (issue 17): which of a page of records are already stored, with their
 * newest summaries, in one D1 query and no write. Records not stored keep their deterministic
 * ids (studyIdFor); the row is written by the first action on the study (ensureStudy).
 */
import type { StudyRow } from "../../../db/schema";
import { normaliseDoi, normaliseTitleKey } from "~/lib/search/normalize";
import type { NormalisedStudy } from "~/lib/search/types";
import { MIN_TITLE_KEY_LENGTH, studyIdFor } from "./identity";
import { summaryColumns, toStored, type RawRow, type StoredStudy } from "./persist";

/**
 * Rows matching any of the DOIs (?1), PMIDs (?2), title keys (?3) or [database, database id]
 * pairs (?5), each with its newest public summary and the newest full-text analysis viewer ?4
 * may see. The lists travel as JSON arrays (one parameter each, far from D1's 100-parameter
 * limit); each branch of the UNION uses its index.
 */
const LOOKUP = `SELECT studies.*,${summaryColumns("?4")}
FROM studies WHERE id IN (
  SELECT id FROM studies WHERE doi IN (SELECT value FROM json_each(?1))
  UNION SELECT id FROM studies WHERE pmid IN (SELECT value FROM json_each(?2))
  UNION SELECT id FROM studies WHERE title_key IN (SELECT value FROM json_each(?3))
  UNION SELECT s.id FROM json_each(?5) j JOIN studies s
    ON s.source = json_extract(j.value, '$[0]') AND s.source_id = json_extract(j.value, '$[1]'))`;

/** Something D1 statements can be prepared on: the database or a Sessions API session. */
export type D1Reader = Pick<D1Database, "prepare">;

/**
 * A read-only D1 handle that may be answered by a read replica: a Sessions API session
 * ('first-unconstrained': any replica, no bookmark to carry) when the binding offers one,
 * else the binding itself (older runtimes, test doubles).
 */
export function readSession(d1: D1Database): D1Reader {
  try {
    if (typeof d1.withSession === "function") return d1.withSession("first-unconstrained");
  } catch {
    // Sessions unavailable here: read from the primary.
  }
  return d1;
}

function yearOf(date: string | null): number | null {
  const y = date ? Number(date.slice(0, 4)) : NaN;
  return Number.isFinite(y) ? y : null;
}

/** Index key of a record known only by its database's id (see {@link keysOf}). */
const sourceIndexKey = (source: string, sourceId: string) => `${source}\u0000${sourceId}`;

/** What a record is matched by, normalised once per record. */
interface RecordKeys {
  doi: string | null;
  titleKey: string;
  /**
   * {@link sourceIndexKey} of a record with no DOI, no PMID and a title key shorter than
   * MIN_TITLE_KEY_LENGTH (studyKey's `source:` case), which is how such a record finds its stored
   * row; null for any other record, or when the database gave no id.
   */
  source: string | null;
}

function keysOf(record: NormalisedStudy): RecordKeys {
  const doi = normaliseDoi(record.doi);
  const titleKey = normaliseTitleKey(record.title);
  const bySource = !doi && !record.pmid?.trim() && record.sourceId && titleKey.length < MIN_TITLE_KEY_LENGTH;
  return { doi, titleKey, source: bySource ? sourceIndexKey(record.source, record.sourceId) : null };
}

interface RowIndex {
  byDoi: Map<string, StoredStudy>;
  byPmid: Map<string, StoredStudy>;
  byTitle: Map<string, StoredStudy[]>;
  bySource: Map<string, StoredStudy>;
}

/**
 * The stored row a record belongs to — the rules of persist.ts's MATCH, applied in memory: same
 * DOI, else same PMID, else the same (long enough) title key with no contradicting identifier and
 * a publication year within one, else (a record with none of these) the same database and
 * database id; the lowest id wins a tie.
 */
function matchRecord(
  record: NormalisedStudy,
  { doi, titleKey, source }: RecordKeys,
  index: RowIndex,
): StoredStudy | null {
  if (doi && index.byDoi.has(doi)) return index.byDoi.get(doi)!;
  if (record.pmid && index.byPmid.has(record.pmid)) return index.byPmid.get(record.pmid)!;
  if (source) return index.bySource.get(source) ?? null;
  if (titleKey.length < MIN_TITLE_KEY_LENGTH) return null;
  const year = yearOf(record.publicationDate);
  for (const candidate of index.byTitle.get(titleKey) ?? []) {
    const row = candidate.row;
    if (row.doi && doi && row.doi !== doi) continue;
    if (row.pmid && record.pmid && row.pmid !== record.pmid) continue;
    const rowYear = yearOf(row.publicationDate);
    if (year !== null && rowYear !== null && Math.abs(rowYear - year) > 1) continue;
    return candidate;
  }
  return null;
}

/** A record resolved against the stored rows. */
export interface ResolvedRecord {
  /** The stored row's id, or the record's deterministic id when not stored. */
  id: number;
  /** The stored row (with its newest summary and full-text analysis), or null. */
  stored: StoredStudy | null;
}

/**
 * Resolves records against the stored studies with ONE read query (no write): each gets the id
 * of the row it matches (see matchRecord) with that row's newest public summary and the newest
 * full-text analysis `viewerId` may see, or its deterministic id (studyIdFor) and no row.
 *
 * @returns index-aligned with `records`.
 * @throws Error when D1 fails.
 */
export async function lookupStoredStudies(
  reader: D1Reader,
  records: readonly NormalisedStudy[],
  viewerId: string | null = null,
): Promise<ResolvedRecord[]> {
  if (records.length === 0) return [];
  const dois = new Set<string>();
  const pmids = new Set<string>();
  const titles = new Set<string>();
  const sources = new Map<string, [string, string]>();
  const keys = records.map(keysOf);
  records.forEach((r, i) => {
    const { doi, titleKey, source } = keys[i]!;
    if (doi) dois.add(doi);
    if (r.pmid) pmids.add(r.pmid);
    if (titleKey.length >= MIN_TITLE_KEY_LENGTH) titles.add(titleKey);
    if (source) sources.set(source, [r.source, r.sourceId]);
  });
  const { results } = await reader
    .prepare(LOOKUP)
    .bind(
      JSON.stringify([...dois]),
      JSON.stringify([...pmids]),
      JSON.stringify([...titles]),
      viewerId ?? "",
      JSON.stringify([...sources.values()]),
    )
    .all<RawRow>();
  const rows = results.map(toStored).sort((a, b) => a.row.id - b.row.id);
  const index: RowIndex = { byDoi: new Map(), byPmid: new Map(), byTitle: new Map(), bySource: new Map() };
  for (const s of rows) {
    if (s.row.doi) index.byDoi.set(s.row.doi, s);
    if (s.row.pmid) index.byPmid.set(s.row.pmid, s);
    const list = index.byTitle.get(s.row.titleKey);
    if (list) list.push(s);
    else index.byTitle.set(s.row.titleKey, [s]);
    const sourceKey = sourceIndexKey(s.row.source, s.row.sourceId);
    if (!index.bySource.has(sourceKey)) index.bySource.set(sourceKey, s);
  }
  return records.map((record, i) => {
    const stored = matchRecord(record, keys[i]!, index);
    return { id: stored ? stored.row.id : studyIdFor(record), stored };
  });
}

/**
 * The row a record would be stored as (id given), before any row exists: what a search shows
 * for a study nobody has acted on yet.
 */
export function rowFromRecord(id: number, record: NormalisedStudy): StudyRow {
  return {
    id,
    doi: record.doi,
    pmid: record.pmid,
    pmcid: record.pmcid,
    titleKey: normaliseTitleKey(record.title),
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
    createdAt: 0,
    updatedAt: 0,
  };
}

/** The record a row (stored or shown) stands for, to store it (ensureStudy). */
export function recordFromRow(row: StudyRow): NormalisedStudy {
  return {
    source: row.source as NormalisedStudy["source"],
    sourceId: row.sourceId,
    title: row.title,
    abstract: row.abstract,
    authors: row.authors,
    journal: row.journal,
    publicationDate: row.publicationDate,
    pmid: row.pmid,
    pmcid: row.pmcid,
    doi: row.doi,
    studyType: row.studyType as NormalisedStudy["studyType"],
    publicationTypes: row.publicationTypes,
    fullTextAvailable: row.fullTextAvailable,
    isOpenAccess: row.isOpenAccess,
    openAccessUrl: row.openAccessUrl,
    url: row.url,
    citationCount: row.citationCount,
    impactFactor: row.impactFactor,
  };
}

/**
 * A row enriched by a record in memory, never with poorer data — the rules persist.ts's UPDATE
 * applies when the row is written: missing identifiers, the longer abstract and author list,
 * the more precise date, a specific study type over 'Research Article', the union of
 * publication types, OR-ed open-access flags, the higher citation count. Returns a
 * copy; never mutates its inputs.
 */
export function enrichRow(row: StudyRow, record: NormalisedStudy): StudyRow {
  const out: StudyRow = { ...row };
  out.doi ??= normaliseDoi(record.doi);
  out.pmid ??= record.pmid;
  out.pmcid ??= record.pmcid;
  if ((record.abstract?.length ?? 0) > (row.abstract?.length ?? 0)) out.abstract = record.abstract;
  if (record.authors.length > row.authors.length) out.authors = record.authors;
  out.journal ??= record.journal;
  if ((record.publicationDate?.length ?? 0) > (row.publicationDate?.length ?? 0))
    out.publicationDate = record.publicationDate;
  if (row.studyType === "Research Article") out.studyType = record.studyType;
  const types = new Set(row.publicationTypes);
  for (const t of record.publicationTypes) types.add(t);
  if (types.size !== row.publicationTypes.length) out.publicationTypes = [...types];
  out.fullTextAvailable ||= record.fullTextAvailable;
  out.isOpenAccess ||= record.isOpenAccess;
  out.openAccessUrl ??= record.openAccessUrl;
  out.url ??= record.url;
  out.impactFactor ??= record.impactFactor;
  if (record.citationCount !== null && (row.citationCount === null || record.citationCount > row.citationCount)) {
    out.citationCount = record.citationCount;
  }
  return out;
}
