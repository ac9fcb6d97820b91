import { useEffect } from "react";
import { checkSession, forceLogout, LOGGED_OUT_MESSAGE, RELOGIN_DELAY_MS } from "~/browser/session-check";
import { toast } from "~/browser/toast";

/**
 * Runs the SPEC §4 session checks for a signed-in page on mount, on user change and on window
 * focus: a session that ended shows 'You are logged out. Logging in again...' and goes to
 * /api/login after 500 ms; a session of another user forces a logout. Renders nothing.
 */
export function SessionGuard({ userId }: { userId: string | null }) {
  useEffect(() => {
    if (!userId) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    const run = async () => {
      if (busy) return;
      busy = true;
      try {
        const result = await checkSession(userId);
        if (result === "logged-out") {
          toast({ title: "Session ended", description: LOGGED_OUT_MESSAGE, variant: "destructive" });
          timer = setTimeout(() => window.location.assign("/api/login"), RELOGIN_DELAY_MS);
        } else if (result === "mismatch") {
          await forceLogout();
        }
      } catch (error) {
        console.warn("session check failed", error);
      } finally {
        busy = false;
      }
    };
    void run();
    const onFocus = () => void run();
    window.addEventListener("focus", onFocus);
    return () => {
      window.removeEventListener("focus", onFocus);
      if (timer) clearTimeout(timer);
    };
  }, [userId]);
  return null;
}
