import { beforeEach, describe, expect, it, vi } from "vitest";
import { aiErrorFromResponse, aiErrorFromThrown, openAiGate } from "./ai-errors";
import { GUEST_WINDOW_MS, readGuestUsage, syncGuestUsage } from "./guest-usage";

describe("aiErrorFromResponse", () => {
  it("classifies the server's 403 shapes", async () => {
    const limit = await aiErrorFromResponse(
      Response.json(
        {
          error: "LIMIT_REACHED",
          feature: "ai_summaries",
          message: "You've used all 20 free AI analyses this month",
          limit: 20,
          used: 20,
        },
        { status: 403 },
      ),
    );
    expect(limit).toEqual({
      kind: "limit",
      feature: "ai_summaries",
      message: "You've used all 20 free AI analyses this month",
      status: 403,
    });
    const trial = await aiErrorFromResponse(
      Response.json(
        {
          error: "LIMIT_REACHED",
          feature: "ai_summaries",
          guestFeature: "aiSummaries",
          trial: true,
          limit: 5,
          used: 5,
          message: "Trial Limit Reached",
        },
        { status: 403 },
      ),
    );
    expect(trial).toMatchObject({ kind: "trial", guestFeature: "aiSummaries", message: "Trial Limit Reached" });
    const pro = await aiErrorFromResponse(
      Response.json(
        {
          error: "PRO_REQUIRED",
          feature: "full_text_analysis",
          message: "Full-text analysis requires Professional subscription",
        },
        { status: 403 },
      ),
    );
    expect(pro).toMatchObject({ kind: "pro", feature: "full_text_analysis" });
  });

  it("anything else is 'other', including non-JSON bodies", async () => {
    expect(await aiErrorFromResponse(new Response("boom", { status: 500 }))).toEqual({
      kind: "other",
      feature: null,
      message: "boom",
      status: 500,
    });
    expect((await aiErrorFromResponse(Response.json({ error: "NO_ABSTRACT" }, { status: 400 }))).kind).toBe("other");
  });
});

describe("aiErrorFromThrown and openAiGate", () => {
  it("parses streamSummary's 'status: body' errors and opens the right dialog", () => {
    const upgrade = vi.fn();
    const trial = vi.fn();
    const limit = aiErrorFromThrown(new Error('403: {"error":"LIMIT_REACHED","feature":"ai_summaries","message":"m"}'));
    expect(openAiGate(limit, { upgrade, trial })).toBe(true);
    expect(upgrade).toHaveBeenCalledWith("ai_summaries", "m");
    const guest = aiErrorFromThrown(
      new Error('403: {"error":"LIMIT_REACHED","feature":"ai_summaries","guestFeature":"aiSummaries","trial":true}'),
    );
    expect(openAiGate(guest, { upgrade, trial })).toBe(true);
    expect(trial).toHaveBeenCalledWith("aiSummaries");
    expect(openAiGate(aiErrorFromThrown(new TypeError("Failed to fetch")), { upgrade, trial })).toBe(false);
    expect(openAiGate(aiErrorFromThrown(new Error("500: oops")), { upgrade, trial })).toBe(false);
  });
});

describe("syncGuestUsage", () => {
  beforeEach(() => {
    const store = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    });
    vi.stubGlobal("window", new EventTarget());
  });

  it("copies the server's counters and window", async () => {
    const now = 1_700_000_000_000;
    const resetsAt = new Date(now + 3_600_000).toISOString();
    const fetchImpl = vi.fn(async () =>
      Response.json({ usage: { aiSummaries: 5, metaAnalysis: 2 }, limit: 5, resetsAt }),
    );
    const usage = await syncGuestUsage(fetchImpl as unknown as typeof fetch, now);
    expect(fetchImpl).toHaveBeenCalledWith("/api/guest-usage", expect.objectContaining({ credentials: "include" }));
    expect(usage).toMatchObject({
      aiSummaries: 5,
      metaAnalysis: 2,
      simpleSearch: 0,
      lastReset: now + 3_600_000 - GUEST_WINDOW_MS,
    });
    expect(readGuestUsage(now)).toMatchObject({ aiSummaries: 5, metaAnalysis: 2 });
    expect(readGuestUsage(now + 3_600_000).aiSummaries).toBe(0);
  });

  it("leaves local counters alone for signed-in users (400)", async () => {
    const fetchImpl = vi.fn(async () => Response.json({ error: "SIGNED_IN" }, { status: 400 }));
    expect(await syncGuestUsage(fetchImpl as unknown as typeof fetch)).toBeNull();
  });
});
