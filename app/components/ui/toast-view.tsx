import { Toast, ToastClose, ToastDescription, ToastProvider, ToastTitle, ToastViewport } from "~/components/ui/toast";
import { dismissToast, TOAST_DURATION_MS, type ToastState } from "~/browser/toast";

/** The Radix rendering of the current toast; loaded by `<Toaster />` once there is one to show. */
export function ToastView({ current }: { current: ToastState | null }) {
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
