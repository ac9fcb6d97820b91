/**
 * The client's half of 'search writes nothing' (issue 17, ADR 0019): a record a search showed
 * without a row carries the server's seal. Before the first action on such a study (summary,
 * bookmark, citation, export, specialized or full-text analysis, plan) the client sends the study
 * with its seal to POST /api/studies/store, so the action works whichever server instance answers.
 */

import type { ApiStudy } from "~/lib/search/types";
import { noteSealedStudies, sealedStudies as sealed } from "~/browser/sealed-registry";

export { noteSealedStudies };

/** The fields of a record POST /api/studies/store takes back (sealedStudySchema). */
const SEALED_FIELDS = [
  "id",
  "title",
  "abstract",
  "authors",
  "journal",
  "publicationDate",
  "pmid",
  "pmcid",
  "doi",
  "source",
  "studyType",
  "fullTextAvailable",
  "isOpenAccess",
  "openAccessUrl",
  "url",
  "citationCount",
  "impactFactor",
  "seal",
] as const;

/** The study fields the store call sends back (the API's study shape plus its seal). */
export type SealedStudyFields = Pick<ApiStudy, (typeof SEALED_FIELDS)[number]>;

/** Requested id → the stored row's id, once stored (normally the same id). */
const storedAs = new Map<number, number>();
const inFlight = new Map<number, Promise<number>>();

/** The record as searched, without what the page added to it (summaries, relevance…). */
function pick(study: object): SealedStudyFields {
  const record = study as SealedStudyFields;
  return Object.fromEntries(SEALED_FIELDS.map((field) => [field, record[field]])) as SealedStudyFields;
}

/**
 * The ids to act on for `ids`: each sealed study among them is stored first (one POST
 * /api/studies/store per 100, concurrent calls for the same id share one request); ids with a
 * row, or never seen sealed, come back unchanged. A failed store leaves the id as it is (the
 * action then answers for itself, e.g. 404 on an instance that never showed it).
 *
 * @returns the stored ids, in the order of `ids`.
 */
export async function storedStudyIds(ids: readonly number[]): Promise<number[]> {
  const toStore = [...new Set(ids)].filter((id) => sealed.has(id) && !inFlight.has(id));
  for (let i = 0; i < toStore.length; i += 100) {
    const chunk = toStore.slice(i, i + 100);
    const request = storeChunk(chunk.map((id) => pick(sealed.get(id)!)));
    for (const id of chunk)
      inFlight.set(
        id,
        request.then((map) => map.get(id) ?? id),
      );
  }
  return Promise.all(ids.map(async (id) => storedAs.get(id) ?? (inFlight.has(id) ? await inFlight.get(id)! : id)));
}

/** {@link storedStudyIds} for one study. */
export async function storedStudyId(id: number): Promise<number> {
  return (await storedStudyIds([id]))[0]!;
}

async function storeChunk(studies: SealedStudyFields[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  try {
    const response = await fetch("/api/studies/store", {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ studies }),
    });
    if (response.ok) {
      const body = (await response.json()) as { ids: Record<string, number> };
      for (const [requested, stored] of Object.entries(body.ids)) {
        out.set(Number(requested), stored);
        storedAs.set(Number(requested), stored);
        sealed.delete(Number(requested));
      }
    }
  } catch (error) {
    console.warn("could not store the studies before acting on them", error);
  } finally {
    for (const s of studies) inFlight.delete(s.id);
  }
  return out;
}
