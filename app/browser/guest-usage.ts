/**
 * Device-local guest trial counters (SPEC §3 Guest usage counters, §6: 5 uses per feature per
 * 24 hours). Stored in localStorage; the window resets 24 hours after `lastReset`. The server
 * enforces the trial (GET /api/guest-usage is the authority); `syncGuestUsage` copies its counters
 * here so the UI shows what the server will allow.
 */
export const GUEST_TRIAL_LIMIT = 5;
export const GUEST_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY = "metamind:guest-usage:v1";
/** Fired on window whenever AI usage changes (guest counters or a signed-in user's metered use). */
export const USAGE_CHANGED_EVENT = "metamind:usage-changed";

export const GUEST_FEATURES = [
  "aiSummaries",
  "specializedAnalysis",
  "metaAnalysis",
  "workoutGeneration",
  "fullTextAnalysis",
  "simpleSearch",
] as const;
export type GuestFeature = (typeof GUEST_FEATURES)[number];
export type GuestUsage = Record<GuestFeature, number> & { lastReset: number };

function fresh(now: number): GuestUsage {
  return {
    aiSummaries: 0,
    specializedAnalysis: 0,
    metaAnalysis: 0,
    workoutGeneration: 0,
    fullTextAnalysis: 0,
    simpleSearch: 0,
    lastReset: now,
  };
}

/** The counters for the current 24-hour window (a new window when the old one has ended). */
export function readGuestUsage(now: number = Date.now()): GuestUsage {
  try {
    const raw = localStorage.getItem(KEY);
    const parsed = raw ? (JSON.parse(raw) as Partial<GuestUsage>) : null;
    if (!parsed || typeof parsed.lastReset !== "number" || now - parsed.lastReset >= GUEST_WINDOW_MS) return fresh(now);
    const usage = fresh(parsed.lastReset);
    for (const f of GUEST_FEATURES) usage[f] = Math.max(0, Number(parsed[f]) || 0);
    return usage;
  } catch {
    return fresh(now);
  }
}

/** Counts one use of a feature and notifies listeners (USAGE_CHANGED_EVENT). */
export function countGuestUse(feature: GuestFeature, now: number = Date.now()): GuestUsage {
  const usage = readGuestUsage(now);
  usage[feature] += 1;
  try {
    localStorage.setItem(KEY, JSON.stringify(usage));
  } catch (error) {
    console.warn("Could not store guest usage", error);
  }
  window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
  return usage;
}

/** GET /api/guest-usage body (see app/routes/api.guest-usage.ts). */
interface ServerGuestUsage {
  usage: Partial<Record<GuestFeature, number>>;
  limit: number;
  resetsAt: string | null;
}

/**
 * Replaces the local counters with the server's (GET /api/guest-usage) and notifies listeners.
 * The server keeps one 24-hour window per feature; locally one window is kept, starting 24 hours
 * before the earliest server reset (now when nothing is used), so local counters never outlive
 * the server's. Returns the stored counters, or null when the visitor is signed in (400), the
 * call fails or the body is malformed (local counters are left as they were).
 */
export async function syncGuestUsage(
  fetchImpl: typeof fetch = fetch,
  now: number = Date.now(),
): Promise<GuestUsage | null> {
  let body: ServerGuestUsage;
  try {
    const response = await fetchImpl("/api/guest-usage", { credentials: "include", cache: "no-store" });
    if (!response.ok) return null;
    body = (await response.json()) as ServerGuestUsage;
  } catch (error) {
    console.warn("Could not sync guest usage", error);
    return null;
  }
  if (!body || typeof body.usage !== "object" || body.usage === null) return null;
  const resetsAt = body.resetsAt ? Date.parse(body.resetsAt) : NaN;
  const usage = fresh(Number.isFinite(resetsAt) ? Math.min(now, resetsAt - GUEST_WINDOW_MS) : now);
  for (const f of GUEST_FEATURES) usage[f] = Math.max(0, Math.min(GUEST_TRIAL_LIMIT, Number(body.usage[f]) || 0));
  try {
    localStorage.setItem(KEY, JSON.stringify(usage));
  } catch (error) {
    console.warn("Could not store guest usage", error);
  }
  window.dispatchEvent(new CustomEvent(USAGE_CHANGED_EVENT));
  return usage;
}
