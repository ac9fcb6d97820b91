import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dismissToast, getCurrentToast, showPendingToast, toast, toastAfterNavigation } from "~/browser/toast";

/** A Map-backed stand-in for the browser's sessionStorage. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

describe("toasts queued for the next page", () => {
  beforeEach(() => {
    vi.stubGlobal("sessionStorage", memoryStorage());
    dismissToast();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("shows the queued toast on the next page, once", () => {
    toastAfterNavigation({ title: "Welcome back!" });
    showPendingToast();
    expect(getCurrentToast()).toMatchObject({ title: "Welcome back!", open: true });
    dismissToast();
    showPendingToast();
    expect(getCurrentToast()?.open).toBe(false);
  });

  it("keeps the page's own toast when the page showed one first, and forgets the queued one", () => {
    toastAfterNavigation({ title: "Welcome back!" });
    toast({ title: "Access Denied", variant: "destructive" });
    showPendingToast();
    expect(getCurrentToast()).toMatchObject({ title: "Access Denied", open: true });
    dismissToast();
    showPendingToast();
    expect(getCurrentToast()).toMatchObject({ title: "Access Denied", open: false });
  });
});
