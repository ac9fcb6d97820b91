import { expect, type Browser, type Page } from "@playwright/test";
import { requireSharedFixtures, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Issue 33 (a reviewer's first hour), item 2: pages fit a phone (390 px, as a phone: touch,
 * mobile viewport, so a too-wide page would make the browser zoom out) and a laptop (1280 px):
 * no sideways scroll, the review's tabs all on screen and reachable, the header's links on one
 * line, the forest plot's labels at least 10 px (the plot scrolls sideways instead of shrinking).
 * Every page of APP_PAGES, signed out and in, is checked for sideways scroll at 360, 390, 414 and
 * 1280 px by the one page sweep in new-user.spec.ts (the same visits as the axe audits); here the
 * search page, the home page, the profile's tabs and a review's tabs are opened as a phone.
 */

const SIZES = [
  { width: 390, height: 844, phone: true },
  { width: 1280, height: 800, phone: false },
] as const;
const REVIEW_TABS = ["Records", "Screening", "Full text", "Data extraction", "Analysis", "PRISMA"];
const PROFILE_TABS = ["Bookmarks", "Saved Reports", "Saved Answers", "Saved Searches", "History"];
const SEARCH = `/search?q=${encodeURIComponent("covid vaccination")}&db=europepmc`;
/** Recorded Europe PMC abstracts with hazard ratios and 95% CIs (see meta-analysis.spec.ts). */
const HR_TITLES = [
  "The role of COVID-19 vaccines in preventing post-COVID-19 thromboembolic",
  "Prior COVID-19 vaccination and reduced risk of cerebrovascular",
];

async function newPage(browser: Browser, size: (typeof SIZES)[number], baseURL: string): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: size.width, height: size.height },
    isMobile: size.phone,
    hasTouch: size.phone,
    serviceWorkers: "block",
  });
  return context.newPage();
}

/** The page's width as laid out, the viewport's and the visible width (a zoomed-out phone page has innerWidth > the screen). */
async function widths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

async function expectFits(page: Page, width: number, label: string): Promise<void> {
  const w = await widths(page);
  expect(w.innerWidth, `${label}: the browser does not zoom out`).toBe(width);
  expect(w.scrollWidth, `${label}: no sideways scroll`).toBeLessThanOrEqual(width);
}

async function signInAs(page: Page, email: string): Promise<void> {
  await page.goto("/auth");
  await page.getByRole("tab", { name: "Sign In" }).click();
  const panel = page.getByRole("tabpanel", { name: "Sign In" });
  await panel.getByLabel("Email").fill(email);
  await panel.getByLabel("Password").fill("metamind-demo");
  await panel.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL((url) => url.pathname === "/");
}

/** Every tab is inside the screen and opens its panel when tapped. */
async function expectTabsReachable(page: Page, names: readonly string[], width: number, label: string): Promise<void> {
  for (const name of names) {
    const tab = page.getByRole("tab", { name, exact: true });
    const box = (await tab.boundingBox())!;
    expect(box.x, `${label}: tab ${name} starts on screen`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${label}: tab ${name} ends on screen`).toBeLessThanOrEqual(width);
    await tab.click();
    await expect(tab).toHaveAttribute("data-state", "active");
    await expectFits(page, width, `${label}, tab ${name}`);
  }
}

for (const size of SIZES) {
  test(`${size.phone ? "a phone" : "a laptop"} at ${size.width} px: search, profile and review fit, tabs reachable, header on one line`, async ({
    browser,
    baseURL,
  }) => {
    const page = await newPage(browser, size, baseURL!);
    // Signed out, the greyed Pro databases say why they are greyed, on screen (no hover needed).
    await page.goto("/search");
    await expect(page.getByTestId("pro-databases-note")).toContainText("Professional plan");
    await expect(page.getByRole("checkbox", { name: /Crossref/ })).toHaveAttribute(
      "aria-describedby",
      "pro-databases-note",
    );
    await expectFits(page, size.width, "/search (signed out)");
    await signInAs(page, "pro@metamind.local");
    // Signed in: the header's links each on one line, side by side.
    await page.goto("/");
    await expectFits(page, size.width, "/ (signed in)");
    const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
    const boxes = await Promise.all((await links.all()).map((l) => l.boundingBox()));
    expect(boxes.length).toBeGreaterThanOrEqual(5);
    for (const b of boxes) expect(b!.height, "a header link on one line").toBeLessThanOrEqual(40);
    expect(new Set(boxes.map((b) => Math.round(b!.y))).size, "header links in one row").toBe(1);

    await page.goto("/profile");
    await expectTabsReachable(page, PROFILE_TABS, size.width, "/profile");

    const res = await page.request.post("/api/reviews", {
      headers: { Origin: baseURL! },
      data: {
        title: "Exercise for depression in adults",
        question: { population: "adults with depression", intervention: "exercise" },
        criteria: ["randomised controlled trial"],
      },
    });
    expect(res.status()).toBe(201);
    const { review } = (await res.json()) as { review: { id: string } };
    await page.goto(`/reviews/${review.id}`);
    await expect(page.getByRole("tab", { name: "PRISMA" })).toBeVisible();
    await expectFits(page, size.width, "/reviews/{id}");
    await expectTabsReachable(page, REVIEW_TABS, size.width, "/reviews/{id}");
    await page.context().close();
  });
}

test("the forest plot stays readable on a phone: labels at least 10 px, the plot scrolls sideways, the page does not", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const page = await newPage(browser, SIZES[0], baseURL!);
  await signInAs(page, "pro@metamind.local");
  await page.goto(SEARCH);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  for (const title of HR_TITLES) {
    const card = page.getByTestId("study-card").filter({ has: page.locator("h3", { hasText: title }) });
    await card.getByRole("button", { name: "Add to meta-analysis" }).click();
  }
  await page.goto("/meta-analysis");
  await page.getByRole("button", { name: "Extract Data" }).click();
  for (const title of HR_TITLES) {
    const row = page.getByTestId("data-row").filter({ hasText: title }).first();
    await expect(row).toBeVisible();
    await row.getByTestId("pool-group").fill("vascular events");
  }
  await page.getByRole("button", { name: "Run Analysis" }).click();
  const forest = page.getByTestId("forest-plot").first();
  await expect(forest).toBeVisible({ timeout: 30_000 });
  const sizes = await forest.evaluate((svg: SVGSVGElement) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll("text")].map((t) => ({
      text: t.textContent ?? "",
      px: Number.parseFloat(getComputedStyle(t).fontSize) * scale,
    }));
  });
  expect(sizes.length).toBeGreaterThan(5);
  for (const s of sizes) expect(s.px, `forest plot label "${s.text}"`).toBeGreaterThanOrEqual(10);
  const scroller = page.getByTestId("forest-scroll").first();
  const overflow = await scroller.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow, "the forest plot scrolls sideways inside its box").toBeGreaterThan(0);
  await expectFits(page, SIZES[0].width, "/meta-analysis with a forest plot");
  await page.context().close();
});

test("a newcomer finds the review workflow on the landing page and in the FAQ", async ({ page }) => {
  await page.goto("/");
  const main = page.getByRole("main");
  await expect(main).toContainText("Systematic reviews");
  await expect(main).toContainText("PRISMA");
  await expect(main).toContainText(/screen titles and abstracts/i);
  await expect(main).toContainText(/Import RIS/);
  await expect(main.getByRole("link", { name: "Start a Review" })).toHaveAttribute("href", "/reviews");
  await page.goto("/faq");
  await page.getByText("Can I run a systematic review?").click();
  const answer = page.getByRole("main");
  for (const words of ["Import your database exports", "Screen titles", "PRISMA 2020"])
    await expect(answer).toContainText(words);
  await expect(answer.getByRole("link", { name: "Reviews", exact: true })).toHaveAttribute("href", "/reviews");
});
