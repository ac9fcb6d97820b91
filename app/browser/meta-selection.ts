import { useCallback, useSyncExternalStore } from "react";

/**
 * The studies added to the meta-analysis (SPEC §2 floating meta-analysis button, /meta-analysis):
 * kept in localStorage so the selection survives navigation and reloads, and shared across tabs
 * through the `storage` event. Works (in memory only) when storage is unavailable.
 */

export const META_SELECTION_KEY = "metamind:meta-selection:v1";

export interface MetaStudy {
  id: number;
  title: string;
  authors: string[];
  journal: string | null;
  publicationDate: string | null;
  doi: string | null;
  pmid: string | null;
  /** PMC id ("PMC1234567") when the study is in PubMed Central: arm-level extraction reads its full text. */
  pmcid?: string | null;
  abstract: string | null;
  /** The stored full-text analysis, when the study has one (meta-analysis extraction reads it too). */
  fullTextAnalysis?: string | null;
  source: string;
}

const EMPTY: readonly MetaStudy[] = Object.freeze([]);

let cache: readonly MetaStudy[] | null = null;
const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch (error) {
    console.warn("localStorage is unavailable", error);
    return null;
  }
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Keeps only the stored fields, so whole study objects (e.g. ApiStudy) can be passed in. */
function pick(s: MetaStudy): MetaStudy {
  return {
    id: s.id,
    title: s.title,
    authors: Array.isArray(s.authors) ? s.authors.filter((a) => typeof a === "string") : [],
    journal: text(s.journal),
    publicationDate: text(s.publicationDate),
    doi: text(s.doi),
    pmid: text(s.pmid),
    ...(text(s.pmcid) ? { pmcid: text(s.pmcid) } : {}),
    abstract: text(s.abstract),
    fullTextAnalysis: text(s.fullTextAnalysis),
    source: typeof s.source === "string" ? s.source : "",
  };
}

function isStudy(v: unknown): v is MetaStudy {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Partial<MetaStudy>;
  return typeof s.id === "number" && Number.isFinite(s.id) && typeof s.title === "string";
}

function read(): readonly MetaStudy[] {
  let raw: string | null = null;
  try {
    raw = storage()?.getItem(META_SELECTION_KEY) ?? null;
  } catch (error) {
    console.warn("Could not read the meta-analysis selection", error);
  }
  if (!raw) return EMPTY;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return EMPTY;
    const seen = new Set<number>();
    return parsed
      .filter(isStudy)
      .map(pick)
      .filter((s) => !seen.has(s.id) && seen.add(s.id));
  } catch (error) {
    console.warn("Ignoring a corrupt meta-analysis selection", error);
    return EMPTY;
  }
}

function emit(): void {
  for (const listener of listeners) listener();
}

function commit(next: readonly MetaStudy[]): void {
  cache = next.length === 0 ? EMPTY : next;
  try {
    const store = storage();
    if (next.length === 0) store?.removeItem(META_SELECTION_KEY);
    else store?.setItem(META_SELECTION_KEY, JSON.stringify(next));
  } catch (error) {
    console.warn("Could not store the meta-analysis selection; it is kept for this page only", error);
  }
  emit();
}

let listening = false;

/** Other tabs' changes arrive as `storage` events; a key of null means storage was cleared. */
function listenToOtherTabs(): void {
  if (listening || typeof window === "undefined") return;
  listening = true;
  window.addEventListener("storage", (event: StorageEvent) => {
    if (event.key !== null && event.key !== META_SELECTION_KEY) return;
    cache = read();
    emit();
  });
}

/** The selected studies, in the order they were added. The same array until it changes. */
export function getSelection(): readonly MetaStudy[] {
  if (cache === null) {
    listenToOtherTabs();
    cache = read();
  }
  return cache;
}

export function isSelected(id: number): boolean {
  return getSelection().some((s) => s.id === id);
}

export function addStudy(study: MetaStudy): void {
  if (!isStudy(study) || isSelected(study.id)) return;
  commit([...getSelection(), pick(study)]);
}

export function removeStudy(id: number): void {
  if (!isSelected(id)) return;
  commit(getSelection().filter((s) => s.id !== id));
}

/** Adds the study, or removes it when already selected; returns whether it is now selected. */
export function toggleStudy(study: MetaStudy): boolean {
  if (isSelected(study.id)) {
    removeStudy(study.id);
    return false;
  }
  addStudy(study);
  return isSelected(study.id);
}

export function clearSelection(): void {
  if (getSelection().length > 0) commit(EMPTY);
}

export function subscribe(listener: () => void): () => void {
  listenToOtherTabs();
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const serverSnapshot = (): readonly MetaStudy[] => EMPTY;

/** The selected studies; empty during server rendering and hydration. */
export function useMetaSelection(): readonly MetaStudy[] {
  return useSyncExternalStore(subscribe, getSelection, serverSnapshot);
}

/** Whether one study is selected (re-renders only when that answer changes). */
export function useIsMetaSelected(id: number): boolean {
  const selected = useCallback(() => isSelected(id), [id]);
  return useSyncExternalStore(subscribe, selected, () => false);
}
