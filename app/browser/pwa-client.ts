import {
  isInstallBannerSnoozed,
  clearInstallBannerSnooze,
  type BeforeInstallPromptEvent,
} from "~/browser/install-banner";
import { REPLAY_MESSAGE, REPLAYED_EVENT, type ReplayedMessage } from "~/browser/offline-sync";
import { whenPageSettled } from "~/browser/when-settled";

/**
 * The page side of the installable app, started once from entry.client.tsx. Kept tiny: it adds
 * no library to the page bundles (the banner's UI is imported only when the browser offers an
 * install).
 *
 * - Registers /sw.js (same origin, so the CSP's `worker-src 'self'` allows it) once the page has
 *   loaded and hydrated ({@link whenPageSettled}): its precache download (every asset of the build)
 *   would otherwise compete with hydration for the CPU.
 * - On load and on the 'online' event asks the service worker to replay its queues (the fallback
 *   where the Background Sync API is missing), and re-fires the worker's "replayed" messages on window as
 *   {@link REPLAYED_EVENT} so pages refresh what a replay changed.
 * - Keeps the `beforeinstallprompt` event for the install banner ({@link useInstallPrompt}).
 */

let deferredPrompt: BeforeInstallPromptEvent | null = null;
const listeners = new Set<() => void>();

function setPrompt(next: BeforeInstallPromptEvent | null): void {
  deferredPrompt = next;
  for (const listener of listeners) listener();
}

/** The install event waiting for the banner, or null (none offered, snoozed, used or installed). */
export function installPrompt(): BeforeInstallPromptEvent | null {
  return deferredPrompt;
}

/** Subscribes to changes of {@link installPrompt}; returns the unsubscribe. */
export function subscribeInstallPrompt(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Hides the banner for this page (after 'Install' or 'Later'). */
export function dropInstallPrompt(): void {
  setPrompt(null);
}

function localStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Asks the active service worker to replay every offline queue now (no-op offline or without one). */
export function requestQueueReplay(): void {
  if (!navigator.onLine || !("serviceWorker" in navigator)) return;
  void navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage(REPLAY_MESSAGE));
}

let started = false;

/** Starts the service worker registration and the install/online listeners (browser only, once). */
export function startPwa(): void {
  if (started || typeof window === "undefined") return;
  started = true;

  window.addEventListener("beforeinstallprompt", (event) => {
    // Keep the browser's own mini-infobar away: the banner offers the install instead.
    event.preventDefault();
    if (!isInstallBannerSnoozed(localStore())) setPrompt(event as BeforeInstallPromptEvent);
  });
  window.addEventListener("appinstalled", () => {
    clearInstallBannerSnooze(localStore());
    setPrompt(null);
  });

  // The Vite dev server has no /sw.js (vite-plugin-pwa builds it with the client bundle).
  if (import.meta.env.DEV || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as Partial<ReplayedMessage> | null;
    if (data?.type === "metamind:replayed") window.dispatchEvent(new CustomEvent(REPLAYED_EVENT, { detail: data }));
  });
  window.addEventListener("online", requestQueueReplay);

  const register = () => {
    navigator.serviceWorker
      .register("/sw.js", { scope: "/" })
      .then(requestQueueReplay)
      .catch((error: unknown) => {
        console.warn("Service worker registration failed", error);
      });
  };
  whenPageSettled(register);
}
