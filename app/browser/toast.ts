/**
 * A tiny toast store (SPEC §2 Notifications): one toast at a time — a new toast replaces the
 * current one — closing after 5000 ms unless a duration is given. `<Toaster />` renders it.
 */

export const TOAST_DURATION_MS = 5000;

export interface ToastOptions {
  title: string;
  description?: string;
  variant?: "default" | "destructive";
  /** Milliseconds before the toast closes itself. */
  duration?: number;
}

export interface ToastState extends ToastOptions {
  id: number;
  open: boolean;
}

let current: ToastState | null = null;
let nextId = 1;
const listeners = new Set<() => void>();

function emit(next: ToastState | null): void {
  current = next;
  for (const listener of listeners) listener();
}

/** Shows a toast, replacing any toast on screen. */
export function toast(options: ToastOptions): { id: number; dismiss: () => void } {
  const id = nextId++;
  emit({ ...options, id, open: true });
  return { id, dismiss: () => dismissToast(id) };
}

/** Closes the toast with this id, or whichever toast is open when no id is given. */
export function dismissToast(id?: number): void {
  if (!current?.open || (id !== undefined && current.id !== id)) return;
  emit({ ...current, open: false });
}

export function subscribeToToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function getCurrentToast(): ToastState | null {
  return current;
}

const PENDING_KEY = "metamind:pending-toast";

/**
 * Queues a toast for the next page load, for messages that go with a full navigation
 * (`window.location.assign`). Falls back to showing it at once if storage is unavailable.
 */
export function toastAfterNavigation(options: ToastOptions): void {
  try {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(options));
  } catch {
    toast(options);
  }
}

/**
 * Shows (and forgets) a toast queued by `toastAfterNavigation`. When the new page has already shown
 * its own toast (its effects run before the layout's), that one is kept and the queued one dropped:
 * only one toast shows at a time, and the page's own message (e.g. 'Access Denied') is the current one.
 */
export function showPendingToast(): void {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(PENDING_KEY);
    sessionStorage.removeItem(PENDING_KEY);
  } catch {
    return;
  }
  if (!raw || current?.open) return;
  try {
    const options = JSON.parse(raw) as Partial<ToastOptions>;
    if (typeof options.title !== "string") return;
    toast({
      title: options.title,
      description: typeof options.description === "string" ? options.description : undefined,
      variant: options.variant === "destructive" ? "destructive" : "default",
      duration: typeof options.duration === "number" ? options.duration : undefined,
    });
  } catch (error) {
    console.warn("Ignoring a malformed queued toast", error);
  }
}
