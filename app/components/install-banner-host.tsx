import { lazy, Suspense, useEffect, useSyncExternalStore } from "react";
import { setQueueOwner } from "~/browser/offline-sync";
import { installPrompt, subscribeInstallPrompt } from "~/browser/pwa-client";

const InstallBanner = lazy(() => import("~/components/install-banner"));

/**
 * The page's part of the installable app in the layout: keeps the offline queues' owner (the
 * signed-in user, app/browser/offline-sync.ts) current, and renders the install banner while the
 * browser's install offer is waiting (app/browser/pwa-client.ts). The banner's code is a separate
 * chunk, fetched only then: pages pay nothing for it otherwise.
 */
export function InstallBannerHost({ userId }: { userId: string | null }) {
  useEffect(() => setQueueOwner(userId), [userId]);
  const offered = useSyncExternalStore(
    subscribeInstallPrompt,
    () => installPrompt() !== null,
    () => false,
  );
  if (!offered) return null;
  return (
    <Suspense fallback={null}>
      <InstallBanner />
    </Suspense>
  );
}
