import { useEffect, useSyncExternalStore } from "react";
import {
  Toast,
  ToastClose,
  ToastDescription,
  ToastProvider,
  ToastTitle,
  ToastViewport,
} from "~/components/ui/toast";
import {
  dismissToast,
  getCurrentToast,
  showPendingToast,
  subscribeToToasts,
  TOAST_DURATION_MS,
} from "~/lib/toast";

/** Renders the toast from `~/lib/toast`; mount once in the root layout. */
export function Toaster() {
  const current = useSyncExternalStore(subscribeToToasts, getCurrentToast, () => null);

  useEffect(() => {
    showPendingToast();
  }, []);

  return (
    <ToastProvider duration={TOAST_DURATION_MS}>
      {current && (
        <Toast
          key={current.id}
          open={current.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(current.id);
          }}
          duration={current.duration ?? TOAST_DURATION_MS}
          variant={current.variant}
        >
          <div className="grid gap-1">
            <ToastTitle>{current.title}</ToastTitle>
            {current.description && <ToastDescription>{current.description}</ToastDescription>}
          </div>
          <ToastClose />
        </Toast>
      )}
      <ToastViewport />
    </ToastProvider>
  );
}
