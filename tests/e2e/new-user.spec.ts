import { expect, type Page } from "@playwright/test";
import { A11yAudit, APP_PAGES } from "./a11y";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/** Issue 16: the pages and defects a new user hits (responsive layout, history, search, settings). */

const ALL_DBS = "pubmed,crossref,europepmc,core,semanticscholar,doaj";
const PHONE_WIDTHS = [360, 390, 414];
/** Every page is also checked at a laptop's width (issue 33's first hour: 1280 px). */
const SWEEP_WIDTHS = [...PHONE_WIDTHS, 1280];

/** Fails a test on any console error (a 404 for a resource is one). */
function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return errors;
}

/** How far the page scrolls sideways at each width (0 = not at all); the phone widths by default. */
async function sidewaysOverflow(page: Page, widths: readonly number[] = PHONE_WIDTHS): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const width of widths) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(50);
    out[width] = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  }
  return out;
}

const NONE = Object.fromEntries(PHONE_WIDTHS.map((w) => [w, 0]));
const NONE_AT_ANY_WIDTH = Object.fromEntries(SWEEP_WIDTHS.map((w) => [w, 0]));

test("no page scrolls sideways at 360–414 px or 1280 px, signed out or signed in; axe finds nothing serious on a desktop or a phone", async ({
  page,
}) => {
  test.setTimeout(300_000);
  // The one sweep over every page: sideways scroll at every width and the axe audits, in the same
  // visits (accessibility.spec.ts has the pages that need an id or a state; first-hour-layout.spec.ts
  // the phone-as-a-phone checks of the header, tabs and forest plot).
  const audit = new A11yAudit();
  for (const signedIn of [false, true]) {
    if (signedIn) await signIn(page, "pro@metamind.local");
    for (const path of APP_PAGES) {
      const label = `${path} (${signedIn ? "signed in" : "signed out"})`;
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      expect(await sidewaysOverflow(page, SWEEP_WIDTHS), label).toEqual(NONE_AT_ANY_WIDTH);
      await audit.checkDesktopAndPhone(page, label);
    }
  }
  expect.soft(audit.serious(), "serious or critical axe violations").toEqual([]);
  // Results with 'Add to meta-analysis', and the meta-analysis page with studies selected.
  await page.setViewportSize({ width: 390, height: 800 });
  // (Not the query of the arrival-order test below: that one needs the databases uncached.)
  await page.goto(`/search?q=${encodeURIComponent("cancer screening")}&db=${ALL_DBS}`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  const cards = page.getByTestId("study-card");
  for (let i = 0; i < 2; i++)
    await cards
      .nth(i)
      .getByRole("button", { name: /Add to meta-analysis/ })
      .click();
  const titleWidth = (await cards.first().locator("h3").boundingBox())!.width;
  const cardWidth = (await cards.first().boundingBox())!.width;
  expect(titleWidth, "study titles use the card's width on a phone").toBeGreaterThan(cardWidth - 64);
  expect(await sidewaysOverflow(page), "/search with results").toEqual(NONE);
  await page.goto("/meta-analysis");
  await expect(page.getByTestId("method-select")).toBeVisible();
  expect(await sidewaysOverflow(page), "/meta-analysis with studies").toEqual(NONE);
  for (const id of ["method-select", "test-select"]) {
    const box = (await page.getByTestId(id).boundingBox())!;
    expect(box.x + box.width, `${id} stays inside a 414 px screen`).toBeLessThanOrEqual(414);
  }

  // The account menu opens on screen, with Student Portal on a phone.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.getByRole("button", { name: /Account menu/ }).click();
  for (const name of ["Profile", "Settings", "Student Portal", "Sign Out"]) {
    const box = (await page.getByRole("menuitem", { name }).boundingBox())!;
    expect(box.x, name).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, name).toBeLessThanOrEqual(390);
  }
  await page.keyboard.press("Escape");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "FAQ" })).toBeVisible();
});

test("one history entry per search, updated by paging; records retrieved apart from database totals", async ({
  page,
}) => {
  await signIn(page, "pro@metamind.local");
  const history = async () =>
    (
      (await (await page.request.get("/api/search-history")).json()) as {
        history: { query: string; resultCount: number; databaseTotal: number }[];
      }
    ).history;
  // A search other than the newest entry (an earlier test may have run this one last).
  await page.goto(`/search?q=${encodeURIComponent("exercise older adults")}&db=pubmed`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await history())[0]?.query).toBe("exercise older adults");
  const before = (await history()).length;
  await page.goto(`/search?q=${encodeURIComponent("cancer screening")}&db=${ALL_DBS}&limit=25`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  const pagination = page.getByRole("navigation", { name: "Pagination" });
  await pagination.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  await pagination.getByRole("button", { name: "Previous" }).click();
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });

  await expect.poll(async () => (await history())[0]?.query).toBe("cancer screening");
  const after = await history();
  expect(after.length - before, "paging saves no new entry").toBe(1);
  const [entry] = after;
  expect(entry!.databaseTotal).toBeGreaterThan(entry!.resultCount);

  await page.getByRole("button", { name: "History" }).click();
  const row = page.getByTestId("history-entry").first();
  await expect(row.getByTestId("history-count").first()).toHaveText(
    `· ${entry!.resultCount.toLocaleString("en")} records retrieved`,
  );
  await expect(row.getByTestId("history-count").nth(1)).toHaveText(
    `· ${entry!.databaseTotal.toLocaleString("en")} in the databases`,
  );
});

test("a /search URL fires one /api/search, and finishing keeps the cards where they are", async ({
  page,
}, testInfo) => {
  await signIn(page, "pro@metamind.local");
  // A retry (or repeat) searches words no earlier try has cached: a cached search answers at once, with no progress line.
  const again = testInfo.retry > 0 || testInfo.repeatEachIndex > 0;
  const query = `exercise older adults${again ? ` try ${testInfo.repeatEachIndex} ${testInfo.retry}` : ""}`;
  const searches: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/search") searches.push(request.url());
  });
  await page.goto(`/search?q=${encodeURIComponent(query)}&db=${ALL_DBS}`);
  // DOAJ answers late (replay latency): read the cards that are already there.
  await expect(page.getByTestId("progress-message")).toBeVisible({ timeout: 30_000 });
  const ids = () =>
    page.locator("[data-result-id]").evaluateAll((els) => els.map((el) => el.getAttribute("data-result-id")));
  // The progress line can show before the first database's cards render: wait for a few.
  await expect.poll(async () => (await ids()).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
  const shownEarly = await ids();
  const reading = page.locator(`[data-result-id="${shownEarly[2]}"]`);
  // In one step in the page (the search may finish at any moment): bring the third card into
  // view, mark its element, focus its Bookmark button and read where it is.
  const before = await page.evaluate((id) => {
    const card = document.querySelector<HTMLElement>(`[data-result-id="${id}"]`)!;
    card.scrollIntoView({ block: "center" });
    card.dataset.e2eReading = "1";
    card.querySelector<HTMLElement>('[data-testid="bookmark-button"]')!.focus();
    return {
      top: card.getBoundingClientRect().top,
      stillLoading: !document.querySelector('[data-testid="search-message"]'),
    };
  }, shownEarly[2]);

  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  const after = await page.evaluate((id) => {
    const card = document.querySelector<HTMLElement>(`[data-result-id="${id}"]`);
    return {
      top: card?.getBoundingClientRect().top ?? null,
      sameElement: card?.dataset.e2eReading === "1",
      focusInside: Boolean(card?.contains(document.activeElement)),
    };
  }, shownEarly[2]);
  expect(after.top, "the card being read is still on the page").not.toBeNull();
  expect(Math.abs(after.top! - before.top), "the card being read stays put").toBeLessThan(40);
  if (before.stillLoading) {
    // The streamed card is the merged page's card, not a copy: the keyboard user's focus survives.
    expect(after.sameElement, "the card is the same element once the search finishes").toBe(true);
    expect(after.focusInside, "focus stays on the card's button").toBe(true);
  }
  const shownLate = await ids();
  const kept = shownEarly.filter((id) => shownLate.includes(id));
  expect(shownLate.slice(0, kept.length), "cards keep their arrival order").toEqual(kept);
  expect(searches, "one /api/search per URL load").toHaveLength(1);
  await expect(page.getByText("No studies found", { exact: false })).toHaveCount(0);

  // The merged order is offered without moving the card being read (the one at the top).
  await reading.evaluate((el) => el.scrollIntoView({ block: "start" }));
  const topNow = (await reading.boundingBox())!.y;
  await page.getByTestId("show-merged-order").click();
  await expect(page.getByTestId("order-note")).toContainText("Showing the merged order");
  // Where the card is once the reordered page has settled (cards newly near the viewport render a frame later).
  await page.waitForTimeout(500);
  expect(Math.abs((await reading.boundingBox())!.y - topNow)).toBeLessThan(2);
});

test("settings' read-only account fields are text, and an unanalysed open-access study logs no 404", async ({
  page,
}) => {
  const errors = collectConsoleErrors(page);
  await signIn(page, "pro@metamind.local");
  await page.goto("/settings");
  const account = page.getByTestId("account-information");
  await expect(page.getByTestId("account-email")).toHaveText("pro@metamind.local");
  await expect(page.getByTestId("account-display-name")).toHaveText("Pat");
  await expect(account.locator("input")).toHaveCount(0);

  await page.goto(`/search?q=${encodeURIComponent("cancer screening")}&db=pubmed`);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  const withLink = page
    .getByTestId("study-card")
    .filter({ has: page.getByTestId("fulltext-analysis-button") })
    .first();
  if (await withLink.count()) {
    const stored = page.waitForResponse((r) =>
      /\/api\/studies\/\d+\/fulltext-analysis$/.test(new URL(r.url()).pathname),
    );
    await withLink.getByTestId("fulltext-analysis-button").click();
    expect((await stored).status()).toBe(200);
    await page.keyboard.press("Escape");
  }
  expect(errors.filter((e) => /404|Not Found/i.test(e))).toEqual([]);
});

test("FAQ, Terms, Privacy and Contact carry the spec's sections and are linked from the footer", async ({ page }) => {
  await page.goto("/");
  const footer = page.getByRole("navigation", { name: "Footer" });
  for (const [name, path] of [
    ["FAQ", "/faq"],
    ["Terms of Service", "/terms"],
    ["Privacy Policy", "/privacy"],
    ["Contact Support", "/contact"],
  ]) {
    await expect(footer.getByRole("link", { name })).toHaveAttribute("href", path);
  }

  await footer.getByRole("link", { name: "FAQ" }).click();
  await expect(page.getByRole("heading", { level: 2 })).toHaveText([
    "Getting Started",
    "Search & Discovery",
    "AI-Powered Analysis",
    "Data Management",
    "Installation & Technical",
  ]);
  const first = page.getByTestId("faq-item").first();
  await first.locator("summary").click();
  await expect(first).toHaveAttribute("open", "");
  await expect(page.locator('main a[href="/search"]').first()).toBeAttached();
  await expect(page.locator('main a[href="/profile"]').first()).toBeAttached();

  await page.goto("/terms");
  await expect(page.getByTestId("policy-section")).toHaveCount(11);
  await expect(page.getByTestId("last-updated")).toHaveText("Last updated: July 9 2025");
  await expect(page.locator('main a[href="/"]')).toBeVisible();

  await page.goto("/privacy");
  await expect(page.getByTestId("policy-section")).toHaveCount(11);
  await expect(page.getByTestId("last-updated")).toHaveText("Last updated: July 9, 2025");
  await expect(page.getByTestId("policy-section").nth(8)).toContainText("under 13");
  await expect(page.getByTestId("policy-section").nth(2)).toContainText("TLS 1.3");

  await page.goto("/contact");
  await expect(page.getByTestId("support-topic")).toHaveText([
    /Subscription & Billing/,
    /Technical Support/,
    /Research Assistance/,
    /Data & Privacy/,
  ]);
  await expect(page.getByTestId("policy-box")).toHaveText([
    /Response commitment/,
    /Resolution process/,
    /Escalation path/,
    /Satisfaction guarantee/,
  ]);
  await expect(page.getByTestId("contact-channels")).toContainText("within 24 hours");
  await expect(page.getByTestId("contact-channels")).toContainText("United Kingdom");
});

test("admin: Access Denied for non-admins, statistics for an ADMIN_EMAILS account", async ({ page }) => {
  await signIn(page, "free@metamind.local");
  await page.goto("/admin");
  await expect(page.getByTestId("access-denied")).toContainText("Access Denied");
  await expect(page.getByText("You don't have permission to access the admin panel.").first()).toBeVisible();
  expect((await page.request.get("/api/admin/stats")).status()).toBe(403);

  // The offline server's ADMIN_EMAILS is admin@metamind.local.
  // Leave the app first: an open page's session guard that sees the session end or change under
  // it (on mount, after hydration) logs out or navigates, racing the next page.goto.
  await page.goto("about:blank");
  await page.request.post("/api/logout");
  const reg = await page.request.post("/api/register", {
    data: { email: "admin@metamind.local", password: "metamind-admin" },
  });
  expect([201, 409]).toContain(reg.status());
  if (reg.status() === 409)
    await page.request.post("/api/login", { data: { email: "admin@metamind.local", password: "metamind-admin" } });
  await page.goto("/admin");
  const stats = (await (await page.request.get("/api/admin/stats")).json()) as {
    totalUsers: number;
    recentSignups: number;
    activeUsers: number;
    growthRate: number;
  };
  await expect(page.getByTestId("stat-total")).toHaveText(stats.totalUsers.toLocaleString("en"));
  await expect(page.getByTestId("stat-recent")).toHaveText(String(stats.recentSignups));
  await expect(page.getByTestId("stat-active")).toHaveText(String(stats.activeUsers));
  await expect(page.getByTestId("stat-growth")).toHaveText(`${stats.growthRate}%`);
  expect(stats.activeUsers).toBeGreaterThanOrEqual(2);
  await expect(page.getByTestId("recent-user").filter({ hasText: "admin@metamind.local" })).toContainText(
    "Not provided",
  );
  await expect(page.getByTestId("recent-user").first()).toContainText("Active");
});

test("student portal: assignments by due date with an overdue badge; a Profile report sent and transferred", async ({
  page,
  context,
}) => {
  await signIn(page, "free@metamind.local");
  const report = await page.request.post("/api/saved-reports", {
    data: {
      name: "Sleep and memory guide",
      type: "meta-analysis",
      studyIds: ["1"],
      reportData: {},
      htmlContent: "<h1>Sleep</h1><p>Pooled SMD 0.4</p>",
    },
  });
  expect(report.status()).toBe(201);

  await page.goto("/student");
  for (const [title, due] of [
    ["Final essay", "2099-06-01"],
    ["Reading log", "2000-01-10"],
    ["Lab report", "2099-01-15"],
  ]) {
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Due date").fill(due);
    await page.getByRole("button", { name: "Add Assignment" }).click();
    await expect(page.getByTestId("assignment").filter({ hasText: title })).toBeVisible();
  }
  await expect(page.getByTestId("assignment").locator("p.font-semibold")).toHaveText([
    "Reading log",
    "Lab report",
    "Final essay",
  ]);
  await expect(page.getByTestId("overdue-badge")).toHaveCount(1);
  await expect(page.getByTestId("assignment").first().getByTestId("overdue-badge")).toBeVisible();

  // Profile → Send to Student Portal opens /student#study-guides in a new tab with the guide.
  await page.goto("/profile");
  await page.getByRole("tab", { name: /reports/i }).click();
  const [portal] = await Promise.all([
    context.waitForEvent("page"),
    page.getByRole("button", { name: "Send to Student Portal" }).first().click(),
  ]);
  await portal.waitForLoadState();
  expect(new URL(portal.url()).pathname + new URL(portal.url()).hash).toBe("/student#study-guides");
  await expect(portal.getByTestId("study-guide").filter({ hasText: "Sleep and memory guide" })).toBeVisible();
  await portal.close();

  // Transfer to Assignment lists the assignments and transfers the report.
  await page.getByRole("button", { name: "Transfer to Assignment" }).first().click();
  await page.getByLabel("Assignment", { exact: true }).selectOption({ label: "Lab report (due 2099-01-15)" });
  await page.getByRole("button", { name: "Transfer", exact: true }).click();
  await expect(page.getByText("Study guide transferred").first()).toBeVisible();
  await page.goto("/student#study-guides");
  await expect(
    page.getByTestId("study-guide").filter({ hasText: "Sleep and memory guide" }).getByTestId("guide-assignment"),
  ).toHaveText(" · Assigned to Lab report");
});

test("toasts: one at a time, at the top on a phone, bottom-right and at most 420 px wide on a desktop", async ({
  page,
}) => {
  await signIn(page, "free@metamind.local");
  const errors = collectConsoleErrors(page);
  const toasts = page.getByRole("region", { name: /Notifications/ }).locator("li");
  const toast = toasts.filter({ hasText: "Access Denied" });
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto("/admin");
  await expect(toast).toBeVisible();
  const phone = (await toast.boundingBox())!;
  expect(phone.y).toBeLessThan(100);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/admin");
  await expect(toast).toBeVisible();
  const desktop = (await toast.boundingBox())!;
  expect(desktop.width).toBeLessThanOrEqual(420);
  expect(desktop.x + desktop.width).toBeGreaterThan(1280 - 40);
  expect(desktop.y + desktop.height).toBeGreaterThan(800 - 40);
  await expect(toasts).toHaveCount(1);
  expect(errors, "a non-admin's page makes no refused call").toEqual([]);
});
