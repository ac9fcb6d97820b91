/**
 * Which records of the page's searches are sealed (issue 17, ADR 0019): the search stream notes
 * them here; {@link storedStudyIds} in ./sealed-studies stores them before the first action. Kept
 * apart from the store call so that /search's initial JavaScript carries only this map.
 */

/** A record as a search answered it: its id and, when it has no row yet, the server's seal. */
export interface SealedRecord {
  id: number;
  seal?: string;
}

/** Most sealed studies remembered by a page (about 2 KB each), oldest forgotten first. */
const MAX_SEALED = 3_000;
/** Study id → the record as the search answered it (with its seal). */
export const sealedStudies = new Map<number, SealedRecord>();

/**
 * Remembers the sealed studies among `studies` (a search's results). A study that comes back
 * without a seal has a row; it is forgotten here.
 */
export function noteSealedStudies(studies: readonly SealedRecord[]): void {
  for (const study of studies) {
    sealedStudies.delete(study.id);
    if (study.seal) sealedStudies.set(study.id, study);
  }
  while (sealedStudies.size > MAX_SEALED) sealedStudies.delete(sealedStudies.keys().next().value!);
}
