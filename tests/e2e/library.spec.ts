import { readFileSync } from "node:fs";
import { expect, type Page } from "@playwright/test";
import { closeDialogWithEscape, requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

async function search(page: Page, query: string) {
  await page.goto(`/search?q=${encodeURIComponent(query)}&db=pubmed`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  return page.getByTestId("study-card").first();
}

test("a Pro user bookmarks from search, cites it, finds it on the profile and exports BibTeX", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  const card = await search(page, "cancer screening");
  const title = (await card.locator("h3").textContent())!.trim();

  await card.getByTestId("bookmark-button").click();
  await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");

  await card.getByTestId("cite-button").click();
  const cite = page.getByTestId("citation-dialog");
  await expect(cite.getByTestId("citation-apa")).toContainText(/\(\d{4}\)/);
  await expect(cite.getByTestId("citation-mla")).not.toBeEmpty();
  await expect(cite.getByTestId("citation-chicago")).not.toBeEmpty();
  await page.keyboard.press("Escape");

  await page.goto("/profile");
  await expect(page.getByTestId("count-bookmarks")).toHaveText("1");
  await expect(page.getByTestId("bookmark-item").first()).toContainText(title);
  // Offline runs have no Unpaywall replay, so this exercises the Europe PMC fallback.
  await page.getByRole("button", { name: "Check open access" }).click();
  await expect(page.getByTestId("open-access-summary")).toHaveText(
    /^Open access: \d+ of 1 \(\d+%\) · \d+ in repositories$/,
  );
  await page.screenshot({ path: "tests/e2e/.artifacts/profile-bookmarks.png" });

  await page.getByTestId("export-bookmarks").click();
  const dialog = page.getByTestId("export-dialog");
  await dialog.getByLabel("BibTeX").check();
  const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("export-submit").click()]);
  expect(download.suggestedFilename()).toMatch(/^metamind-studies-\d{4}-\d{2}-\d{2}\.bib$/);
  const bib = readFileSync(await download.path(), "utf8");
  expect(bib).toMatch(/^@article\{/m);
  expect(bib.toLowerCase()).toContain(title.slice(0, 20).toLowerCase().replace(/[{}]/g, "").split(" ")[0]);

  // Removing the bookmark on the profile empties the list.
  await page.getByRole("button", { name: `Remove bookmark: ${title}` }).click();
  await expect(page.getByTestId("count-bookmarks")).toHaveText("0");
});

test("a bookmark made offline is queued and sent when the connection returns", async ({ page, context }) => {
  await signIn(page, "pro@metamind.local");
  const card = await search(page, "cancer screening");
  const title = (await card.locator("h3").textContent())!.trim();
  await context.setOffline(true);
  await card.getByTestId("bookmark-button").click();
  await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText(/you are offline; this will sync when you reconnect/).first()).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("metamind:bookmark-queue:v1"))).toContain('"action":"add"');

  const replayed = page.waitForResponse((r) => r.url().endsWith("/api/bookmarks") && r.request().method() === "POST");
  await context.setOffline(false);
  expect((await replayed).status()).toBe(201);
  await expect.poll(() => page.evaluate(() => localStorage.getItem("metamind:bookmark-queue:v1"))).toBeNull();

  await page.goto("/profile");
  await expect(page.getByTestId("bookmark-item").filter({ hasText: title })).toBeVisible();
  await page.getByRole("button", { name: `Remove bookmark: ${title}` }).click();
  await expect(page.getByTestId("count-bookmarks")).toHaveText("0");
});

test("the offline toast shows even when the toast code could not be fetched before the connection dropped", async ({
  page,
  context,
}) => {
  // The Radix toast chunk is fetched after hydration; a connection lost before it arrives must not
  // swallow the message.
  await page.route(/\/assets\/toast-view-[\w-]+\.js$/, (route) => route.abort("internetdisconnected"));
  await signIn(page, "pro@metamind.local");
  const card = await search(page, "cancer screening");
  await context.setOffline(true);
  await card.getByTestId("bookmark-button").click();
  await expect(card.getByTestId("bookmark-button")).toHaveAttribute("aria-pressed", "true");
  const status = page.getByRole("status").filter({ hasText: /you are offline; this will sync when you reconnect/ });
  await expect(status).toBeVisible();
  await expect(status).toContainText("Bookmarked");

  await context.setOffline(false);
  await expect.poll(() => page.evaluate(() => localStorage.getItem("metamind:bookmark-queue:v1"))).toBeNull();
  await page.goto("/profile");
  await page
    .getByRole("button", { name: /^Remove bookmark: / })
    .first()
    .click();
  await expect(page.getByTestId("count-bookmarks")).toHaveText("0");
});

test("a saved report is viewed in a sandboxed frame, downloaded and deleted from the profile", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  const saved = await page.request.post("/api/saved-reports", {
    headers: { Origin: new URL(page.url()).origin },
    data: {
      name: "Zinc meta-analysis",
      type: "meta-analysis",
      studyIds: [1, 2],
      reportData: { description: "Pooled effect of zinc" },
      htmlContent:
        '<h1>Zinc report</h1><svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="navy"/></svg><script>document.title="owned"</script>',
    },
  });
  expect(saved.status()).toBe(201);
  await page.goto("/profile");
  await expect(page.getByTestId("count-reports")).toHaveText(/[1-9]/);
  await page.getByRole("tab", { name: "Saved Reports" }).click();
  const item = page.getByTestId("report-item").filter({ hasText: "Zinc meta-analysis" });
  await expect(item).toContainText("Pooled effect of zinc");
  await item.getByRole("button", { name: "View" }).click();
  const frame = page.getByTestId("report-frame");
  await expect(frame).toHaveAttribute("sandbox", "");
  const srcdoc = (await frame.getAttribute("srcdoc"))!;
  expect(srcdoc).toContain("<circle");
  expect(srcdoc).not.toContain("<script");
  await expect(
    page.frameLocator('[data-testid="report-frame"]').getByRole("heading", { name: "Zinc report" }),
  ).toBeVisible();
  await page.keyboard.press("Escape");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    item.getByRole("button", { name: "Download" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^metamind-meta-analysis-report-\d+\.html$/);
  await item.getByRole("button", { name: "Delete report Zinc meta-analysis" }).click();
  await expect(page.getByTestId("report-item").filter({ hasText: "Zinc meta-analysis" })).toHaveCount(0);
});

test("a Free user exports CSV but gets the upgrade prompt for BibTeX; guests must sign in", async ({ page }) => {
  await signIn(page, "free@metamind.local");
  const card = await search(page, "cancer screening");
  await card.getByTestId("export-button").click();
  const dialog = page.getByTestId("export-dialog");
  await dialog.getByLabel("CSV").check();
  const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("export-submit").click()]);
  expect(download.suggestedFilename()).toMatch(/^metamind-studies-\d{4}-\d{2}-\d{2}\.csv$/);
  expect(readFileSync(await download.path(), "utf8")).toMatch(/^"title","authors","journal"/);

  // The meta-analysis selection exports as a whole (JSON here).
  const cards = page.getByTestId("study-card");
  await cards.nth(0).getByRole("button", { name: "Add to meta-analysis" }).click();
  await cards.nth(1).getByRole("button", { name: "Add to meta-analysis" }).click();
  await page.getByTestId("meta-fab").click();
  await page.getByTestId("export-selection").click();
  await expect(dialog).toContainText("2 studies selected");
  await dialog.getByLabel("JSON").check();
  const [json] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("export-submit").click()]);
  expect(JSON.parse(readFileSync(await json.path(), "utf8")).count).toBe(2);

  await card.getByTestId("export-button").click();
  await dialog.getByLabel("BibTeX").check();
  await dialog.getByTestId("export-submit").click();
  const prompt = page.getByTestId("upgrade-prompt");
  await expect(prompt).toHaveAttribute("data-feature", "citation_export");
  await expect(prompt).toContainText("Citation exports (BibTeX, RIS) require Professional subscription");
  await page.screenshot({ path: "tests/e2e/.artifacts/export-upgrade-prompt.png" });
  await closeDialogWithEscape(page);

  // Signed out: bookmarking and exporting ask to sign in.
  await page.context().clearCookies();
  const guestCard = await search(page, "cancer screening");
  await guestCard.getByTestId("bookmark-button").click();
  await expect(page.getByText("Please sign in to bookmark studies", { exact: true })).toBeVisible();
  await guestCard.getByTestId("export-button").click();
  await page.getByTestId("export-dialog").getByTestId("export-submit").click();
  await expect(
    page.getByText("Create an account to download and export your research data.", { exact: true }),
  ).toBeVisible();
});

test("changed settings become the search defaults; the profile asks guests to sign in", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  await search(page, "cancer screening"); // leaves a stored search behind
  await page.goto("/settings");
  await expect(page.getByTestId("plan-badge")).toHaveText("Professional");
  const saved = () =>
    page.waitForResponse((r) => r.url().endsWith("/api/user/settings") && r.request().method() === "PATCH" && r.ok());
  await Promise.all([saved(), page.getByLabel("Results per page").selectOption("50")]);
  await expect(page.getByText("Your preferences have been saved successfully.", { exact: true })).toBeVisible();
  await Promise.all([saved(), page.getByLabel("Default database").selectOption("europepmc")]);
  await page.screenshot({ path: "tests/e2e/.artifacts/settings.png" });

  await page.goto("/search");
  await expect(page.getByLabel("Search query")).toHaveValue("");
  await expect(page.getByRole("checkbox", { name: /Europe PMC/ })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: /PubMed/ })).not.toBeChecked();
  await page.getByTestId("advanced-filters-toggle").click();
  await expect(page.getByLabel("Results")).toHaveValue("50");

  await page.reload();
  await page.goto("/settings");
  await expect(page.getByLabel("Results per page")).toHaveValue("50");

  // Leave the app before signing out underneath it: its session guard would navigate meanwhile.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.goto("/profile");
  await expect(page.getByText("Sign In Required")).toBeVisible();
  await page.waitForURL(/\/auth$/, { timeout: 5000 });
});
