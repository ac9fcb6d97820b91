import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from "react";
import { getCurrentToast, showPendingToast, subscribeToToasts } from "~/lib/toast";

const ToastView = lazy(() => import("~/components/ui/toast-view").then((m) => ({ default: m.ToastView })));

/**
 * Renders the toast from `~/lib/toast`; mount once in the root layout. The Radix toast code is
 * loaded with the first toast (it is not part of any page's initial JavaScript) and stays mounted.
 */
export function Toaster() {
  const current = useSyncExternalStore(subscribeToToasts, getCurrentToast, () => null);
  const [wanted, setWanted] = useState(false);
  if (current && !wanted) setWanted(true);

  useEffect(() => {
    showPendingToast();
  }, []);

  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <ToastView current={current} />
    </Suspense>
  );
}
