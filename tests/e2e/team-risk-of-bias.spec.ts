import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, signIn, test } from "./shared-fixtures";

requireSharedFixtures();

function risFile(): string {
  return [
    "TY  - JOUR",
    "TI  - Supervised aerobic exercise for adults with major depression: a randomised trial (team RoB)",
    "AU  - Okafor, Ada",
    "PY  - 2019",
    `DO  - 10.5555/team-rob-e2e.${Date.now()}`,
    "AB  - Adults with depression were randomised to aerobic exercise or usual care.",
    "ER  - ",
  ].join("\r\n");
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  return errors;
}

/** Answers that give every domain 'low' (effect of assignment); 1.2 overridden per reviewer. */
const LOW: [string, string][] = [
  ["1.1", "Y"],
  ["1.2", "Y"],
  ["1.3", "N"],
  ["2.1", "N"],
  ["2.2", "N"],
  ["2.6", "Y"],
  ["3.1", "Y"],
  ["4.1", "N"],
  ["4.2", "N"],
  ["4.3", "N"],
  ["5.1", "Y"],
  ["5.2", "N"],
  ["5.3", "N"],
];

async function answer(page: Page, answers: [string, string][]): Promise<void> {
  const form = page.getByTestId("rob-form");
  for (const [q, a] of answers) await form.locator(`[data-question="${q}"] input[value="${a}"]`).check();
}

test("dual RoB 2: two reviewers assess a study blind, the differences are highlighted side by side, the owner records the consensus used by the plots", async ({
  page: owner,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const ownerErrors = watchErrors(owner);
  await signIn(owner, "pro@metamind.local");
  const headers = { Origin: baseURL! };
  const created = await owner.request.post("/api/reviews", {
    headers,
    data: { title: "Team risk of bias of exercise trials", question: "aerobic exercise for depression in adults" },
  });
  const { review } = (await created.json()) as { review: { id: string } };
  expect(
    (
      await owner.request.post(`/api/reviews/${review.id}/import`, {
        headers,
        multipart: {
          file: { name: "team.ris", mimeType: "application/x-research-info-systems", buffer: Buffer.from(risFile()) },
        },
      })
    ).status(),
  ).toBe(201);
  const { records } = (await (await owner.request.get(`/api/reviews/${review.id}/records`)).json()) as {
    records: { id: number }[];
  };
  for (const stage of ["title_abstract", "full_text"]) {
    expect(
      (
        await owner.request.post(`/api/reviews/${review.id}/records/${records[0]!.id}/decision`, {
          headers,
          data: { stage, decision: "include" },
        })
      ).status(),
    ).toBe(200);
  }
  expect(
    (
      await owner.request.post(`/api/reviews/${review.id}/outcomes`, {
        headers,
        data: { name: "Response", intervention: "aerobic exercise", comparator: "usual care" },
      })
    ).status(),
  ).toBe(201);
  const invited = (await (
    await owner.request.post(`/api/reviews/${review.id}/members`, {
      headers,
      data: { email: "free@metamind.local", role: "reviewer" },
    })
  ).json()) as {
    invitation: { url: string };
  };

  // The owner switches the review's risk of bias to dual in the Team tab.
  await owner.goto(`/reviews/${review.id}?tab=team`);
  await owner.getByTestId("rob-dual").check();
  await owner.getByTestId("save-rob-mode").click();
  await expect(owner.getByText("Risk-of-bias settings saved", { exact: true })).toBeVisible();

  const context = await browser.newContext();
  const reviewer = await context.newPage();
  const reviewerErrors = watchErrors(reviewer);
  await signIn(reviewer, "free@metamind.local");
  await reviewer.goto(new URL(invited.invitation.url).pathname);
  await reviewer.getByTestId("accept-invitation").click();
  await reviewer.waitForURL((url) => url.pathname === `/reviews/${review.id}`);

  // The owner submits first: allocation not concealed (1.2 N → D1 high), with a support text.
  await owner.getByRole("tab", { name: "Risk of bias" }).click();
  await expect(owner.getByTestId("rob-dual-status")).toHaveText("Not assessed yet");
  await owner.getByTestId("rob-dual-assess").click();
  await answer(
    owner,
    LOW.map(([q, a]) => [q, q === "1.2" ? "N" : a]),
  );
  await owner.getByTestId("rob-form").getByLabel("Support for 1.2").fill("Owner's private note: open allocation list");
  await owner.getByRole("button", { name: "Submit my assessment" }).click();
  await expect(owner.getByTestId("rob-dual-status")).toHaveText("1 of 2 submitted (yours is in)");

  // The reviewer sees that one assessment is in, but nothing of it; assesses on their own (all low).
  await reviewer.getByRole("tab", { name: "Risk of bias" }).click();
  await expect(reviewer.getByTestId("rob-dual-status")).toHaveText("1 of 2 submitted");
  await expect(reviewer.getByTestId("rob-dual-compare")).toHaveCount(0);
  await reviewer.getByTestId("rob-dual-assess").click();
  await expect(reviewer.getByTestId("rob-form").locator('input[type="radio"]:checked')).toHaveCount(1); // only the effect of interest
  await expect(reviewer.getByText("Owner's private note")).toHaveCount(0);
  await answer(reviewer, LOW);
  await reviewer.getByRole("button", { name: "Submit my assessment" }).click();
  await expect(reviewer.getByTestId("rob-dual-status")).toHaveText("Both in: awaiting consensus");

  // Side by side: the differing answer and judgements are highlighted; a reviewer (not resolver) cannot record the consensus.
  await reviewer.getByTestId("rob-dual-compare").click();
  const compare = reviewer.getByTestId("rob-compare");
  await expect(compare.locator("tr[data-differs='true']")).toHaveCount(3);
  await expect(compare.locator("tr[data-item='1.2']")).toHaveAttribute("data-differs", "true");
  await expect(compare.locator("tr[data-item='D1']")).toHaveAttribute("data-differs", "true");
  await expect(compare.locator("tr[data-item='overall']")).toHaveAttribute("data-differs", "true");
  await expect(compare.locator("tr[data-item='D2']")).toHaveAttribute("data-differs", "false");
  await expect(compare.getByTestId("rob-differences")).toHaveText("1 answer differs, 2 judgements differ.");
  await expect(compare.getByTestId("rob-record-consensus")).toHaveCount(0);
  await expect(reviewer.getByTestId("rob-traffic-light")).toHaveCount(0);

  // The owner records the consensus: the agreed answers are filled in, 1.2 is settled (PN → D1 high).
  await owner.reload();
  await owner.getByTestId("rob-dual-compare").click();
  await owner.getByTestId("rob-record-consensus").click();
  const form = owner.getByTestId("rob-form");
  await expect(form.locator('[data-question="1.1"] input[value="Y"]')).toBeChecked();
  await expect(form.locator('[data-question="1.2"] input:checked')).toHaveCount(0);
  await form.locator('[data-question="1.2"] input[value="PN"]').check();
  await owner.getByRole("button", { name: "Record consensus" }).click();
  await expect(owner.getByTestId("rob-consensus-by")).toContainText("Consensus recorded by pro@metamind.local");
  await expect(owner.getByTestId("rob-dual-status")).toHaveText("Consensus recorded");
  await expect(owner.getByTestId("rob-progress")).toHaveText("1 of 1 study with a consensus assessment");
  // The table and the traffic-light plot show the consensus (D1 and overall high).
  const row = owner.getByTestId("rob-study-row");
  await expect(row.locator("[data-judgement='high']")).toHaveCount(2);
  await expect(owner.getByTestId("rob-traffic-light")).toBeVisible();
  await expect(owner.getByTestId("rob-export-audit")).toBeVisible();

  // The Team tab: the RoB agreement and the activity log.
  await owner.getByRole("tab", { name: "Team" }).click();
  await expect(owner.getByTestId("activity")).toContainText(
    "recorded the consensus risk-of-bias assessment (Response)",
  );
  await expect(owner.getByTestId("activity")).toContainText(
    "free@metamind.local submitted their risk-of-bias assessment (Response)",
  );
  await expect(owner.getByTestId("rob-agreement")).toContainText("Overall");
  await expect(owner.getByTestId("member-progress").first()).toContainText("RoB assessed 1");

  expect(ownerErrors).toEqual([]);
  expect(reviewerErrors).toEqual([]);
  await context.close();
});
