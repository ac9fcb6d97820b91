/**
 * Which records of the page's searches are sealed (issue 17, ADR 0019): the search stream notes
 * them here; {@link storedStudyIds} in ./sealed-studies stores them before the first action. Kept
 * apart from the store call so that /search's initial JavaScript carries only this map.
 */

/** The study fields the store call sends back (the API's study shape plus its seal). */
export interface SealedStudyFields {
  id: number;
  title: string;
  abstract: string | null;
  authors: string[];
  journal: string | null;
  publicationDate: string | null;
  pmid: string | null;
  pmcid: string | null;
  doi: string | null;
  source: string;
  studyType: string;
  fullTextAvailable: boolean;
  isOpenAccess: boolean;
  openAccessUrl: string | null;
  url: string | null;
  citationCount: number | null;
  impactFactor: number | null;
  seal?: string;
}

/** Most sealed studies remembered by a page (about 2 KB each), oldest forgotten first. */
const MAX_SEALED = 3_000;
/** Study id → the record as the search answered it (with its seal). */
export const sealedStudies = new Map<number, SealedStudyFields>();

/**
 * Remembers the sealed studies among `studies` (a search's results). A study that comes back
 * without a seal has a row; it is forgotten here.
 */
export function noteSealedStudies(studies: readonly SealedStudyFields[]): void {
  for (const study of studies) {
    sealedStudies.delete(study.id);
    if (study.seal) sealedStudies.set(study.id, study);
  }
  while (sealedStudies.size > MAX_SEALED) sealedStudies.delete(sealedStudies.keys().next().value!);
}
