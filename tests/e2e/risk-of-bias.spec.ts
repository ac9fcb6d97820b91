import { readFileSync } from "node:fs";
import { expect, type Locator, type Page } from "@playwright/test";
import { A11yAudit } from "./a11y";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

/**
 * Risk of bias (issue 28): a reviewer assesses two studies with RoB 2 in the review's Risk of bias
 * tab (a text suggestion confirmed, a domain override with its justification), sees the
 * traffic-light plot, rates GRADE's indirectness down, runs the meta-analysis with the sensitivity analysis by risk of bias and
 * exports the Summary of Findings table; and the tab at phone width. Invented trials.
 */

const STUDIES = [
  {
    author: "Adebayo, Kemi",
    title: "Zelmoxan versus placebo in sepsis: a randomised trial",
    abstract:
      "Participants were allocated using a computer-generated random sequence. We randomised 198 adults to zelmoxan (n = 100) or placebo (n = 98). Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group.",
  },
  {
    author: "Brennan, Liam",
    title: "Zelmoxan in older adults with sepsis",
    abstract:
      "Patients were randomised to zelmoxan (n = 150) or placebo (n = 152). Mortality occurred in 18/150 patients given zelmoxan compared with 30/152 given placebo.",
  },
  {
    author: "Castro, Marta",
    title: "Early zelmoxan for septic shock",
    abstract:
      "In this trial 240 patients received zelmoxan or placebo (120 per group). Mortality was 25/120 with zelmoxan versus 31/120 with placebo.",
  },
];

/** Answers that make every domain 'low' (effect of assignment). */
const LOW: Record<string, string> = {
  "1.1": "Y",
  "1.2": "Y",
  "1.3": "N",
  "2.1": "N",
  "2.2": "N",
  "2.6": "Y",
  "3.1": "Y",
  "4.1": "N",
  "4.2": "N",
  "4.3": "N",
  "5.1": "Y",
  "5.2": "N",
  "5.3": "N",
};
const WORDS: Record<string, string> = {
  Y: "Yes",
  PY: "Probably yes",
  PN: "Probably no",
  N: "No",
  NI: "No information",
};

let pageErrors: string[] = [];
test.beforeEach(({ page }) => {
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
});
test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

/** A review with the three trials included at full text and the outcome 'mortality', through the API. */
async function setUpReview(page: Page, origin: string, title: string): Promise<string> {
  const headers = { Origin: origin };
  const created = await page.request.post("/api/reviews", {
    headers,
    data: { title, question: { intervention: "zelmoxan", comparator: "placebo" } },
  });
  expect(created.status()).toBe(201);
  const { review } = (await created.json()) as { review: { id: string } };
  const ris = STUDIES.map(
    (s, i) => `TY  - JOUR\r\nTI  - ${s.title}\r\nAU  - ${s.author}\r\nPY  - 202${i}\r\nAB  - ${s.abstract}\r\nER  - `,
  ).join("\r\n\r\n");
  const imported = await page.request.post(`/api/reviews/${review.id}/import`, {
    headers,
    multipart: {
      file: { name: "trials.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(ris) },
    },
  });
  expect(imported.status()).toBe(201);
  const { records } = (await (await page.request.get(`/api/reviews/${review.id}/records`)).json()) as {
    records: { id: number }[];
  };
  for (const r of records) {
    for (const stage of ["title_abstract", "full_text"]) {
      expect(
        (
          await page.request.post(`/api/reviews/${review.id}/records/${r.id}/decision`, {
            headers,
            data: { stage, decision: "include" },
          })
        ).status(),
      ).toBe(200);
    }
  }
  const outcome = await page.request.post(`/api/reviews/${review.id}/outcomes`, {
    headers,
    data: { name: "mortality", intervention: "zelmoxan", comparator: "placebo" },
  });
  expect(outcome.status()).toBe(201);
  return review.id;
}

async function answer(form: Locator, id: string, value: string): Promise<void> {
  await form
    .locator(`[data-question="${id}"]`)
    .getByRole("radio", { name: `${value} (${WORDS[value]})` })
    .check();
}

async function answerAll(form: Locator, answers: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(answers)) await answer(form, id, value);
}

test("a reviewer assesses two studies, sees the traffic-light plot, runs the sensitivity analysis and exports the Summary of Findings", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "pro@metamind.local");
  const reviewId = await setUpReview(
    page,
    new URL(baseURL ?? page.url()).origin,
    "Zelmoxan in sepsis: risk of bias (e2e)",
  );

  await page.goto(`/reviews/${reviewId}`);
  await page.getByRole("tab", { name: "Risk of bias" }).click();
  await expect(page.getByTestId("rob-progress")).toHaveText("0 of 3 studies assessed");

  // Study 1: the text's explicit sentence proposes 'Y' for 1.1; the reviewer confirms it and answers the rest (all low).
  await page.getByRole("button", { name: "Assess Adebayo 2020" }).click();
  const form = page.getByTestId("rob-form");
  await form.getByTestId("rob-find-suggestions").click();
  const q11 = form.locator('[data-question="1.1"]');
  await expect(q11.getByTestId("rob-suggestions").locator("mark").first()).toHaveText(/computer-generated/i);
  await q11.getByTestId("rob-use-proposed").first().click();
  await expect(q11.getByRole("radio", { name: "Y (Yes)" })).toBeChecked();
  await q11.getByRole("button", { name: "Quote as support" }).first().click();
  await expect(q11.getByRole("list", { name: "Quotes supporting 1.1" })).toContainText(
    "computer-generated random sequence",
  );
  // 2.3 is asked only when participants or carers knew the assignment.
  await expect(form.locator('[data-question="2.3"]')).toHaveCount(0);
  await answer(form, "2.1", "Y");
  await expect(form.locator('[data-question="2.3"]')).toHaveCount(1);
  await answerAll(form, { ...LOW, "1.1": "Y" });
  await expect(form.locator('[data-question="2.3"]')).toHaveCount(0);
  await expect(form.locator('[data-domain="D1"] [data-testid="rob-proposed"]')).toContainText("Low");
  await expect(form.getByTestId("rob-overall")).toContainText("Low");
  await form.getByTestId("rob-save").click();
  await expect(page.getByTestId("rob-progress")).toHaveText("1 of 3 studies assessed");

  // Study 2: allocation not concealed → D1 high; the reviewer changes D5 to some concerns, with a justification.
  await page.getByRole("button", { name: "Assess Brennan 2021" }).click();
  await answerAll(form, { ...LOW, "1.2": "N" });
  await expect(form.locator('[data-domain="D1"] [data-testid="rob-proposed"]')).toContainText("High");
  await form.getByLabel("Change the D5 judgement").selectOption("some_concerns");
  await form.getByTestId("rob-save").click();
  await expect(form.getByRole("alert")).toContainText("Give a justification for the changed judgement of D5");
  await form
    .locator('[data-domain="D5"]')
    .getByLabel("Justification (required)")
    .fill("The trial registry lists a second, unreported scale.");
  await form.getByTestId("rob-save").click();
  await expect(page.getByTestId("rob-progress")).toHaveText("2 of 3 studies assessed");

  // The traffic-light plot: two studies, robvis colours and glyphs.
  const traffic = page.getByTestId("rob-traffic-light");
  await expect(traffic.locator("g[data-study]")).toHaveCount(2);
  await expect(traffic.locator('g[data-study="Brennan 2021"] circle[data-domain="D1"]')).toHaveAttribute(
    "data-judgement",
    "high",
  );
  await expect(traffic.locator('g[data-study="Brennan 2021"] circle[data-domain="D5"]')).toHaveAttribute(
    "data-judgement",
    "some_concerns",
  );
  await expect(traffic.locator('g[data-study="Adebayo 2020"] circle[data-domain="overall"]')).toHaveAttribute(
    "fill",
    "#02C100",
  );
  await expect(page.getByTestId("rob-summary-plot").locator("svg")).toBeVisible();
  await page.getByRole("button", { name: "Edit Brennan 2021" }).click();
  await expect(form).toBeVisible();
  const audit = new A11yAudit();
  await audit.check(page, "Risk of bias tab with an assessment open, desktop");
  expect(audit.serious(), "serious or critical axe violations").toEqual([]);
  await form.getByRole("button", { name: "Close" }).click();

  // GRADE for the outcome: the reviewer rates indirectness down, with a justification (stored with the review).
  const grade = page.getByTestId("grade-settings");
  await grade.getByLabel("Indirectness").selectOption("-1");
  await grade.getByLabel("Justification for indirectness").fill("Only adults over 65 were enrolled.");
  await grade.getByTestId("grade-save").click();
  await expect(grade.getByRole("status")).toContainText("GRADE settings saved");

  // The review's own Analysis tab: the Summary of Findings of the pooled outcome, with the stored GRADE settings and RoB 2 judgements.
  await page.getByRole("tab", { name: "Analysis" }).click();
  const reviewSof = page.getByTestId("review-analysis").getByTestId("summary-of-findings");
  await expect(reviewSof.getByTestId("sof-row")).toHaveCount(1);
  await expect(reviewSof.getByTestId("sof-row")).toContainText("(3 studies)");
  await expect(reviewSof.getByTestId("sof-certainty")).toContainText(/[⊕◯]{4}/);
  await expect(reviewSof.getByTestId("sof-footnotes")).toContainText(
    "Rated down one level for indirectness: Reviewer's judgement: Only adults over 65 were enrolled.",
  );
  const [tabDownload] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("analysis-sof-csv").click(),
  ]);
  expect(tabDownload.suggestedFilename()).toBe("mortality-summary-of-findings.csv");
  const tabCsv = readFileSync((await tabDownload.path())!, "utf8");
  expect(tabCsv.split("\r\n")[0]).toBe(
    "Outcome,No of participants (studies),Certainty of the evidence (GRADE),Relative effect (95% CI),Risk with comparator,Risk difference with intervention (95% CI),Footnotes",
  );
  expect(tabCsv).toMatch(/\r\nmortality,\d+ \(3 studies\),/);
  await page.getByRole("tab", { name: "Risk of bias" }).click();

  // The meta-analysis from the review: RoB column, sensitivity analysis, Summary of Findings (assumed control risk entered).
  await page.getByTestId("rob-open-meta-analysis").click();
  await page.waitForURL(/\/meta-analysis\?review=/);
  await expect(page.getByTestId("rob-from-review")).toBeVisible();
  await expect(page.getByTestId("grade-from-review")).toBeVisible();
  await expect(page.getByTestId("meta-page-study")).toHaveCount(3);
  await page.getByTestId("assumed-control-risk").fill("150");
  await page.getByRole("button", { name: "Run Analysis" }).click();
  await expect(page.getByTestId("summary-estimate").first()).toBeVisible({ timeout: 60_000 });
  const marks = page.getByTestId("forest-plot").first().getByTestId("forest-rob");
  await expect(marks).toHaveCount(3);
  await expect(page.getByTestId("forest-plot").first().locator('[data-judgement="high"]')).toHaveCount(1);
  const sensitivity = page.getByTestId("rob-sensitivity");
  await expect(sensitivity.getByTestId("rob-sensitivity-row")).toHaveCount(3);
  await expect(sensitivity.locator('[data-scenario="without_high"]')).toContainText("Without high risk of bias");
  await expect(sensitivity.locator('[data-scenario="without_high"] td').first()).toHaveText("2");
  await expect(sensitivity.locator('[data-scenario="low_only"]')).toContainText("Only 1 study remains");
  const sof = page.getByTestId("summary-of-findings");
  await expect(sof.getByTestId("sof-row")).toHaveCount(1);
  await expect(sof.getByTestId("sof-row")).toContainText("150 per 1,000");
  await expect(sof.getByTestId("sof-certainty")).toContainText(/[⊕◯]{4}/);
  await expect(sof.getByTestId("sof-footnotes")).toContainText(
    "Rated down one level for indirectness: Reviewer's judgement: Only adults over 65 were enrolled.",
  );
  await expect(page.getByTestId("grade-computed").first()).toContainText("Computed: Not serious");
  await expect(page.getByTestId("rob-traffic-light-0").locator("g[data-study]")).toHaveCount(2);

  await page.getByRole("button", { name: "Export Results" }).click();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-sof").click()]);
  expect(download.suggestedFilename()).toMatch(/-summary-of-findings\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toBe(
    "Outcome,No of participants (studies),Certainty of the evidence (GRADE),Relative effect (95% CI),Risk with comparator,Risk difference with intervention (95% CI),Footnotes",
  );
  expect(csv).toMatch(/\r\nmortality,\d+ \(3 studies\),/);
  expect(csv).toContain('"150 per 1,000"');
});

test("the Risk of bias tab works at phone width: assess a study by keyboard, no sideways scrolling of the page", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "pro@metamind.local");
  const reviewId = await setUpReview(
    page,
    new URL(baseURL ?? page.url()).origin,
    "Zelmoxan in sepsis: RoB on a phone (e2e)",
  );
  await page.goto(`/reviews/${reviewId}?tab=risk-of-bias`);
  await page.getByRole("button", { name: "Assess Castro 2022" }).click();
  const form = page.getByTestId("rob-form");
  // Keyboard: focus the first answer of 1.1 and move with the arrow keys (native radio group).
  await form.locator('[data-question="1.1"]').getByRole("radio", { name: "Y (Yes)" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(form.locator('[data-question="1.1"]').getByRole("radio", { name: "PY (Probably yes)" })).toBeChecked();
  await answerAll(form, { ...LOW, "1.1": "PY", "3.1": "N", "3.2": "N", "3.3": "Y", "3.4": "PY" });
  await expect(form.locator('[data-domain="D3"] [data-testid="rob-proposed"]')).toContainText("High");
  await form.getByTestId("rob-save").click();
  await expect(page.getByTestId("rob-progress")).toHaveText("1 of 3 studies assessed");
  await expect(page.getByTestId("rob-traffic-light").locator("g[data-study]")).toHaveCount(1);
  await page.getByRole("button", { name: "Assess Adebayo 2020" }).click();
  const audit = new A11yAudit();
  await audit.check(page, "Risk of bias tab with an assessment open, phone");
  expect(audit.serious(), "serious or critical axe violations").toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
