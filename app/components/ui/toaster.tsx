import { Suspense, useEffect, useState, useSyncExternalStore } from "react";
import { lazyComponent } from "~/components/on-demand";
import { getCurrentToast, showPendingToast, subscribeToToasts } from "~/lib/toast";

const ToastView = lazyComponent(() => import("~/components/ui/toast-view").then((m) => m.ToastView));

/**
 * Renders the toast from `~/lib/toast`; mount once in the root layout. The Radix toast code is not
 * part of any page's initial JavaScript: it is fetched once the page is idle after hydration (so a
 * toast shows at once, also after the connection drops) and mounted with the first toast.
 */
export function Toaster() {
  const current = useSyncExternalStore(subscribeToToasts, getCurrentToast, () => null);
  const [wanted, setWanted] = useState(false);
  if (current && !wanted) setWanted(true);

  useEffect(() => {
    showPendingToast();
    const idle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 1));
    idle(() => ToastView.preload());
  }, []);

  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <ToastView current={current} />
    </Suspense>
  );
}
