import { useSyncExternalStore } from "react";
import { enqueueBookmark, queuedBookmarks, replayBookmarkQueue, sendBookmark } from "~/browser/bookmark-queue";
import { queuedReplyOf, REPLAYED_EVENT, serviceWorkerControlsPage, type ReplayedMessage } from "~/browser/offline-sync";
import { storedStudyId } from "~/browser/sealed-studies";

/**
 * The signed-in user's bookmarked study ids on this page, shared by every study card: loaded
 * once from GET /api/bookmarks, changed by {@link toggleBookmark}, with queued offline changes
 * applied on top. Cards subscribe through {@link useIsBookmarked}.
 */

let ids = new Set<number>();
let loaded: Promise<void> | null = null;
const listeners = new Set<() => void>();
/**
 * The toggles made on this page, numbered in order. A list fetched from the server is only as new
 * as its request: the toggles made after the request was sent are applied on top of it, so a
 * bookmark made while the first load was still in flight is not undone by that load's answer.
 */
let toggleSeq = 0;
let recentToggles: { seq: number; studyId: number; bookmarked: boolean }[] = [];

function emit(next: Set<number>): void {
  ids = next;
  for (const l of listeners) l();
}

/** Records a toggle and shows it at once. */
function applyToggle(studyId: number, bookmarked: boolean): void {
  recentToggles.push({ seq: ++toggleSeq, studyId, bookmarked });
  const next = new Set(ids);
  if (bookmarked) next.add(studyId);
  else next.delete(studyId);
  emit(next);
}

/** The server's list as of a request sent after toggle `since`, with the later toggles on top. */
function withLaterToggles(server: Set<number>, since: number): Set<number> {
  const next = new Set(server);
  for (const t of recentToggles) {
    if (t.seq <= since) continue;
    if (t.bookmarked) next.add(t.studyId);
    else next.delete(t.studyId);
  }
  return next;
}

function withQueue(base: Set<number>): Set<number> {
  const next = new Set(base);
  for (const q of queuedBookmarks()) {
    if (q.action === "add") next.add(q.studyId);
    else next.delete(q.studyId);
  }
  return next;
}

let syncStarted = false;

/**
 * Loads the bookmarks once per page (again after `force`); failures leave the set as it is.
 * The first call also starts the offline replay ({@link startBookmarkSync}).
 */
export function loadBookmarks(force = false): Promise<void> {
  if (!syncStarted && typeof window !== "undefined") {
    syncStarted = true;
    startBookmarkSync();
  }
  if (loaded && !force) return loaded;
  loaded = (async () => {
    // Toggles up to this one were answered before the request is sent, so the list includes them.
    const since = toggleSeq;
    try {
      const res = await fetch("/api/bookmarks", { credentials: "include", cache: "no-store" });
      if (!res.ok) return;
      const body = (await res.json()) as { bookmarks: { study: { id: number } }[] };
      emit(withQueue(withLaterToggles(new Set(body.bookmarks.map((b) => b.study.id)), since)));
      recentToggles = recentToggles.filter((t) => t.seq > since);
    } catch (error) {
      console.warn("Could not load bookmarks", error);
      emit(withQueue(ids));
    }
  })();
  return loaded;
}

/** The study ids bookmarked as this page knows them now (server list, toggles, queued changes). */
export function bookmarkedIds(): ReadonlySet<number> {
  return ids;
}

/** Whether the study is bookmarked; re-renders the card when that changes. */
export function useIsBookmarked(studyId: number): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => bookmarkedIds().has(studyId),
    () => false,
  );
}

/** What a toggle did: saved on the server, queued for later (offline), or refused. */
export type ToggleOutcome =
  | { kind: "saved"; bookmarked: boolean }
  | { kind: "queued"; bookmarked: boolean }
  | { kind: "signin" }
  | { kind: "error"; message: string };

/**
 * Adds or removes a bookmark. Offline the change is queued and shown at once, and sent when the
 * connection returns: by the service worker (its bookmark-sync queue, replayed with Background
 * Sync; it answers the request with an "offline, queued" reply) when one controls the page, else
 * in localStorage (navigator.onLine false, or the request cannot reach the server).
 */
export async function toggleBookmark(studyId: number, bookmark: boolean): Promise<ToggleOutcome> {
  const action = bookmark ? "add" : "remove";
  const apply = () => applyToggle(studyId, bookmark);
  if (typeof navigator !== "undefined" && navigator.onLine === false && !serviceWorkerControlsPage()) {
    enqueueBookmark(studyId, action);
    apply();
    return { kind: "queued", bookmarked: bookmark };
  }
  let res: Response;
  try {
    res = await sendBookmark(bookmark ? await storedStudyId(studyId) : studyId, action);
  } catch {
    enqueueBookmark(studyId, action);
    apply();
    return { kind: "queued", bookmarked: bookmark };
  }
  if (await queuedReplyOf(res)) {
    apply();
    return { kind: "queued", bookmarked: bookmark };
  }
  if (res.ok || (!bookmark && res.status === 404)) {
    apply();
    return { kind: "saved", bookmarked: bookmark };
  }
  if (res.status === 401) return { kind: "signin" };
  const body = (await res.json().catch(() => ({}))) as { message?: string };
  return {
    kind: "error",
    message: body.message ?? (bookmark ? "Failed to add bookmark" : "Failed to remove bookmark"),
  };
}

let replaying = false;

/**
 * Starts the offline replay: now (for changes left from an earlier visit) and on every 'online'
 * event; reloads the bookmarks after changes were sent, here or by the service worker's
 * bookmark-sync queue. Returns the cleanup.
 */
export function startBookmarkSync(): () => void {
  const run = async () => {
    if (replaying || queuedBookmarks().length === 0) return;
    replaying = true;
    try {
      const { sent } = await replayBookmarkQueue();
      if (sent > 0) await loadBookmarks(true);
    } finally {
      replaying = false;
    }
  };
  const onReplayed = (event: Event) => {
    if ((event as CustomEvent<ReplayedMessage>).detail?.queue === "bookmark-sync") void loadBookmarks(true);
  };
  void run();
  window.addEventListener("online", run);
  window.addEventListener(REPLAYED_EVENT, onReplayed);
  return () => {
    window.removeEventListener("online", run);
    window.removeEventListener(REPLAYED_EVENT, onReplayed);
  };
}
