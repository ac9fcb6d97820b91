/**
 * Offline bookmarking (SPEC §4 Bookmark): a bookmark made or removed while offline is kept in
 * localStorage and sent when the connection returns ('online' event, and on the next page load).
 * Per study only the newest intent is kept (add then remove cancels out to a remove).
 * The service worker's background sync ('bookmark-sync') can call {@link replayBookmarkQueue}.
 */

import { queueOwnerHeaders } from "~/browser/offline-sync";

export const BOOKMARK_QUEUE_KEY = "metamind:bookmark-queue:v1";

export interface QueuedBookmark {
  studyId: number;
  action: "add" | "remove";
  queuedAt: number;
}

function read(): QueuedBookmark[] {
  try {
    const raw = localStorage.getItem(BOOKMARK_QUEUE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (q): q is QueuedBookmark =>
        typeof q === "object" &&
        q !== null &&
        Number.isInteger((q as QueuedBookmark).studyId) &&
        ((q as QueuedBookmark).action === "add" || (q as QueuedBookmark).action === "remove"),
    );
  } catch (error) {
    console.warn("Ignoring an unreadable bookmark queue", error);
    return [];
  }
}

function write(queue: QueuedBookmark[]): void {
  try {
    if (queue.length) localStorage.setItem(BOOKMARK_QUEUE_KEY, JSON.stringify(queue));
    else localStorage.removeItem(BOOKMARK_QUEUE_KEY);
  } catch (error) {
    console.warn("Could not store the bookmark queue", error);
  }
}

/** The queued changes, oldest first. */
export function queuedBookmarks(): QueuedBookmark[] {
  return read();
}

/** Queues a change, replacing any older queued change for the same study. */
export function enqueueBookmark(studyId: number, action: "add" | "remove", now = Date.now()): void {
  write([...read().filter((q) => q.studyId !== studyId), { studyId, action, queuedAt: now }]);
}

/** One call to the bookmarks API. */
export function sendBookmark(
  studyId: number,
  action: "add" | "remove",
  fetcher: typeof fetch = fetch,
): Promise<Response> {
  return fetcher("/api/bookmarks", {
    method: action === "add" ? "POST" : "DELETE",
    credentials: "include",
    headers: { "Content-Type": "application/json", ...queueOwnerHeaders() },
    body: JSON.stringify({ studyId }),
  });
}

/**
 * Sends the queued changes in order. A change leaves the queue once the server has answered it
 * (success, or a final refusal such as 404 for a study or bookmark that no longer exists); a
 * network failure or 5xx keeps it and the rest for the next try; 401 (signed out) stops and keeps
 * everything. Returns how many were sent and how many remain.
 */
export async function replayBookmarkQueue(fetcher: typeof fetch = fetch): Promise<{ sent: number; remaining: number }> {
  const queue = read();
  let sent = 0;
  for (const item of queue) {
    let res: Response;
    try {
      res = await sendBookmark(item.studyId, item.action, fetcher);
    } catch {
      break;
    }
    if (res.status === 401 || res.status >= 500) break;
    sent++;
  }
  // Changes queued meanwhile (same study replaced, or new) stay.
  const done = new Set(queue.slice(0, sent).map((q) => `${q.studyId}:${q.action}:${q.queuedAt}`));
  const rest = read().filter((q) => !done.has(`${q.studyId}:${q.action}:${q.queuedAt}`));
  write(rest);
  return { sent, remaining: rest.length };
}
