import { startTransition, useEffect, useState } from "react";
import { readGuestUsage, syncGuestUsage, USAGE_CHANGED_EVENT } from "~/browser/guest-usage";

const SUBSCRIPTION_POLL_MS = 10_000;

/** AI summaries used this month and the plan's limit (null: unlimited). */
export type AiUsage = { used: number; limit: number | null };

/**
 * Keeps the usage-counter card current (SPEC §4). Signed in: `GET /api/user/subscription`, polled every
 * 10 s, on focus and after AI use (USAGE_CHANGED_EVENT), starting from the loader's `initial` figures.
 * Signed out: the guest trial's locally stored count (`guestUsed`), synced once with the server.
 * The figures update as transitions: React re-renders the page for them in slices, so a poll or
 * the start-up sync never makes a long task.
 */
export function useUsage(signedIn: boolean, initial: AiUsage | null) {
  const [usage, setUsage] = useState(initial);
  const [guestUsed, setGuestUsed] = useState(0);
  useEffect(() => {
    if (!signedIn) {
      const read = () => startTransition(() => setGuestUsed(readGuestUsage().aiSummaries));
      read();
      void syncGuestUsage(); // the server's counters are the authority; this fires the event
      window.addEventListener(USAGE_CHANGED_EVENT, read);
      window.addEventListener("focus", read);
      return () => {
        window.removeEventListener(USAGE_CHANGED_EVENT, read);
        window.removeEventListener("focus", read);
      };
    }
    let stopped = false;
    const refresh = async () => {
      try {
        const res = await fetch(`/api/user/subscription?t=${Date.now()}`, {
          credentials: "include",
          cache: "no-store",
        });
        if (!res.ok || stopped) return;
        const body = (await res.json()) as {
          usage: { aiSummaries: number };
          limits: { AI_SUMMARIES_PER_MONTH: number | null };
        };
        startTransition(() => setUsage({ used: body.usage.aiSummaries, limit: body.limits.AI_SUMMARIES_PER_MONTH }));
      } catch (error) {
        console.warn("subscription refresh failed", error);
      }
    };
    const timer = setInterval(refresh, SUBSCRIPTION_POLL_MS);
    window.addEventListener("focus", refresh);
    window.addEventListener(USAGE_CHANGED_EVENT, refresh);
    return () => {
      stopped = true;
      clearInterval(timer);
      window.removeEventListener("focus", refresh);
      window.removeEventListener(USAGE_CHANGED_EVENT, refresh);
    };
  }, [signedIn]);
  return { usage, guestUsed };
}
