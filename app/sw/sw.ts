/**
 * MetaMind's service worker (SPEC §2/§4/§9 installable app), built from Workbox by vite-plugin-pwa
 * (injectManifest: this file is bundled to build/client/sw.js and Workbox's precache manifest is
 * injected at `self.__WB_MANIFEST`). What it does:
 *
 * - Precaches the app shell: every hashed JS/CSS bundle of the client build, the icons, the web app
 *   manifest and /offline.html; outdated precaches are removed on activation.
 * - HTML navigations go to the network (with navigation preload); when the network fails the page
 *   gets /offline.html. Pages are never cached — they carry the signed-in user — except the public
 *   share pages (/answer, /workout, /meal-plan: the same for everyone), network-first, 200s only.
 * - /api is never cached: answers are per user. Four kinds of change made while offline are queued
 *   in IndexedDB by workbox-background-sync and answered with {@link offlineQueuedReply}:
 *   bookmark-sync, settings-sync, upload-sync and search-sync (see app/browser/offline-sync.ts). They
 *   are replayed on the browser's `sync` event where Background Sync exists, by Workbox at start-up
 *   where it does not, and whenever a page posts {@link REPLAY_MESSAGE} (on load and on its
 *   'online' event).
 */
import { Queue } from "workbox-background-sync";
import { CacheableResponsePlugin } from "workbox-cacheable-response";
import { clientsClaim } from "workbox-core";
import { ExpirationPlugin } from "workbox-expiration";
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { NetworkFirst, NetworkOnly } from "workbox-strategies";
import {
  OFFLINE_QUEUED_HEADER,
  offlineQueuedReply,
  QUEUE_OWNER_HEADER,
  QUEUE_RETENTION_MINUTES,
  queueForRequest,
  REPLAY_MESSAGE,
  ReplayIncompleteError,
  replayQueue,
  SYNC_QUEUES,
  type ReplayedMessage,
  type SyncQueueName,
} from "~/browser/offline-sync";
import { SEARCH_PAGE_HEADER } from "~/lib/search-params";

/** The parts of ServiceWorkerGlobalScope used here (the project compiles against the DOM library). */
interface ServiceWorkerScope {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
  registration: ServiceWorkerRegistration;
  clients: {
    matchAll(options?: {
      includeUncontrolled?: boolean;
      type?: string;
    }): Promise<Array<{ postMessage(message: unknown): void }>>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: "message", listener: (event: ExtendableEvent & { data: unknown }) => void): void;
  addEventListener(type: "activate", listener: (event: ExtendableEvent) => void): void;
}

declare const self: ServiceWorkerScope;

/** The page served for a navigation that cannot reach the server. */
const OFFLINE_URL = "/offline.html";
/** Path pattern of the public share pages (mirrors PUBLIC_SHARE_PATH of app/.server/sharing/public.ts). */
const SHARE_PAGE = /^\/(?:answer|workout|meal-plan)\/[^/]+\/?$/;

void self.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST);

self.addEventListener("activate", (event) => {
  event.waitUntil(self.registration.navigationPreload?.enable() ?? Promise.resolve());
});

/** Tells every open page that a queued request was delivered (they refresh what it changed). */
async function broadcast(message: ReplayedMessage): Promise<void> {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true, type: "window" }))
    client.postMessage(message);
}

/** The user id of this browser's session (GET /api/debug/session), null when signed out; throws when unreachable. */
async function sessionUser(): Promise<string | null> {
  const res = await fetch("/api/debug/session", { credentials: "include", cache: "no-store" });
  if (!res.ok) throw new Error(`session check: HTTP ${res.status}`);
  const body = (await res.json()) as { authenticated?: boolean; userId?: string | null };
  return body.authenticated && body.userId ? body.userId : null;
}

const inFlight = new Map<string, Promise<number>>();

/** Replays one queue; a replay already running for it (sync event and page message at once) is joined, not doubled. */
function replay(queue: Queue): Promise<number> {
  let running = inFlight.get(queue.name);
  if (!running) {
    running = replayQueue(
      queue,
      (request) => fetch(request),
      (message) => void broadcast(message),
      sessionUser,
    ).finally(() => inFlight.delete(queue.name));
    inFlight.set(queue.name, running);
  }
  return running;
}

const queues = new Map<SyncQueueName, Queue>(
  SYNC_QUEUES.map((name) => [
    name,
    new Queue(name, {
      maxRetentionTime: QUEUE_RETENTION_MINUTES,
      onSync: async ({ queue }) => {
        await replay(queue);
      },
    }),
  ]),
);

/**
 * Network first for a queueable API call; when the network is unreachable the request is stored in
 * its queue and answered with the "queued" reply. Aborted requests (a newer search replaced the
 * page's call) and searches not made by the search page are not queued.
 */
async function sendOrQueue(request: Request, name: SyncQueueName): Promise<Response> {
  const copy = request.clone() as Request;
  try {
    return await fetch(request);
  } catch (error) {
    if (request.signal?.aborted || (error instanceof DOMException && error.name === "AbortError")) throw error;
    if (name === "search-sync" && !copy.headers.has(SEARCH_PAGE_HEADER)) throw error;
    // Who queued it: a replay sends it only in that user's session (see replayQueue).
    const owner = copy.headers.get(QUEUE_OWNER_HEADER);
    await queues.get(name)!.pushRequest({ request: copy, metadata: owner ? { owner } : undefined });
    const { status, body } = offlineQueuedReply(name);
    return Response.json(body, { status, headers: { [OFFLINE_QUEUED_HEADER]: name, "Cache-Control": "no-store" } });
  }
}

for (const method of ["GET", "POST", "PATCH", "DELETE"] as const) {
  registerRoute(
    ({ url, request, sameOrigin }) => sameOrigin && queueForRequest(request.method, url.pathname) !== null,
    ({ request, url }) => sendOrQueue(request, queueForRequest(request.method, url.pathname)!),
    method,
  );
}

const shareStrategy = new NetworkFirst({
  cacheName: "metamind-shared-pages",
  networkTimeoutSeconds: 10,
  plugins: [
    new CacheableResponsePlugin({ statuses: [200] }),
    new ExpirationPlugin({ maxEntries: 30, maxAgeSeconds: 7 * 24 * 3600 }),
  ],
});
const pageStrategy = new NetworkOnly();

registerRoute(
  new NavigationRoute(async (options) => {
    const strategy = SHARE_PAGE.test(options.url.pathname) ? shareStrategy : pageStrategy;
    try {
      return await strategy.handle(options);
    } catch {
      return (await matchPrecache(OFFLINE_URL)) ?? Response.error();
    }
  }),
);

/** Waits between replay attempts after a page's request: the network may lag just after an 'online' event. */
const REPLAY_RETRY_DELAYS_MS = [2_000, 5_000, 15_000];

/**
 * Replays every queue; while some queue stops on a network failure, tries again after each of
 * {@link REPLAY_RETRY_DELAYS_MS}. Other stops (401, 5xx) wait for the next sync, message or start.
 */
async function replayAll(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const results = await Promise.allSettled([...queues.values()].map(replay));
    const networkDown = results.some(
      (r) => r.status === "rejected" && r.reason instanceof ReplayIncompleteError && r.reason.remaining === "network",
    );
    if (!networkDown || attempt >= REPLAY_RETRY_DELAYS_MS.length) return;
    await new Promise((resolve) => setTimeout(resolve, REPLAY_RETRY_DELAYS_MS[attempt]));
  }
}

self.addEventListener("message", (event) => {
  if (event.data === REPLAY_MESSAGE) event.waitUntil(replayAll());
});
