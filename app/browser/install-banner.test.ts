import { describe, expect, it, vi } from "vitest";
import { memoryStorage } from "../../tests/mocks/memory-storage";
import {
  INSTALL_BANNER_SNOOZE_KEY,
  INSTALL_BANNER_SNOOZE_MS,
  isInstallBannerSnoozed,
  promptInstall,
  snoozeInstallBanner,
} from "~/browser/install-banner";

/** An in-memory Storage stand-in. */

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const HOUR = 3600_000;

describe("install banner snooze (SPEC §4/§9: Later hides it for 24 hours)", () => {
  it("is not snoozed before 'Later' was pressed", () => {
    expect(isInstallBannerSnoozed(memoryStorage(), NOW)).toBe(false);
    expect(isInstallBannerSnoozed(null, NOW)).toBe(false);
  });

  it("'Later' stores the time and hides the banner until 24 hours have passed", () => {
    const storage = memoryStorage();
    snoozeInstallBanner(storage, NOW);
    expect(storage.data.get(INSTALL_BANNER_SNOOZE_KEY)).toBe(String(NOW));
    expect(INSTALL_BANNER_SNOOZE_MS).toBe(24 * HOUR);
    expect(isInstallBannerSnoozed(storage, NOW)).toBe(true);
    expect(isInstallBannerSnoozed(storage, NOW + 23 * HOUR)).toBe(true);
    expect(isInstallBannerSnoozed(storage, NOW + 24 * HOUR - 1)).toBe(true);
    expect(isInstallBannerSnoozed(storage, NOW + 24 * HOUR)).toBe(false);
  });

  it("never hides the banner for good on a bad or future timestamp", () => {
    expect(isInstallBannerSnoozed(memoryStorage({ [INSTALL_BANNER_SNOOZE_KEY]: "soon" }), NOW)).toBe(false);
    expect(isInstallBannerSnoozed(memoryStorage({ [INSTALL_BANNER_SNOOZE_KEY]: String(NOW + HOUR) }), NOW)).toBe(false);
    const throwing = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => undefined,
      removeItem: () => undefined,
    };
    expect(isInstallBannerSnoozed(throwing, NOW)).toBe(false);
  });

  it("'Install' prompts once; accepting clears the snooze, dismissing snoozes", async () => {
    const storage = memoryStorage({ [INSTALL_BANNER_SNOOZE_KEY]: String(NOW - 30 * HOUR) });
    const accepted = {
      prompt: vi.fn(async () => undefined),
      userChoice: Promise.resolve({ outcome: "accepted" as const, platform: "web" }),
    };
    expect(await promptInstall(accepted, storage, NOW)).toBe("accepted");
    expect(accepted.prompt).toHaveBeenCalledTimes(1);
    expect(storage.data.has(INSTALL_BANNER_SNOOZE_KEY)).toBe(false);

    const dismissed = {
      prompt: vi.fn(async () => undefined),
      userChoice: Promise.resolve({ outcome: "dismissed" as const, platform: "web" }),
    };
    expect(await promptInstall(dismissed, storage, NOW)).toBe("dismissed");
    expect(isInstallBannerSnoozed(storage, NOW + HOUR)).toBe(true);
  });
});
