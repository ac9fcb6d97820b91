import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();
// The other specs block service workers (playwright.config.ts); these are about it.
test.use({ serviceWorkers: "allow" });

/** Width and height from a PNG's IHDR chunk (PNG spec §11.2.2), or null when it is not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.subarray(1, 4).toString("latin1") !== "PNG" || bytes.subarray(12, 16).toString("latin1") !== "IHDR") return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test("the app is installable: manifest and icons, a service worker that controls the page, an offline page", async ({ page, context }) => {
  const response = await page.goto("/");
  const csp = response!.headers()["content-security-policy"]!;
  expect(csp).toContain("worker-src 'self'");
  expect(csp).toContain("manifest-src 'self'");

  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  expect(href).toBe("/manifest.webmanifest");
  const manifest = (await (await page.request.get(href!)).json()) as {
    name: string;
    short_name: string;
    start_url: string;
    display: string;
    theme_color: string;
    icons: { src: string; sizes: string; type: string; purpose?: string }[];
  };
  expect(manifest).toMatchObject({ short_name: "MetaMind", start_url: "/", display: "standalone" });
  expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose ?? "any"}`)).toEqual(expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]));
  const appleIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute("href");
  for (const icon of [...manifest.icons, { src: appleIcon!, sizes: "180x180", type: "image/png" }]) {
    const res = await page.request.get(icon.src);
    expect(res.status(), icon.src).toBe(200);
    expect(res.headers()["content-type"]).toBe("image/png");
    const [w, h] = icon.sizes.split("x").map(Number);
    expect(pngSize(await res.body()), icon.src).toEqual({ width: w, height: h });
  }

  // Registered after load; once installed (app shell precached) it claims the page, and controls it after a reload.
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null), { timeout: 30_000 }).toMatch(/\/sw\.js$/);
  await page.reload();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.state)).toBe("activated");
  await expect(page.getByRole("link", { name: /search/i }).first()).toBeVisible();

  // Offline, a navigation gets the precached offline page instead of the browser's error.
  await context.setOffline(true);
  await page.goto("/faq");
  await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Try again" })).toBeVisible();
  await context.setOffline(false);
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(page.getByRole("heading", { name: "You are offline" })).toHaveCount(0);
  await expect(page).toHaveURL(/\/faq$/);
});

test("a bookmark made offline waits in the service worker's bookmark-sync queue and is sent when back online", async ({ page, context }) => {
  await signIn(page, "free@metamind.local");
  await page.goto("/search?q=cancer%20screening&db=pubmed");
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 }).toBe(true);
  const card = page.getByTestId("study-card").first();
  const title = (await card.locator("h3").textContent())!.trim();

  await context.setOffline(true);
  await card.getByTestId("bookmark-button").click();
  await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText(/you are offline; this will sync when you reconnect/).first()).toBeVisible();
  // Queued by the service worker (IndexedDB), not by the page's localStorage fallback.
  expect(await page.evaluate(() => localStorage.getItem("metamind:bookmark-queue:v1"))).toBeNull();
  const stored = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("workbox-background-sync");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const all = await new Promise<{ queueName: string }[]>((resolve) => {
      const req = db.transaction("requests").objectStore("requests").getAll();
      req.onsuccess = () => resolve(req.result as { queueName: string }[]);
    });
    db.close();
    return all.map((r) => r.queueName);
  });
  expect(stored).toEqual(["bookmark-sync"]);

  const bookmarked = async () => {
    const res = await page.request.get("/api/bookmarks");
    const body = (await res.json()) as { bookmarks: { study: { title: string } }[] };
    return body.bookmarks.some((b) => b.study.title.trim() === title);
  };
  expect(await bookmarked()).toBe(false);
  await context.setOffline(false);
  await expect.poll(bookmarked, { timeout: 20_000 }).toBe(true);
  await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
});
