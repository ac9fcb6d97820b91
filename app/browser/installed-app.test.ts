import { describe, expect, it } from "vitest";
import { installedAppPlatform } from "./installed-app";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";
const IPAD_DESKTOP_UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

describe("installedAppPlatform", () => {
  it("is the platform only in standalone display mode", () => {
    expect(installedAppPlatform(true, IPHONE)).toBe("ios");
    expect(installedAppPlatform(true, IPAD_DESKTOP_UA)).toBe("ios");
    expect(installedAppPlatform(true, ANDROID)).toBe("android");
    expect(installedAppPlatform(true, DESKTOP)).toBeNull();
    expect(installedAppPlatform(false, IPHONE)).toBeNull();
    expect(installedAppPlatform(false, ANDROID)).toBeNull();
  });
});
