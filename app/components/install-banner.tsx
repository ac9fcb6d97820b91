import { Download, X } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { promptInstall, snoozeInstallBanner } from "~/browser/install-banner";
import { dropInstallPrompt, installPrompt } from "~/browser/pwa-client";

function localStore(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * The install-app banner (SPEC §2 dialogs, §4 Install banner): shown when the browser offers an
 * install (`beforeinstallprompt`, kept by app/browser/pwa-client.ts). 'Install' opens the browser's
 * prompt; 'Later' hides the banner for 24 hours. Loaded lazily by {@link InstallBannerHost}.
 */
export default function InstallBanner() {
  const [busy, setBusy] = useState(false);

  async function onInstall() {
    const event = installPrompt();
    if (!event) return;
    setBusy(true);
    try {
      await promptInstall(event, localStore());
    } catch (error) {
      console.warn("The install prompt could not be shown", error);
    } finally {
      dropInstallPrompt();
    }
  }

  function onLater() {
    snoozeInstallBanner(localStore());
    dropInstallPrompt();
  }

  return (
    <section
      role="region"
      aria-label="Install MetaMind"
      className="fixed inset-x-3 bottom-3 z-40 mx-auto flex max-w-xl flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-lg sm:flex-nowrap"
    >
      <img src="/icons/icon-192.png" alt="" width={40} height={40} className="size-10 shrink-0 rounded-md" />
      <div className="min-w-0 flex-1">
        <p className="font-semibold text-slate-900">Install MetaMind</p>
        <p className="text-sm text-slate-600">
          Open it from your home screen; bookmarks and settings you change offline sync when you reconnect.
        </p>
      </div>
      <div className="flex shrink-0 gap-2">
        <Button variant="outline" size="sm" onClick={onLater} disabled={busy}>
          <X aria-hidden="true" />
          Later
        </Button>
        <Button size="sm" onClick={() => void onInstall()} disabled={busy}>
          <Download aria-hidden="true" />
          Install
        </Button>
      </div>
    </section>
  );
}
