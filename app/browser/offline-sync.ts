/**
 * Offline queues of the installable app (SPEC §4 Bookmark: "queued offline … with background sync
 * (bookmark-sync, search-sync, upload-sync, settings-sync)"). Shared by the service worker
 * (app/sw/sw.ts), which keeps the queued requests in IndexedDB through workbox-background-sync
 * and replays them, and by the page, which recognises the service worker's "queued" replies and
 * its "replayed" messages. Pure: no I/O beyond the `fetch` and queue handed in.
 */

/** The four Background Sync queues (also the sync tags, prefixed "workbox-background-sync:" by Workbox). */
export const SYNC_QUEUES = ["bookmark-sync", "search-sync", "upload-sync", "settings-sync"] as const;
export type SyncQueueName = (typeof SYNC_QUEUES)[number];

/** How long a queued request is kept before it is dropped unsent: 7 days, in minutes (Workbox's unit). */
export const QUEUE_RETENTION_MINUTES = 7 * 24 * 60;

/**
 * The queue a request made while offline goes to, or null for requests that are never queued:
 * POST/DELETE /api/bookmarks (bookmark-sync), PATCH /api/user/settings (settings-sync),
 * POST /api/upload-pdfs (upload-sync), and the page's streamed GET /api/search (search-sync;
 * the replay records the search in the user's history, and the open /search page runs it again).
 */
export function queueForRequest(method: string, pathname: string): SyncQueueName | null {
  const m = method.toUpperCase();
  if (pathname === "/api/bookmarks" && (m === "POST" || m === "DELETE")) return "bookmark-sync";
  if (pathname === "/api/user/settings" && m === "PATCH") return "settings-sync";
  if (pathname === "/api/upload-pdfs" && m === "POST") return "upload-sync";
  if (pathname === "/api/search" && m === "GET") return "search-sync";
  return null;
}

/**
 * Header naming the signed-in user who made a queueable request (set by the page clients through
 * {@link queueOwnerHeaders}). The service worker stores it with a queued request, and a replay sends
 * the request only while the browser's session is that user's: a change queued by one user is
 * never sent with another user's cookie (SPEC §4 user switch drops the previous user's data).
 * The server ignores it; it grants nothing.
 */
export const QUEUE_OWNER_HEADER = "X-MetaMind-User";

let queueOwner: string | null = null;

/** Records the page's signed-in user (null for guests); app/root.tsx keeps it current. */
export function setQueueOwner(userId: string | null): void {
  queueOwner = userId;
}

/** The {@link QUEUE_OWNER_HEADER} header for a queueable request, or no header for a guest. */
export function queueOwnerHeaders(): Record<string, string> {
  return queueOwner ? { [QUEUE_OWNER_HEADER]: queueOwner } : {};
}

/** Body of the service worker's reply to a request it queued (`error` is "OFFLINE"). */
export interface OfflineQueuedReply {
  error: "OFFLINE";
  offline: true;
  queued: SyncQueueName;
  message: string;
}

const QUEUED_MESSAGES: Record<SyncQueueName, string> = {
  "bookmark-sync": "You are offline; the bookmark will be saved when you reconnect.",
  "settings-sync": "You are offline; your settings will be saved when you reconnect.",
  "upload-sync": "You are offline; the PDFs will be uploaded when you reconnect.",
  "search-sync": "You are offline; the search will run when you reconnect.",
};

/**
 * The reply the service worker gives for a queued request: 202 Accepted for the changes (bookmark,
 * settings, upload: they will happen), 503 for a search (there are no results to show now).
 */
export function offlineQueuedReply(queue: SyncQueueName): { status: number; body: OfflineQueuedReply } {
  return {
    status: queue === "search-sync" ? 503 : 202,
    body: { error: "OFFLINE", offline: true, queued: queue, message: QUEUED_MESSAGES[queue] },
  };
}

/** Whether a parsed JSON body is the service worker's {@link OfflineQueuedReply}. */
export function isOfflineQueuedReply(body: unknown): body is OfflineQueuedReply {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Partial<OfflineQueuedReply>;
  return b.error === "OFFLINE" && b.offline === true && SYNC_QUEUES.includes(b.queued as SyncQueueName);
}

/** Header the service worker sets on its queued replies, so a page can tell them apart without reading the body. */
export const OFFLINE_QUEUED_HEADER = "X-MetaMind-Offline-Queued";

/** Page → service worker: replay every queue now (the 'online' event fallback where Background Sync is missing). */
export const REPLAY_MESSAGE = "metamind:replay-queues";

/** Service worker → pages: one queued request was delivered. */
export interface ReplayedMessage {
  type: "metamind:replayed";
  queue: SyncQueueName;
  method: string;
  /** Path and query of the replayed request. */
  url: string;
  status: number;
}

/** Fired on window (CustomEvent, detail {@link ReplayedMessage}) when the service worker reports a replay. */
export const REPLAYED_EVENT = "metamind:replayed";

/** One stored request, as workbox-background-sync's Queue hands it out. */
export interface QueueEntry {
  request: Request;
  timestamp?: number;
  metadata?: object;
}

/** The part of workbox-background-sync's Queue the replay uses (also implemented by tests). */
export interface ReplayableQueue {
  readonly name: string;
  shiftRequest(): Promise<QueueEntry | undefined>;
  unshiftRequest(entry: QueueEntry): Promise<void>;
}

/**
 * Whether a replay answer means "try again later": no answer at all is handled by the caller;
 * 401 (signed out: the request waits for the user to sign in again), 408, 429 and 5xx. Any other
 * answer, success or a final refusal (400, 403, 404, 409, 413…), is delivered and leaves the queue.
 */
export function shouldRetry(status: number): boolean {
  return status === 401 || status === 408 || status === 429 || status >= 500;
}

/** Error thrown by {@link replayQueue} when requests remain; Workbox then asks the browser to sync again later. */
export class ReplayIncompleteError extends Error {
  constructor(
    readonly queue: string,
    readonly remaining: "network" | number,
  ) {
    super(
      `${queue}: replay stopped (${remaining === "network" ? "network unavailable" : `HTTP ${remaining}`}); the rest stays queued`,
    );
    this.name = "ReplayIncompleteError";
  }
}

/** The user who queued an entry (its `metadata.owner`), or null for a guest's request. */
export function ownerOf(entry: QueueEntry): string | null {
  const owner = (entry.metadata as { owner?: unknown } | undefined)?.owner;
  return typeof owner === "string" && owner ? owner : null;
}

/**
 * Sends a queue's requests oldest first (Workbox's `onSync`). Each delivered request leaves the
 * queue and is reported through `onReplayed`; the first network failure or retryable status
 * ({@link shouldRetry}) puts that request back at the head and stops, throwing
 * {@link ReplayIncompleteError} so the browser's Background Sync retries later (Workbox's contract).
 *
 * A request with an owner ({@link ownerOf}) is sent only while `sessionUser()` (the browser
 * session's user id, null when signed out; asked once per replay) is that owner: signed out, it
 * stays queued (as for a 401); another user signed in, it is dropped unsent.
 * @returns the number of requests delivered.
 */
export async function replayQueue(
  queue: ReplayableQueue,
  fetcher: (request: Request) => Promise<Response>,
  onReplayed: (message: ReplayedMessage) => void,
  sessionUser: () => Promise<string | null>,
): Promise<number> {
  let sent = 0;
  let session: string | null | undefined;
  for (let entry = await queue.shiftRequest(); entry; entry = await queue.shiftRequest()) {
    const owner = ownerOf(entry);
    if (owner) {
      if (session === undefined) {
        try {
          session = await sessionUser();
        } catch {
          await queue.unshiftRequest(entry);
          throw new ReplayIncompleteError(queue.name, "network");
        }
      }
      if (session === null) {
        await queue.unshiftRequest(entry);
        throw new ReplayIncompleteError(queue.name, 401);
      }
      if (session !== owner) continue;
    }
    let response: Response;
    try {
      response = await fetcher(entry.request.clone() as Request);
    } catch {
      await queue.unshiftRequest(entry);
      throw new ReplayIncompleteError(queue.name, "network");
    }
    if (shouldRetry(response.status)) {
      await queue.unshiftRequest(entry);
      throw new ReplayIncompleteError(queue.name, response.status);
    }
    // Read to the end: a streamed search records the history entry when its stream completes.
    await response.arrayBuffer().catch(() => undefined);
    sent++;
    const url = new URL(entry.request.url);
    onReplayed({
      type: "metamind:replayed",
      queue: queue.name as SyncQueueName,
      method: entry.request.method,
      url: url.pathname + url.search,
      status: response.status,
    });
  }
  return sent;
}

/** Thrown by page clients when the service worker queued their request instead of sending it. */
export class OfflineQueuedError extends Error {
  constructor(readonly reply: OfflineQueuedReply) {
    super(reply.message);
    this.name = "OfflineQueuedError";
  }
}

/**
 * Reads a response the service worker may have answered for a queued request: the parsed
 * {@link OfflineQueuedReply} when it carries {@link OFFLINE_QUEUED_HEADER}, else null (the body is
 * then left unread).
 */
export async function queuedReplyOf(response: Response): Promise<OfflineQueuedReply | null> {
  if (!response.headers.get(OFFLINE_QUEUED_HEADER)) return null;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  return isOfflineQueuedReply(body) ? body : null;
}

/** Whether a service worker controls this page (its requests can be queued in IndexedDB). */
export function serviceWorkerControlsPage(): boolean {
  return typeof navigator !== "undefined" && Boolean(navigator.serviceWorker?.controller);
}
