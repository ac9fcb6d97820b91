import { lazy, Suspense, useSyncExternalStore } from "react";
import { installPrompt, subscribeInstallPrompt } from "~/lib/pwa-client";

const InstallBanner = lazy(() => import("~/components/install-banner"));

/**
 * Renders the install banner while the browser's install offer is waiting (app/lib/pwa-client.ts).
 * The banner's code is a separate chunk, fetched only then: pages pay nothing for it otherwise.
 */
export function InstallBannerHost() {
  const offered = useSyncExternalStore(subscribeInstallPrompt, () => installPrompt() !== null, () => false);
  if (!offered) return null;
  return (
    <Suspense fallback={null}>
      <InstallBanner />
    </Suspense>
  );
}
