import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { A11yAudit, DESKTOP } from "./a11y";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Issue 16: axe-core on every page, signed out and signed in, on a desktop and on a phone, with 0
 * serious or critical violations. The pages of APP_PAGES are audited at both sizes inside the
 * sideways-scroll check of new-user.spec.ts (same page visits); this spec audits, at both sizes in
 * the same visits, the pages that need an id or a state: share links, the reset-password page and
 * the Create Account tab signed out; search results and their dialogs, the account menu, the
 * meta-analysis page with a selection and with results (and its report dialog), the profile's
 * tabs, a review and its tabs and /admin as an admin signed in. One browser context per auth
 * state, pages visited one after another.
 */

const SEARCH = `/search?q=${encodeURIComponent("covid vaccination")}&db=europepmc`;
/** Recorded Europe PMC abstracts with hazard ratios and 95% CIs (see meta-analysis.spec.ts). */
const HR_TITLES = [
  "The role of COVID-19 vaccines in preventing post-COVID-19 thromboembolic",
  "Prior COVID-19 vaccination and reduced risk of cerebrovascular",
];

const item = (text: string) => ({ text, source: "S1", general: false });
const exercise = {
  name: "Brisk walking",
  sets: "1",
  reps: "30 min",
  intensity: "moderate",
  rest: "—",
  source: "S1",
  general: false,
};
const meal = {
  name: "Oat porridge",
  ingredients: ["oats", "milk"],
  nutrients: ["fibre"],
  prepTime: "15 min",
  source: null,
  general: true,
};
const STUDY_TITLE = "Supervised aerobic exercise for adults with major depression";

/** Public pages of one share link of each kind (answer, workout, meal plan), made once per run. */
let shareLinks: Promise<string[]> | undefined;
function makeShareLinks(request: APIRequestContext): Promise<string[]> {
  shareLinks ??= (async () => {
    const answer = await request.post("/api/shared-answers", {
      data: {
        id: "a11y-answer",
        question: "Does aerobic exercise ease depression?",
        answer: "Supervised aerobic exercise reduced depressive symptoms in adults [1].",
        studyCount: 1,
        studies: [
          {
            n: 1,
            title: STUDY_TITLE,
            url: "https://pubmed.ncbi.nlm.nih.gov/1/",
            journal: "J Affect Disord",
            year: "2020",
            quotes: ["Depressive symptoms fell more with exercise."],
          },
        ],
        model: "MetaMind Offline Extractive v1",
      },
    });
    const workout = await request.post("/api/shared-plans", {
      data: {
        kind: "workout",
        plan: {
          title: "4-week training program",
          studyTitle: STUDY_TITLE,
          studyId: null,
          model: "MetaMind Offline Extractive v1",
          protocol: [item("Three supervised sessions a week.")],
          warmUp: [item("Five minutes of easy walking.")],
          weeks: [1, 2, 3, 4].map((week) => ({
            week,
            focus: `Week ${week}`,
            sessions: [{ name: "Session 1", duration: "45 min", exercises: [exercise] }],
          })),
          progression: [item("Add five minutes a week.")],
          safetyNotes: [item("Stop if you feel chest pain.")],
          sources: [{ id: "S1", quote: "Participants walked briskly three times a week." }],
          text: "4-week training program",
          generatedAt: "2026-01-01T00:00:00.000Z",
        },
      },
    });
    const days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
    const mealPlan = await request.post("/api/shared-plans", {
      data: {
        kind: "meal-plan",
        plan: {
          executiveSummary: "A week of meals rich in fibre.",
          summary: "Fibre-rich meals.",
          weeklyMealPlan: Object.fromEntries(
            days.map((d) => [d, { breakfast: meal, lunch: meal, dinner: meal, snacks: meal }]),
          ),
          shoppingList: [{ category: "Grains", items: ["oats"] }],
          mealPrepTips: ["Soak oats overnight."],
          nutritionalGuidelines: {
            keyNutrients: ["fibre"],
            dailyTargets: [{ nutrient: "Fibre", amount: "30 g", rationale: "Guidance.", source: null, general: true }],
          },
          researchRationale: "The study fed participants fibre-rich meals.",
          studyId: null,
          studyTitle: STUDY_TITLE,
          model: "MetaMind Offline Extractive v1",
          sources: [{ id: "S1", quote: "Participants ate fibre-rich meals." }],
          generatedAt: "2026-01-01T00:00:00.000Z",
        },
      },
    });
    const urls: string[] = [];
    for (const response of [answer, workout, mealPlan]) {
      expect(response.status(), await response.text()).toBe(201);
      urls.push(new URL(((await response.json()) as { url: string }).url).pathname);
    }
    return urls;
  })();
  return shareLinks;
}

/** Goes to `path`, waits for the page to settle and audits it at both sizes. */
async function visit(page: Page, audit: A11yAudit, path: string, label: string): Promise<void> {
  await page.goto(path);
  await page.waitForLoadState("networkidle");
  await audit.checkDesktopAndPhone(page, `${path} (${label})`);
}

/** The public pages that need an id or a token: share links and the reset-password page. */
async function auditPublicExtras(page: Page, audit: A11yAudit, label: string): Promise<void> {
  for (const path of await makeShareLinks(page.context().request)) await visit(page, audit, path, label);
  await visit(page, audit, "/reset-password?token=not-a-real-token", label);
}

/**
 * The signed-in pages that need a state, as the Professional demo user: search results with the
 * History and citation dialogs and the account menu, the meta-analysis page with two studies
 * selected, then extracted and pooled, with the report dialog, the profile's tabs, a review with
 * its tabs; then /admin as an admin.
 */
async function auditSignedInExtras(page: Page, audit: A11yAudit, label: string): Promise<void> {
  await page.goto(SEARCH);
  await expect(page.getByTestId("search-message")).toBeVisible({ timeout: 30_000 });
  for (const title of HR_TITLES) {
    const card = page.getByTestId("study-card").filter({ has: page.locator("h3", { hasText: title }) });
    await card.getByRole("button", { name: "Add to meta-analysis" }).click();
  }
  await audit.checkDesktopAndPhone(page, `/search with results (${label})`);
  await page.getByTestId("study-card").first().getByTestId("cite-button").click();
  await expect(page.getByTestId("citation-dialog")).toBeVisible();
  await audit.checkDesktopAndPhone(page, `/search citation dialog (${label})`, '[data-testid="citation-dialog"]');
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "History" }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await audit.checkDesktopAndPhone(page, `/search History dialog (${label})`, '[role="dialog"]');
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: /Account menu/ }).click();
  await expect(page.getByRole("menu")).toBeVisible();
  await audit.checkDesktopAndPhone(page, `account menu (${label})`, '[role="menu"]');
  await page.keyboard.press("Escape");

  await visit(page, audit, "/meta-analysis", `with 2 studies, ${label}`);
  await page.getByRole("button", { name: "Extract Data" }).click();
  // The two hazard ratios are for different outcomes: one pool group makes a forest plot.
  for (const title of HR_TITLES) {
    const row = page.getByTestId("data-row").filter({ hasText: title }).first();
    await expect(row).toBeVisible();
    await row.getByTestId("pool-group").fill("vascular events");
  }
  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(page.getByTestId("forest-plot")).toBeVisible({ timeout: 30_000 });
  await audit.checkDesktopAndPhone(page, `/meta-analysis with results (${label})`);
  await page.getByRole("button", { name: "View Report" }).click();
  await expect(page.getByTestId("results-dialog")).toBeVisible();
  await audit.checkDesktopAndPhone(page, `/meta-analysis report dialog (${label})`, '[data-testid="results-dialog"]');
  await page.keyboard.press("Escape");

  await page.goto("/profile");
  for (const tab of ["Saved Reports", "Saved Answers", "Saved Searches", "History"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.waitForLoadState("networkidle");
    await audit.checkDesktopAndPhone(page, `/profile ${tab} tab (${label})`);
  }

  const created = await page.request.post("/api/reviews", {
    data: {
      title: "Accessibility check review",
      question: { text: "Does aerobic exercise reduce depression?" },
      criteria: ["randomised controlled trial"],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  await page.request.post(`/api/reviews/${review.id}/import`, {
    multipart: {
      file: {
        name: "records.ris",
        mimeType: "application/x-research-info-systems",
        buffer: Buffer.from(
          `TY  - JOUR\r\nTI  - ${STUDY_TITLE}\r\nAU  - Okafor, Ada\r\nPY  - 2020\r\nAB  - Depressive symptoms fell more with exercise.\r\nER  - \r\n`,
        ),
      },
    },
  });
  await visit(page, audit, `/reviews/${review.id}`, `Records tab, ${label}`);
  for (const tab of ["Screening", "Full text", "Analysis", "PRISMA"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.waitForLoadState("networkidle");
    await audit.checkDesktopAndPhone(page, `/reviews/{id} ${tab} tab (${label})`);
  }

  // /admin as an admin (the offline server's ADMIN_EMAILS is admin@metamind.local).
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
  await expect(page.getByTestId("stat-total")).toBeVisible();
  await audit.checkDesktopAndPhone(page, `/admin as admin (${label})`);
}

/** The sign-in page's second tab (signed out only: /auth sends a signed-in user home). */
async function auditCreateAccount(page: Page, audit: A11yAudit, label: string): Promise<void> {
  await page.goto("/auth");
  await page.getByRole("tab", { name: "Create Account" }).click();
  await expect(page.getByRole("tabpanel", { name: "Create Account" })).toBeVisible();
  await audit.checkDesktopAndPhone(page, `/auth Create Account tab (${label})`);
}

test("axe: pages with an id or a token, signed out, on a desktop and a phone", async ({ page }) => {
  test.setTimeout(120_000);
  const audit = new A11yAudit();
  await page.setViewportSize(DESKTOP);
  await auditPublicExtras(page, audit, "signed out");
  await auditCreateAccount(page, audit, "signed out");
  expect(audit.serious(), "serious or critical axe violations").toEqual([]);
});

test("axe: pages with an id or a state, signed in, and /admin as an admin, on a desktop and a phone", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const audit = new A11yAudit();
  await page.setViewportSize(DESKTOP);
  await signIn(page, "pro@metamind.local");
  await auditPublicExtras(page, audit, "signed in");
  await auditSignedInExtras(page, audit, "signed in");
  expect(audit.serious(), "serious or critical axe violations").toEqual([]);
});
