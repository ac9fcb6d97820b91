/**
 * Install banner state (SPEC §4 Install banner, §9 "Install banner snooze 24 hours"): the banner
 * appears on the browser's `beforeinstallprompt` event; 'Install' opens the browser's prompt and
 * clears the banner; 'Later' stores a timestamp in localStorage and hides the banner for 24 hours.
 * Pure apart from the Storage handed in.
 */

/** localStorage key of the 'Later' timestamp (milliseconds since the epoch, as a decimal string). */
export const INSTALL_BANNER_SNOOZE_KEY = "metamind:install-banner-snoozed-at";

/** How long 'Later' hides the banner: 24 hours in milliseconds. */
export const INSTALL_BANNER_SNOOZE_MS = 24 * 60 * 60 * 1000;

type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/**
 * Whether the banner is snoozed at `now` (ms): a 'Later' timestamp less than 24 hours old. A
 * missing, unreadable or future timestamp (a clock set back) does not snooze: a bad value must
 * never hide the banner for good.
 */
export function isInstallBannerSnoozed(storage: KeyValueStorage | null, now: number = Date.now()): boolean {
  let raw: string | null = null;
  try {
    raw = storage?.getItem(INSTALL_BANNER_SNOOZE_KEY) ?? null;
  } catch {
    return false;
  }
  if (raw === null || !/^\d+$/.test(raw)) return false;
  const at = Number(raw);
  return at <= now && now - at < INSTALL_BANNER_SNOOZE_MS;
}

/** 'Later': stores `now` (ms) so the banner stays hidden for {@link INSTALL_BANNER_SNOOZE_MS}. */
export function snoozeInstallBanner(storage: KeyValueStorage | null, now: number = Date.now()): void {
  try {
    storage?.setItem(INSTALL_BANNER_SNOOZE_KEY, String(Math.floor(now)));
  } catch (error) {
    console.warn("Could not store the install banner snooze", error);
  }
}

/** After the app is installed the snooze has no purpose: removes it. */
export function clearInstallBannerSnooze(storage: KeyValueStorage | null): void {
  try {
    storage?.removeItem(INSTALL_BANNER_SNOOZE_KEY);
  } catch (error) {
    console.warn("Could not clear the install banner snooze", error);
  }
}

/** The `beforeinstallprompt` event (not in TypeScript's DOM library; Chromium browsers fire it). */
export interface BeforeInstallPromptEvent extends Event {
  readonly platforms: string[];
  readonly userChoice: Promise<{ outcome: "accepted" | "dismissed"; platform: string }>;
  prompt(): Promise<void>;
}

/**
 * 'Install': opens the browser's install prompt (an event can prompt only once) and reports the
 * user's choice. An accepted install clears the snooze; a dismissed prompt snoozes like 'Later'.
 */
export async function promptInstall(
  event: Pick<BeforeInstallPromptEvent, "prompt" | "userChoice">,
  storage: KeyValueStorage | null,
  now: number = Date.now(),
): Promise<"accepted" | "dismissed"> {
  await event.prompt();
  const { outcome } = await event.userChoice;
  if (outcome === "accepted") clearInstallBannerSnooze(storage);
  else snoozeInstallBanner(storage, now);
  return outcome;
}
