import { expect } from "@playwright/test";
import { closeDialogWithEscape, requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

test("results appear database by database, then merged; filters go to history and reload from it", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  await page.goto("/search");
  await page.getByRole("button", { name: "Select All" }).click();
  await page.getByLabel("Search query").fill("exercise older adults");
  await page.getByTestId("advanced-filters-toggle").click();
  await page.getByLabel("Date range").selectOption("last_10_years");
  await page.getByRole("button", { name: "Search", exact: true }).click();

  // DOAJ is slowed down by the replay server: the fast databases' cards show while it searches.
  await expect(page.getByTestId("provider-status-doaj")).toHaveAttribute("data-status", "pending");
  await expect(page.getByTestId("provider-status-crossref")).toHaveAttribute("data-status", "ok");
  await expect(page.getByTestId("progress-message")).toBeVisible();
  await expect(page.getByTestId("study-card").first()).toBeVisible();
  await page.screenshot({ path: "tests/e2e/.artifacts/search-progressive.png" });

  await expect(page.getByTestId("provider-status-doaj")).toHaveAttribute("data-status", "ok");
  await expect(page.getByTestId("search-message")).toContainText("from 6 databases");
  expect(page.url()).toContain("dateRange=last_10_years");
  await page.screenshot({ path: "tests/e2e/.artifacts/search-merged.png" });

  // Scroll to top: hidden at the top, shown past 400 px, and it brings the page back.
  await expect(page.getByTestId("scroll-top")).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 1200));
  await expect(page.getByTestId("scroll-top")).toBeVisible();
  await page.getByTestId("scroll-top").click();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  await expect(page.getByTestId("scroll-top")).toHaveCount(0);

  // History: the search is listed with its filter badge; Reload from another page runs it again.
  await page.goto("/");
  await page.getByRole("button", { name: "History" }).click();
  const entry = page.getByTestId("history-entry").first();
  await expect(entry).toContainText("exercise older adults");
  await expect(entry).toContainText("Last 10 years");
  await entry.getByRole("button", { name: "Reload" }).click();
  await page.waitForURL(/\/search/);
  await expect(page.getByLabel("Search query")).toHaveValue("exercise older adults");
  await expect(page.getByLabel("Date range")).toHaveValue("last_10_years");
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 20_000 });
});

test("saved searches, the meta-analysis selection and Smart Search", async ({ page }) => {
  await signIn(page, "pro@metamind.local");
  await page.goto("/search?q=cancer%20screening&db=pubmed,europepmc");
  await expect(page.getByTestId("search-message")).toBeVisible();

  await page.getByRole("button", { name: "Save search" }).click();
  await page.getByLabel("Name").fill("Screening evidence");
  await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
  await page.getByRole("button", { name: "Saved searches" }).click();
  await expect(page.getByTestId("saved-search").filter({ hasText: "Screening evidence" })).toBeVisible();
  await page.keyboard.press("Escape");

  const cards = page.getByTestId("study-card");
  await cards.nth(0).getByRole("button", { name: "Add to meta-analysis" }).click();
  await cards.nth(1).getByRole("button", { name: "Add to meta-analysis" }).click();
  await expect(page.getByTestId("meta-fab")).toHaveText("2");
  await page.reload();
  await expect(page.getByTestId("meta-fab")).toHaveText("2");

  await page.getByLabel("Smart Search").check();
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page.getByTestId("smart-search-note")).toContainText("MetaMind Offline Extractive v1");
  await expect(page.getByTestId("relevance").first()).toContainText(/Relevance \d+\.\d\/10/);
});

test("a Free account searches PubMed only and gets the upgrade prompt for other databases", async ({ page }) => {
  await signIn(page, "free@metamind.local");
  await page.goto("/search");
  await expect(page.getByTestId("usage-card")).toContainText("AI analyses used this month");
  await page.getByRole("checkbox", { name: /Semantic Scholar/ }).click();
  const prompt = page.getByTestId("upgrade-prompt");
  await expect(prompt).toContainText("Multi-database search requires Professional subscription");
  await expect(prompt).toContainText("$9.99/month");
  await closeDialogWithEscape(page);
  await page.getByLabel("Search query").fill("asthma");
  await page.getByLabel("Search query").press("Enter");
  await expect(page.getByTestId("provider-status-pubmed")).toHaveAttribute("data-status", "ok");
  expect(await page.getByTestId("provider-status-semanticscholar").count()).toBe(0);
});
