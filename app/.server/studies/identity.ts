/**
 * Deterministic study ids (issue 17): a search gives every record an id without writing a row.
 * Pure: no I/O.
 */
import { normaliseDoi, normaliseTitleKey } from "~/lib/search/normalize";
import type { NormalisedStudy } from "~/lib/search/types";

/** Title keys shorter than this ("editorial") identify nothing on their own (as in dedupe). */
export const MIN_TITLE_KEY_LENGTH = 20;

/**
 * Derived ids live in [2^40, 10^15): far above the autoincrement ids rows stored before issue 17
 * received (so the two never meet), at most 15 digits (what every study-id parameter accepts)
 * and far below 2^53, so they stay exact JavaScript numbers even when SQLite's AUTOINCREMENT
 * later hands out max(id) + 1. Two of n papers share an id with probability ≈ n² / 2·10^15
 * (0.05 % for a million distinct papers ever shown).
 */
export const DERIVED_ID_MIN = 2 ** 40;
const DERIVED_ID_SPAN = 10 ** 15 - DERIVED_ID_MIN;

/**
 * cyrb53 (bryc, public domain): a fast 53-bit string hash with good avalanche behaviour.
 * Not cryptographic; collisions among n keys occur with probability ≈ n² / 2^53.
 */
function cyrb53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The identity key of a record: `doi:<normalised DOI>`, else `pmid:<PMID>`, else
 * `title:<normalised title key>:<year>` when that key has at least {@link MIN_TITLE_KEY_LENGTH}
 * characters (the year keeps same-titled papers of different years apart), else `source:<provider>:<provider id>` (short generic titles never identify a
 * paper). The same precedence dedupe and the stored-row match use.
 */
export function studyKey(
  record: Pick<NormalisedStudy, "doi" | "pmid" | "title" | "source" | "sourceId"> & { publicationDate?: string | null },
): string {
  const doi = normaliseDoi(record.doi);
  if (doi) return `doi:${doi}`;
  const pmid = record.pmid?.trim();
  if (pmid) return `pmid:${pmid}`;
  const title = normaliseTitleKey(record.title);
  if (title.length >= MIN_TITLE_KEY_LENGTH) return `title:${title}:${record.publicationDate?.slice(0, 4) ?? ""}`;
  return `source:${record.source}:${record.sourceId}`;
}

/**
 * The study id of a record not stored yet: a 53-bit hash of {@link studyKey} mapped into
 * [{@link DERIVED_ID_MIN}, 10^15). The same DOI gives the same id whichever database returned
 * it; a record without DOI keys on its PMID, then its title. Once a row exists, searches
 * return that row's id instead (see lookupStoredStudies), so ids never change after a first
 * action.
 */
export function studyIdFor(
  record: Pick<NormalisedStudy, "doi" | "pmid" | "title" | "source" | "sourceId"> & { publicationDate?: string | null },
): number {
  return DERIVED_ID_MIN + (cyrb53(studyKey(record)) % DERIVED_ID_SPAN);
}
