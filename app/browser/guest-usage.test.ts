import { beforeEach, describe, expect, it, vi } from "vitest";
import { countGuestUse, GUEST_WINDOW_MS, readGuestUsage } from "./guest-usage";

describe("guest usage counters", () => {
  beforeEach(() => {
    const store = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    });
    vi.stubGlobal("window", new EventTarget());
  });

  it("counts per feature and resets after 24 hours", () => {
    const t0 = 1_700_000_000_000;
    expect(readGuestUsage(t0).aiSummaries).toBe(0);
    countGuestUse("aiSummaries", t0);
    countGuestUse("aiSummaries", t0 + 1000);
    countGuestUse("metaAnalysis", t0 + 2000);
    expect(readGuestUsage(t0 + 3000)).toMatchObject({ aiSummaries: 2, metaAnalysis: 1, lastReset: t0 });
    expect(readGuestUsage(t0 + GUEST_WINDOW_MS)).toMatchObject({ aiSummaries: 0, lastReset: t0 + GUEST_WINDOW_MS });
  });

  it("survives corrupt storage", () => {
    localStorage.setItem("metamind:guest-usage:v1", "{not json");
    expect(readGuestUsage(5).aiSummaries).toBe(0);
  });
});
