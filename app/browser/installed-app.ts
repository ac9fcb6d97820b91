/**
 * Installed-app detection (SPEC §1: in an installed iOS app upgrade opens the App Store, in an
 * installed Android app the Play Store). "Installed" means the page runs in standalone display
 * mode (a home-screen / TWA install); the platform comes from the user agent.
 */
export type InstalledPlatform = "ios" | "android";

/** The installed app's platform, or null in a browser tab (pure; see detectInstalledApp). */
export function installedAppPlatform(standalone: boolean, userAgent: string): InstalledPlatform | null {
  if (!standalone) return null;
  if (/iPhone|iPad|iPod/i.test(userAgent) || (/Macintosh/i.test(userAgent) && /Mobile/i.test(userAgent))) return "ios";
  if (/Android/i.test(userAgent)) return "android";
  return null;
}

/** {@link installedAppPlatform} for the current window. */
export function detectInstalledApp(): InstalledPlatform | null {
  if (typeof window === "undefined") return null;
  const standalone =
    window.matchMedia?.("(display-mode: standalone)").matches === true ||
    (window.navigator as Navigator & { standalone?: boolean }).standalone === true;
  return installedAppPlatform(standalone, window.navigator.userAgent);
}

/** The store a platform upgrades through, and the toast when it cannot be opened. */
export const STORE_LABELS: Record<InstalledPlatform, { name: string; failure: string }> = {
  ios: { name: "App Store", failure: "Could not open App Store" },
  android: { name: "Play Store", failure: "Could not open Play Store" },
};

/** Fired on window when the plan may have changed (checkout success); listeners refetch it. */
export const SUBSCRIPTION_UPDATED_EVENT = "metamind:subscription-updated";
