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

function emit(next: Set<number>): void {
  ids = next;
  for (const l of listeners) l();
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
    try {
      const res = await fetch("/api/bookmarks", { credentials: "include", cache: "no-store" });
      if (!res.ok) return;
      const body = (await res.json()) as { bookmarks: { study: { id: number } }[] };
      emit(withQueue(new Set(body.bookmarks.map((b) => b.study.id))));
    } catch (error) {
      console.warn("Could not load bookmarks", error);
      emit(withQueue(ids));
    }
  })();
  return loaded;
}

export function useIsBookmarked(studyId: number): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => ids.has(studyId),
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
  const apply = () => {
    const next = new Set(ids);
    if (bookmark) next.add(studyId);
    else next.delete(studyId);
    emit(next);
  };
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
