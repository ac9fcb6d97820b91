import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();
// The other specs block service workers (playwright.config.ts); these are about it.
test.use({ serviceWorkers: "allow" });

/** Width and height from a PNG's IHDR chunk (PNG spec §11.2.2), or null when it is not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.subarray(1, 4).toString("latin1") !== "PNG" || bytes.subarray(12, 16).toString("latin1") !== "IHDR")
    return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test("installable app: manifest and icons, install banner, a service worker that controls the page, bookmark and settings replay, the offline page", async ({
  page,
  context,
}) => {
  // One context and so one service-worker install (the app shell precache) for every step.
  await signIn(page, "free@metamind.local");

  await test.step("manifest, icons and CSP", async () => {
    const response = await page.goto("/");
    const csp = response!.headers()["content-security-policy"]!;
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("manifest-src 'self'");
    const href = await page.locator('link[rel="manifest"]').getAttribute("href");
    expect(href).toBe("/manifest.webmanifest");
    const manifest = (await (await page.request.get(href!)).json()) as {
      short_name: string;
      start_url: string;
      display: string;
      icons: { src: string; sizes: string; type: string; purpose?: string }[];
    };
    expect(manifest).toMatchObject({ short_name: "MetaMind", start_url: "/", display: "standalone" });
    expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose ?? "any"}`)).toEqual(
      expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]),
    );
    const appleIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute("href");
    for (const icon of [...manifest.icons, { src: appleIcon!, sizes: "180x180", type: "image/png" }]) {
      const res = await page.request.get(icon.src);
      expect(res.status(), icon.src).toBe(200);
      expect(res.headers()["content-type"]).toBe("image/png");
      const [w, h] = icon.sizes.split("x").map(Number);
      expect(pngSize(await res.body()), icon.src).toEqual({ width: w, height: h });
    }
  });

  await test.step("the install banner: Install opens the browser's prompt; Later hides it for 24 hours", async () => {
    const offerInstall = (outcome: "accepted" | "dismissed") =>
      page.evaluate((choice) => {
        const event = Object.assign(new Event("beforeinstallprompt", { cancelable: true }), {
          platforms: ["web"],
          userChoice: Promise.resolve({ outcome: choice, platform: "web" }),
          prompt: async () => {
            (window as unknown as { prompted: number }).prompted =
              ((window as unknown as { prompted?: number }).prompted ?? 0) + 1;
          },
        });
        window.dispatchEvent(event);
        return event.defaultPrevented;
      }, outcome);
    const banner = page.getByRole("region", { name: "Install MetaMind" });
    const snoozedAt = () => page.evaluate(() => localStorage.getItem("metamind:install-banner-snoozed-at"));

    expect(await offerInstall("accepted")).toBe(true);
    await banner.getByRole("button", { name: "Install" }).click();
    await expect(banner).toBeHidden();
    expect(await page.evaluate(() => (window as unknown as { prompted?: number }).prompted)).toBe(1);
    expect(await snoozedAt()).toBeNull();

    await offerInstall("dismissed");
    await banner.getByRole("button", { name: "Later" }).click();
    await expect(banner).toBeHidden();
    const at = Number(await snoozedAt());
    expect(Math.abs(Date.now() - at)).toBeLessThan(60_000);
    await offerInstall("dismissed");
    await page.waitForTimeout(300);
    await expect(banner).toBeHidden();
    // 25 hours later the offer shows again.
    await page.evaluate(
      (t) => localStorage.setItem("metamind:install-banner-snoozed-at", String(t)),
      at - 25 * 3600_000,
    );
    await offerInstall("dismissed");
    await expect(banner).toBeVisible();
    await banner.getByRole("button", { name: "Later" }).click();
  });

  await test.step("the service worker registers and controls the page after a reload", async () => {
    // Registered after load; once installed (app shell precached) it claims the page.
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null), { timeout: 30_000 })
      .toMatch(/\/sw\.js$/);
    await page.reload();
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.state)).toBe("activated");
  });

  await test.step("a bookmark made offline waits in bookmark-sync and is sent when back online", async () => {
    await page.goto("/search?q=cancer%20screening&db=pubmed");
    await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
    const card = page.getByTestId("study-card").first();
    const title = (await card.locator("h3").textContent())!.trim();
    // The page's own follow-up calls (bookmarks, usage) settle before the connection drops.
    await page.waitForLoadState("networkidle");

    await context.setOffline(true);
    await card.getByTestId("bookmark-button").click();
    await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByText(/you are offline; this will sync when you reconnect/).first()).toBeVisible();
    // Queued by the service worker (IndexedDB), not by the page's localStorage fallback.
    expect(await page.evaluate(() => localStorage.getItem("metamind:bookmark-queue:v1"))).toBeNull();
    expect(await queuedInIndexedDb(page)).toEqual(["bookmark-sync"]);

    const bookmarked = async () => {
      const body = (await (await page.request.get("/api/bookmarks")).json()) as {
        bookmarks: { study: { title: string } }[];
      };
      return body.bookmarks.some((b) => b.study.title.trim() === title);
    };
    expect(await bookmarked()).toBe(false);
    await context.setOffline(false);
    await expect.poll(bookmarked, { timeout: 20_000 }).toBe(true);
    await expect.poll(() => queuedInIndexedDb(page)).toEqual([]);
    await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
  });

  await test.step("a settings change made offline waits in settings-sync and is saved when back online", async () => {
    await page.goto("/settings");
    const box = page.getByLabel("Email notifications");
    const before = await box.isChecked();
    const saved = async () =>
      ((await (await page.request.get("/api/user/settings")).json()) as { emailNotifications: boolean })
        .emailNotifications;
    await context.setOffline(true);
    await box.click();
    await expect(page.getByText("Saved offline").first()).toBeVisible();
    expect(await saved()).toBe(before);
    await context.setOffline(false);
    await expect.poll(saved, { timeout: 20_000 }).toBe(!before);
    // Back as it was, for the other specs signed in as this user.
    await box.click();
    await expect(page.getByText("Settings Updated").first()).toBeVisible();
    expect(await saved()).toBe(before);
  });

  await test.step("offline, a navigation gets the precached offline page", async () => {
    await context.setOffline(true);
    await page.goto("/faq");
    await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
    await context.setOffline(false);
    await page.getByRole("link", { name: "Try again" }).click();
    await expect(page.getByRole("heading", { name: "You are offline" })).toHaveCount(0);
    await expect(page).toHaveURL(/\/faq$/);
  });
});

/** The queue names of the requests workbox-background-sync holds in IndexedDB. */
async function queuedInIndexedDb(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("workbox-background-sync");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const all = await new Promise<{ queueName: string }[]>((resolve, reject) => {
      const req = db.transaction("requests").objectStore("requests").getAll();
      req.onsuccess = () => resolve(req.result as { queueName: string }[]);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return all.map((r) => r.queueName);
  });
}
