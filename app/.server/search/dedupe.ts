/**
 * Cross-provider de-duplication of normalised search results.
 */
import { classifyStudyType, normaliseDoi, normaliseTitleKey } from "~/lib/search/normalize";
import type { NormalisedStudy } from "./types";

/** Title keys shorter than this ("editorial", "reply to letter") never merge records on their own. */
const MIN_TITLE_KEY_LENGTH = 20;

/** Identifiers and year span of a union-find group (arrays: groups rarely hold more than one of each). */
interface Group {
  dois: string[];
  pmids: string[];
  minYear: number;
  maxYear: number;
}

function yearOf(study: NormalisedStudy): number {
  const y = study.publicationDate ? Number(study.publicationDate.slice(0, 4)) : NaN;
  return Number.isFinite(y) ? y : NaN;
}

/** True when both lists are non-empty and share no value (conflicting identifiers). */
function disjoint(a: string[], b: string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  for (const v of a) if (b.includes(v)) return false;
  return true;
}

function addAll(target: string[], values: string[]): void {
  for (const v of values) if (!target.includes(v)) target.push(v);
}

/** Richer-field merge of one duplicate group, in input order (first occurrence is the base). */
function mergeGroup(members: NormalisedStudy[]): NormalisedStudy {
  const [base] = members;
  if (members.length === 1) return base;
  const merged: NormalisedStudy = { ...base, authors: [...base.authors], publicationTypes: [...base.publicationTypes] };
  const types = new Set(base.publicationTypes);
  for (const other of members.slice(1)) {
    if (other.abstract && other.abstract.length > (merged.abstract?.length ?? 0)) merged.abstract = other.abstract;
    if (other.authors.length > merged.authors.length) merged.authors = [...other.authors];
    merged.journal ??= other.journal;
    merged.pmid ??= other.pmid;
    merged.pmcid ??= other.pmcid;
    merged.doi ??= other.doi;
    merged.url ??= other.url;
    merged.openAccessUrl ??= other.openAccessUrl;
    if (!merged.publicationDate) {
      merged.publicationDate = other.publicationDate;
    } else if (
      other.publicationDate &&
      other.publicationDate.length > merged.publicationDate.length &&
      other.publicationDate.startsWith(merged.publicationDate)
    ) {
      merged.publicationDate = other.publicationDate;
    }
    if (other.citationCount !== null && (merged.citationCount === null || other.citationCount > merged.citationCount)) {
      merged.citationCount = other.citationCount;
    }
    if (other.impactFactor !== null && (merged.impactFactor === null || other.impactFactor > merged.impactFactor)) {
      merged.impactFactor = other.impactFactor;
    }
    merged.isOpenAccess ||= other.isOpenAccess;
    merged.fullTextAvailable ||= other.fullTextAvailable;
    for (const t of other.publicationTypes) types.add(t);
  }
  merged.publicationTypes = [...types];
  merged.fullTextAvailable ||= merged.openAccessUrl !== null;
  merged.studyType = classifyStudyType(merged.publicationTypes, merged.title);
  return merged;
}

/**
 * Merges duplicate records across provider result lists (processed in list order, then record
 * order). Records are linked by normalised DOI, then PMID, then normalised title key
 * ({@link normaliseTitleKey}); links are transitive (union-find), so A~B by PMID and B~C by title
 * puts A, B and C in one record. Title links are refused when the two groups carry different
 * DOIs or different PMIDs, when publication years differ by more than one, or when the title key
 * is shorter than 20 characters — generic titles ("Editorial") and preprint-vs-journal versions
 * with distinct DOIs stay separate.
 *
 * The merged record keeps the first occurrence's position, source, sourceId and title, and takes
 * the longest abstract, the longest author list, the first non-null journal/pmid/pmcid/doi/url/
 * openAccessUrl, the more precise date of the same year, the maximum citationCount/impactFactor,
 * isOpenAccess/fullTextAvailable OR-ed, the union of publicationTypes and a studyType re-derived
 * from them. Inputs are not mutated. Runs in O(n) map operations (3,000 records in a few ms).
 */
export function dedupeStudies(lists: NormalisedStudy[][]): { studies: NormalisedStudy[]; duplicatesRemoved: number } {
  const { studies, duplicatesRemoved } = dedupeWithMembers(lists);
  return { studies, duplicatesRemoved };
}

/** Where a merged record's members came from: `lists[list][index]`. */
export interface MemberRef {
  list: number;
  index: number;
}

/**
 * {@link dedupeStudies} plus, for each merged record, its members in input order (the first is
 * the record whose position, source and title the merged record keeps).
 */
export function dedupeWithMembers(lists: NormalisedStudy[][]): {
  studies: NormalisedStudy[];
  duplicatesRemoved: number;
  members: MemberRef[][];
} {
  const records: NormalisedStudy[] = [];
  const origins: MemberRef[] = [];
  lists.forEach((list, l) =>
    list.forEach((study, index) => {
      records.push(study);
      origins.push({ list: l, index });
    }),
  );
  const n = records.length;
  const parent = new Int32Array(n);
  const groups: Group[] = new Array(n);
  const byDoi = new Map<string, number>();
  const byPmid = new Map<string, number>();
  const byTitle = new Map<string, number>();
  // Providers often return the identical title string; key each distinct string once.
  const keyOf = new Map<string, string>();

  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root];
    while (parent[i] !== root) {
      const next = parent[i];
      parent[i] = root;
      i = next;
    }
    return root;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    // The smaller index stays root so the group's first occurrence is its representative.
    const [root, leaf] = ra < rb ? [ra, rb] : [rb, ra];
    parent[leaf] = root;
    const g = groups[root];
    const h = groups[leaf];
    addAll(g.dois, h.dois);
    addAll(g.pmids, h.pmids);
    if (Number.isFinite(h.minYear)) {
      g.minYear = Number.isFinite(g.minYear) ? Math.min(g.minYear, h.minYear) : h.minYear;
      g.maxYear = Number.isFinite(g.maxYear) ? Math.max(g.maxYear, h.maxYear) : h.maxYear;
    }
  };
  const titleCompatible = (a: number, b: number): boolean => {
    const g = groups[find(a)];
    const h = groups[find(b)];
    if (disjoint(g.dois, h.dois) || disjoint(g.pmids, h.pmids)) return false;
    if (Number.isFinite(g.minYear) && Number.isFinite(h.minYear)) {
      const gap = Math.max(g.minYear - h.maxYear, h.minYear - g.maxYear);
      if (gap > 1) return false;
    }
    return true;
  };

  for (let i = 0; i < n; i++) {
    const study = records[i];
    parent[i] = i;
    const doi = study.doi ? (normaliseDoi(study.doi) ?? study.doi.toLowerCase()) : null;
    const pmid = study.pmid ? study.pmid.trim() : null;
    const year = yearOf(study);
    groups[i] = { dois: doi ? [doi] : [], pmids: pmid ? [pmid] : [], minYear: year, maxYear: year };
    if (doi) {
      const j = byDoi.get(doi);
      if (j === undefined) byDoi.set(doi, i);
      else union(j, i);
    }
    if (pmid) {
      const j = byPmid.get(pmid);
      if (j === undefined) byPmid.set(pmid, i);
      else union(j, i);
    }
    let key = keyOf.get(study.title);
    if (key === undefined) {
      key = normaliseTitleKey(study.title);
      keyOf.set(study.title, key);
    }
    if (key.length >= MIN_TITLE_KEY_LENGTH) {
      const j = byTitle.get(key);
      if (j === undefined) byTitle.set(key, i);
      else if (titleCompatible(j, i)) union(j, i);
    }
  }

  const members = new Map<number, number[]>();
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const root = find(i);
    let list = members.get(root);
    if (!list) {
      list = [];
      members.set(root, list);
      order.push(root);
    }
    list.push(i);
  }
  const studies = order.map((root) => mergeGroup(members.get(root)!.map((i) => records[i])));
  return {
    studies,
    duplicatesRemoved: n - studies.length,
    members: order.map((root) => members.get(root)!.map((i) => origins[i])),
  };
}
