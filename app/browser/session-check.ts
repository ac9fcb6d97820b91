/**
 * The client's session checks (SPEC §4, §7, §8): after sign-in the user from GET /api/user is
 * compared with the server's view of the session (GET /api/debug/session); a mismatch forces a
 * logout that clears local data and cookies. A 401 for a user the page believed signed in shows
 * 'You are logged out. Logging in again...' and goes to /api/login after 500 ms.
 */

/** The answer of GET /api/debug/session. */
export interface DebugSession {
  authenticated: boolean;
  userId: string | null;
  expiresAt?: string;
}

export const LOGGED_OUT_MESSAGE = "You are logged out. Logging in again...";
/** SPEC §9 logout redirect delay. */
export const RELOGIN_DELAY_MS = 500;

/** True when the server's session does not belong to the user the page shows (pure). */
export function sessionMismatch(userId: string, session: DebugSession): boolean {
  return !session.authenticated || session.userId !== userId;
}

/** Clears every cache the browser keeps for the app: local and session storage and readable cookies. */
export function clearLocalData(): void {
  try {
    localStorage.clear();
    sessionStorage.clear();
  } catch (error) {
    console.warn("could not clear browser storage", error);
  }
  for (const cookie of document.cookie.split(";")) {
    const name = cookie.split("=")[0]?.trim();
    if (name) document.cookie = `${name}=; Max-Age=0; path=/`;
  }
}

/** SPEC §4 Logout: the call (failure ignored), then clearing, then /. */
export async function forceLogout(): Promise<void> {
  try {
    await fetch("/api/logout", { method: "POST", credentials: "include" });
  } catch (error) {
    console.warn("logout call failed", error);
  }
  clearLocalData();
  window.location.assign("/");
}

/**
 * Runs the checks for a signed-in page: GET /api/user (timestamp parameter, no caching) and GET
 * /api/debug/session. Returns what the page should do.
 */
export async function checkSession(
  userId: string,
  fetcher: typeof fetch = fetch,
): Promise<"ok" | "logged-out" | "mismatch"> {
  const me = await fetcher(`/api/user?timestamp=${Date.now()}`, { credentials: "include", cache: "no-store" });
  if (me.status === 401) return "logged-out";
  if (!me.ok) return "ok";
  const user = (await me.json()) as { id?: string };
  const debug = await fetcher(`/api/debug/session?timestamp=${Date.now()}`, {
    credentials: "include",
    cache: "no-store",
  });
  if (!debug.ok) return "ok";
  const session = (await debug.json()) as DebugSession;
  return user.id !== userId || sessionMismatch(userId, session) ? "mismatch" : "ok";
}
