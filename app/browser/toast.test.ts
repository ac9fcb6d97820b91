import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../../tests/mocks/memory-storage";
import { dismissToast, getCurrentToast, showPendingToast, toast, toastAfterNavigation } from "~/browser/toast";

/** A Map-backed stand-in for the browser's sessionStorage. */

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
