import type { StudyRow } from "../../../db/schema";
import { normaliseTitleKey } from "~/lib/search/normalize";
import { MIN_TITLE_KEY_LENGTH, studyIdFor } from "./identity";
import type { NormalisedStudy } from "~/lib/search/types";
import { parseStoredCitations, type StoredSummary } from "./queries";

/**
 * Parameters ?1–?24 shared by the match, update and insert statements of one record:
 * the record's values, then its normalised title key, publication year, the time, the
 * viewer's user id ('' for guests; it selects which full-text analysis comes back) and the id
 * a new row takes (the record's deterministic id, see studyIdFor).
 */
const COLUMNS = `id, doi, pmid, pmcid, title_key, title, abstract, authors, journal, publication_date, source,
  source_id, study_type, publication_types, full_text_available, is_open_access, open_access_url, url,
  impact_factor, citation_count, created_at, updated_at`;
const VALUES = `?24, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?22, ?22`;

/**
 * The stored study a record belongs to: same DOI, else same PMID, else the same (long enough)
 * normalised title with no contradicting identifier and a publication year within one — the
 * rules dedupeStudies applies in memory, so a paper keeps one row across searches; a record
 * with none of these (no DOI, no PMID, a short title: studyKey's `source:` case) matches the row
 * with the same database and database id. Written as a UNION of lookups so each uses its index
 * (an OR of them would scan the table).
 */
const MATCH = `(SELECT id FROM (
    SELECT m.id, 0 AS rank FROM studies m WHERE m.doi = ?1
    UNION ALL SELECT m.id, 1 FROM studies m WHERE m.pmid = ?2
    UNION ALL SELECT m.id, 2 FROM studies m
      WHERE m.title_key = ?20 AND length(?20) >= ${MIN_TITLE_KEY_LENGTH}
        AND (m.doi IS NULL OR ?1 IS NULL OR m.doi = ?1)
        AND (m.pmid IS NULL OR ?2 IS NULL OR m.pmid = ?2)
        AND (?21 IS NULL OR m.publication_date IS NULL
             OR abs(CAST(substr(m.publication_date, 1, 4) AS INTEGER) - ?21) <= 1)
    UNION ALL SELECT m.id, 3 FROM studies m
      WHERE m.source = ?10 AND m.source_id = ?11 AND ?11 <> ''
        AND ?1 IS NULL AND ?2 IS NULL AND length(?20) < ${MIN_TITLE_KEY_LENGTH})
  ORDER BY rank, id LIMIT 1)`;

/**
 * Each row comes back with its newest stored public AI summary (feature 'summary'): content,
 * model, citations (JSON text) and time, each from the same row (same order, id as the
 * tie-break), and its newest full-text analysis (feature 'fulltext') the viewer (?23) may see:
 * a public one, or the viewer's own private one.
 */
const NEWEST_SUMMARY = `FROM ai_summaries s WHERE s.study_id = studies.id AND s.feature = 'summary' AND s.owner_id = ''
     ORDER BY s.updated_at DESC, s.id DESC LIMIT 1`;
const RETURNING = `RETURNING *,${summaryColumns("?23")}`;

/** The summary and full-text columns of a stored row, for the viewer in parameter `viewer`. */
export function summaryColumns(viewer: string): string {
  return `
  (SELECT s.content ${NEWEST_SUMMARY}) AS summary_content,
  (SELECT s.model ${NEWEST_SUMMARY}) AS summary_model,
  (SELECT s.citations ${NEWEST_SUMMARY}) AS summary_citations,
  (SELECT s.updated_at ${NEWEST_SUMMARY}) AS summary_updated_at,
  (SELECT f.content FROM ai_summaries f WHERE f.study_id = studies.id AND f.feature = 'fulltext'
     AND (f.owner_id = '' OR (${viewer} <> '' AND f.owner_id = ${viewer}))
     ORDER BY f.updated_at DESC, f.id DESC LIMIT 1) AS fulltext_content`;
}

/**
 * Enriches the matched row, never overwriting with poorer data: missing identifiers (unless
 * another row already holds them, so the unique DOI/PMID indexes never fail), the longer
 * abstract, the longer author list, the more precise date, a specific study type over
 * 'Research Article', the union of publication types, OR-ed open-access flags and the higher
 * citation count.
 */
const UPDATE = `UPDATE studies SET
  doi = CASE WHEN doi IS NULL AND ?1 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies d WHERE d.doi = ?1)
             THEN ?1 ELSE doi END,
  pmid = CASE WHEN pmid IS NULL AND ?2 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies p WHERE p.pmid = ?2)
              THEN ?2 ELSE pmid END,
  pmcid = COALESCE(pmcid, ?3),
  abstract = CASE WHEN length(COALESCE(?6, '')) > length(COALESCE(abstract, '')) THEN ?6 ELSE abstract END,
  authors = CASE WHEN json_array_length(?7) > json_array_length(authors) THEN ?7 ELSE authors END,
  journal = COALESCE(journal, ?8),
  publication_date = CASE WHEN length(COALESCE(?9, '')) > length(COALESCE(publication_date, ''))
                          THEN ?9 ELSE publication_date END,
  study_type = CASE WHEN study_type = 'Research Article' THEN ?12 ELSE study_type END,
  publication_types = (SELECT json_group_array(value) FROM (
      SELECT value FROM json_each(publication_types) UNION SELECT value FROM json_each(?13))),
  full_text_available = MAX(full_text_available, ?14),
  is_open_access = MAX(is_open_access, ?15),
  open_access_url = COALESCE(open_access_url, ?16),
  url = COALESCE(url, ?17),
  impact_factor = COALESCE(impact_factor, ?18),
  citation_count = CASE WHEN citation_count IS NULL THEN ?19 WHEN ?19 IS NULL THEN citation_count
                        ELSE MAX(citation_count, ?19) END,
  updated_at = ?22
WHERE id = ${MATCH}
${RETURNING}`;

/**
 * Inserts the record under its deterministic id when nothing matched (a fresh id when another
 * paper already holds that one: a hash collision). Identifiers another row holds are left out
 * (the same guard as UPDATE).
 */
const INSERT = `INSERT INTO studies (${COLUMNS})
SELECT
  CASE WHEN NOT EXISTS (SELECT 1 FROM studies i WHERE i.id = ?24) THEN ?24 END,
  CASE WHEN ?1 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies d WHERE d.doi = ?1) THEN ?1 END,
  CASE WHEN ?2 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM studies p WHERE p.pmid = ?2) THEN ?2 END,
  ${VALUES.split(", ").slice(3).join(", ")}
WHERE ${MATCH} IS NULL
${RETURNING}`;

/** A studies row with its summary columns, as D1 returns it. */
export interface RawRow {
  id: number;
  doi: string | null;
  pmid: string | null;
  pmcid: string | null;
  title_key: string;
  title: string;
  abstract: string | null;
  authors: string;
  journal: string | null;
  publication_date: string | null;
  source: string;
  source_id: string;
  study_type: string;
  publication_types: string;
  full_text_available: number;
  is_open_access: number;
  open_access_url: string | null;
  url: string | null;
  impact_factor: number | null;
  citation_count: number | null;
  created_at: number;
  updated_at: number;
  summary_content: string | null;
  summary_model: string | null;
  /** JSON text of the summary's citations, or null. */
  summary_citations: string | null;
  summary_updated_at: number | null;
  fulltext_content: string | null;
}

export function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

/** A stored study row with its newest summary and full-text analysis (null when none). */
export interface StoredStudy {
  row: StudyRow;
  summary: StoredSummary | null;
  fullTextAnalysis: string | null;
}

/** Parses a raw row (see RawRow) into the row, its newest summary and full-text analysis. */
export function toStored(raw: RawRow): StoredStudy {
  const row: StudyRow = {
    id: raw.id,
    doi: raw.doi,
    pmid: raw.pmid,
    pmcid: raw.pmcid,
    titleKey: raw.title_key,
    title: raw.title,
    abstract: raw.abstract,
    authors: parseList(raw.authors),
    journal: raw.journal,
    publicationDate: raw.publication_date,
    source: raw.source,
    sourceId: raw.source_id,
    studyType: raw.study_type,
    publicationTypes: parseList(raw.publication_types),
    fullTextAvailable: !!raw.full_text_available,
    isOpenAccess: !!raw.is_open_access,
    openAccessUrl: raw.open_access_url,
    url: raw.url,
    impactFactor: raw.impact_factor,
    citationCount: raw.citation_count,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  };
  const summary =
    raw.summary_content != null && raw.summary_model != null
      ? {
          content: raw.summary_content,
          model: raw.summary_model,
          citations: parseStoredCitations(raw.summary_citations),
          updatedAt: raw.summary_updated_at ?? 0,
        }
      : null;
  return { row, summary, fullTextAnalysis: raw.fulltext_content ?? null };
}

/** Parameters ?1–?24 of a record (see COLUMNS); UPDATE uses the first 23. */
function recordParams(record: NormalisedStudy, now: number, viewerId: string, id: number): unknown[] {
  const year = record.publicationDate ? Number(record.publicationDate.slice(0, 4)) : NaN;
  return [
    record.doi,
    record.pmid,
    record.pmcid,
    normaliseTitleKey(record.title),
    record.title,
    record.abstract,
    JSON.stringify(record.authors),
    record.journal,
    record.publicationDate,
    record.source,
    record.sourceId,
    record.studyType,
    JSON.stringify(record.publicationTypes),
    record.fullTextAvailable ? 1 : 0,
    record.isOpenAccess ? 1 : 0,
    record.openAccessUrl,
    record.url,
    record.impactFactor,
    record.citationCount,
    normaliseTitleKey(record.title),
    Number.isFinite(year) ? year : null,
    now,
    viewerId,
    id,
  ];
}

/**
 * Stores records (the first action on a study, or a search imported into a review; searches
 * themselves write nothing) in ONE D1 round trip: per record an UPDATE of the matching row (see
 * MATCH and UPDATE for the rules) and an INSERT under `options.ids[i]` (default: the record's
 * deterministic id, studyIdFor) when nothing matched, run in order inside one batch (a
 * transaction), so records of the same batch see each other. A record that matches a row
 * stored earlier keeps that row's id. Each row comes back with its
 * newest AI summary, that summary's citations, and its newest full-text analysis that
 * `options.viewerId` may see (public ones only for guests).
 *
 * @returns the stored rows and summaries, index-aligned with `records`.
 * @throws Error when D1 fails (nothing is written: the batch is atomic).
 */
export async function upsertStudies(
  d1: D1Database,
  records: NormalisedStudy[],
  options: { viewerId?: string | null; ids?: readonly number[] } = {},
): Promise<StoredStudy[]> {
  if (records.length === 0) return [];
  const now = Date.now();
  const update = d1.prepare(UPDATE);
  const insert = d1.prepare(INSERT);
  const viewerId = options.viewerId ?? "";
  const statements = records.flatMap((record, i) => {
    const id = options.ids?.[i] ?? studyIdFor(record);
    const params = recordParams(record, now, viewerId, id);
    return [update.bind(...params.slice(0, 23)), insert.bind(...params)];
  });
  const results = await d1.batch<RawRow>(statements);
  return records.map((record, i) => {
    const raw = results[2 * i]!.results[0] ?? results[2 * i + 1]!.results[0];
    if (!raw) throw new Error(`Study could not be stored: ${record.title.slice(0, 80)}`);
    return toStored(raw);
  });
}
