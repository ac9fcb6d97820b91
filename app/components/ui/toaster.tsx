import { Suspense, useEffect, useSyncExternalStore } from "react";
import { whenPageSettled } from "~/browser/when-settled";
import { lazyComponent } from "~/components/on-demand";
import {
  dismissToast,
  getCurrentToast,
  showPendingToast,
  subscribeToToasts,
  TOAST_DURATION_MS,
  type ToastState,
} from "~/browser/toast";

/**
 * The toast without the Radix code: a live region with the title and description that closes after
 * the toast's duration. Shown while the Radix rendering loads, and instead of it when its chunk
 * cannot be fetched (the connection dropped before it arrived), so no message is lost.
 */
function PlainToast({ current }: { current: ToastState }) {
  useEffect(() => {
    const timer = setTimeout(() => dismissToast(current.id), current.duration ?? TOAST_DURATION_MS);
    return () => clearTimeout(timer);
  }, [current]);
  return (
    current.open && (
      <p
        role="status"
        className="fixed inset-x-4 bottom-4 z-[100] rounded-lg border bg-white p-4 text-sm shadow-lg sm:left-auto sm:w-96"
      >
        <b className="block">{current.title}</b>
        {current.description}
      </p>
    )
  );
}

const ToastView = lazyComponent(() => import("~/components/ui/toast-view").then((m) => m.ToastView), PlainToast);

/**
 * Renders the toast from `~/browser/toast`; mount once in the root layout. The Radix toast code is not
 * part of any page's initial JavaScript: it is fetched once the page has loaded and is idle after hydration and
 * mounted with the first toast (a closed toast stays the current one, so it stays mounted); until
 * it has loaded, or when it cannot be fetched, the toast shows as {@link PlainToast}.
 */
export function Toaster() {
  const current = useSyncExternalStore(subscribeToToasts, getCurrentToast, () => null);

  useEffect(() => {
    showPendingToast();
    whenPageSettled(ToastView.preload);
  }, []);

  return (
    current && (
      <Suspense fallback={<PlainToast current={current} />}>
        <ToastView current={current} />
      </Suspense>
    )
  );
}
