/**
 * First action on a study (issue 17): searches write no rows, so an action (summary, bookmark,
 * specialized or full-text analysis, plan, review import) first makes sure the row exists,
 * from the record this Worker showed in a search. Reads (GET /api/studies/{id}, citations,
 * export) answer from that record without writing.
 */
import type { StudyRow } from "../../../db/schema";
import type { Database } from "../db/client";
import type { Bindings } from "../env";
import { recordFromRow } from "./lookup";
import { upsertStudies } from "./persist";
import { getStudy, toApiStudy, type ApiStudy } from "./queries";

/**
 * Most shown-but-unstored studies kept per isolate (about 2 KB each, so ≤ ~10 MB), oldest
 * evicted first. A search re-adds its records, so an entry lives while people keep finding it.
 */
export const MAX_SHOWN_STUDIES = 5_000;
const shown = new Map<number, StudyRow>();

/**
 * Remembers the studies a search showed that have no row yet (id → the row they would be
 * stored as), so the first action on one can store exactly what the user saw. Newest last;
 * the oldest beyond {@link MAX_SHOWN_STUDIES} are forgotten.
 */
export function rememberShownStudies(rows: Iterable<StudyRow>): void {
  for (const row of rows) {
    shown.delete(row.id);
    shown.set(row.id, row);
  }
  while (shown.size > MAX_SHOWN_STUDIES) shown.delete(shown.keys().next().value!);
}

/** The unstored study a search on this isolate showed under `id`, or null. */
export function shownStudy(id: number): StudyRow | null {
  return shown.get(id) ?? null;
}

/**
 * Makes sure study `id` has a row before an action uses it: an existing row is used as is;
 * otherwise the record a search showed under that id is stored (upsertStudies: under `id`, or
 * under the id of a row stored meanwhile that matches it by DOI, PMID or title).
 *
 * @returns the id of the stored row (normally `id`), or null when the id is unknown (the caller
 *   answers 404 STUDY_NOT_FOUND as before).
 * @throws Error when D1 fails.
 */
export async function ensureStudy(app: { bindings: Pick<Bindings, "DB"> }, id: number): Promise<number | null> {
  const existing = await app.bindings.DB.prepare("SELECT id FROM studies WHERE id = ?1")
    .bind(id)
    .first<{ id: number }>();
  if (existing) return existing.id;
  const row = shownStudy(id);
  if (!row) return null;
  const [stored] = await upsertStudies(app.bindings.DB, [recordFromRow(row)], { ids: [id] });
  shown.delete(id);
  return stored!.row.id;
}

/**
 * The study an action works on (getStudy's shape), its row stored first when only a search had
 * shown it (see ensureStudy); null when the id is unknown.
 */
export async function getStudyForAction(
  app: { db: Database; bindings: Pick<Bindings, "DB"> },
  { id, viewerId = null }: { id: number; viewerId?: string | null },
): Promise<ApiStudy | null> {
  // One read when the row is stored (the usual case); otherwise store it first.
  const study = await getStudy(app, { id, viewerId });
  if (study) return study;
  const stored = await ensureStudy(app, id);
  return stored === null ? null : getStudy(app, { id: stored, viewerId });
}

/**
 * The study a read shows (GET /api/studies/{id}, citations, export): the stored one, else the
 * one a search on this isolate showed under that id (no summary yet, nothing written); null when
 * unknown.
 */
export async function getStudyOrShown(
  app: { db: Database },
  { id, viewerId = null }: { id: number; viewerId?: string | null },
): Promise<ApiStudy | null> {
  const study = await getStudy(app, { id, viewerId });
  if (study) return study;
  const row = shownStudy(id);
  return row ? toApiStudy(row, null) : null;
}

/**
 * {@link ensureStudy} for many ids at once (a search imported into a review): one read finds the
 * stored ones, one batch stores the rest from what searches showed.
 *
 * @returns requested id → stored id, for every id that is stored now (unknown ids are absent).
 * @throws Error when D1 fails.
 */
export async function ensureStudies(
  app: { bindings: Pick<Bindings, "DB"> },
  ids: readonly number[],
): Promise<Map<number, number>> {
  const unique = [...new Set(ids)];
  const out = new Map<number, number>();
  if (unique.length === 0) return out;
  const { results } = await app.bindings.DB.prepare(
    "SELECT id FROM studies WHERE id IN (SELECT value FROM json_each(?1))",
  )
    .bind(JSON.stringify(unique))
    .all<{ id: number }>();
  for (const { id } of results) out.set(id, id);
  const toStore = unique.flatMap((id) => {
    const row = out.has(id) ? null : shownStudy(id);
    return row ? [row] : [];
  });
  // Batches of 500 records (1,000 statements), the size one database's search page stores.
  for (let i = 0; i < toStore.length; i += 500) {
    const chunk = toStore.slice(i, i + 500);
    const stored = await upsertStudies(app.bindings.DB, chunk.map(recordFromRow), { ids: chunk.map((r) => r.id) });
    chunk.forEach((row, j) => {
      out.set(row.id, stored[j]!.row.id);
      shown.delete(row.id);
    });
  }
  return out;
}
