import { expect } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";
import { expectStreamed, recordedTextLengths, recordTextLengths } from "./streaming";

requireSharedFixtures();

const QUERY = "vitamin D fracture";
const OFFLINE_MODEL = "MetaMind Offline Extractive v1";
const SIX = ["pubmed", "crossref", "europepmc", "core", "semanticscholar", "doaj"];

test("a new account is created and searches PubMed; other databases are Professional", async ({ page }) => {
  const email = `e2e-${Date.now()}@example.org`;
  await page.goto("/auth");
  await page.getByRole("tab", { name: "Create Account" }).click();
  const panel = page.getByRole("tabpanel", { name: "Create Account" });
  await panel.getByLabel("Email").fill(email);
  await panel.getByLabel("Password").fill("short");
  await panel.getByRole("button", { name: "Create Account" }).click();
  await expect(panel.getByText("Password must be at least 6 characters")).toBeVisible();
  await panel.getByLabel("Password").fill("a-good-password");
  await panel.getByLabel("First name (optional)").fill("Grace");
  await panel.getByRole("button", { name: "Create Account" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByText(/Grace/).first()).toBeVisible();

  await page.goto("/search");
  await expect(page.getByRole("checkbox", { name: /Crossref/ })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: /PubMed/ })).toBeChecked();
  await page.getByLabel("Search query").fill(QUERY);
  await page.getByLabel("Search query").press("Enter");
  await expect(page.getByTestId("provider-status-pubmed")).toHaveAttribute("data-status", "ok");
  await expect(page.getByTestId("study-card").first()).toBeVisible();
  expect(await page.getByTestId("provider-status-crossref").count()).toBe(0);
});

test("Professional searches six databases and watches a summary stream in, then stored", async ({ page }) => {
  await signIn(page, "pro@metamind.local", "metamind-demo");
  await page.goto("/search");
  await page.getByRole("button", { name: "Select All" }).click();
  await page.getByLabel("Search query").fill(QUERY);
  await page.getByRole("button", { name: "Search", exact: true }).click();

  for (const id of SIX) {
    await expect(page.getByTestId(`provider-status-${id}`)).toHaveAttribute("data-status", "ok");
  }
  // The merged list (the search's final answer) is in: the card picked below is not replaced.
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  const cards = page.getByTestId("study-card");
  await expect(cards.first()).toBeVisible();
  const sources = new Set(await page.getByTestId("source-badge").allTextContents());
  expect(sources.size).toBeGreaterThanOrEqual(4);

  const card = cards.filter({ has: page.getByRole("button", { name: "Generate summary" }) }).first();
  const studyId = await card.getAttribute("data-study-id");
  const target = page.locator(`[data-study-id="${studyId}"]`);

  await recordTextLengths(page, `[data-study-id="${studyId}"] [data-testid="ai-summary"]`);

  await target.getByRole("button", { name: "Generate summary" }).click();
  await expect(target.getByTestId("summary-model")).toHaveText(`Written by ${OFFLINE_MODEL}`);
  const summary = (await target.getByTestId("ai-summary").textContent())!.trim();
  expect(summary.length).toBeGreaterThan(40);
  expectStreamed(await recordedTextLengths(page), "the summary");

  await page.screenshot({ path: "tests/e2e/.artifacts/search-summary.png", fullPage: false });

  await page.reload();
  const reloaded = page.locator(`[data-study-id="${studyId}"]`);
  await expect(reloaded.getByTestId("summary-model")).toHaveText(`Written by ${OFFLINE_MODEL}`);
  await expect(reloaded.getByTestId("ai-summary")).toHaveText(summary);
  await expect(reloaded.getByRole("button", { name: "Regenerate" })).toBeVisible();
});

test("unknown pages show the 404 page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "404 Page Not Found" })).toBeVisible();
});
