import { existsSync } from "node:fs";
import { expect, type Page } from "@playwright/test";
import { requireSharedFixtures, SHARED_DIR, test } from "./shared-fixtures";

requireSharedFixtures();
const HAS_STRIPE_FIXTURES = existsSync(`${SHARED_DIR}fixtures/stripe/README.md`);

/** Console errors of the page, except the listed expected ones (a 400 the page handles). */
function watchConsole(page: Page, allowed: RegExp[] = []) {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && !allowed.some((re) => re.test(msg.text()))) errors.push(msg.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

test("a Free user upgrades through (fake) Stripe Checkout, lands on the success page and is Professional", async ({
  page,
  baseURL,
}) => {
  test.skip(!HAS_STRIPE_FIXTURES, "../shared/fixtures/stripe not found: the fake Stripe serves its recorded objects");
  const errors = watchConsole(page);
  await page.goto("/");
  const origin = new URL(baseURL!).origin;
  const email = `e2e-${crypto.randomUUID()}@example.org`;
  expect(
    (
      await page.request.post("/api/register", { data: { email, password: "secret12" }, headers: { Origin: origin } })
    ).status(),
  ).toBe(201);

  await page.goto("/settings");
  await expect(page.getByText("Current Plan: Free")).toBeVisible();
  await expect(page.getByText("7-day free trial. Credit card required, cancel anytime.")).toBeVisible();
  await page.getByRole("button", { name: "Monthly - $9.99/month" }).click();

  await expect(page.getByRole("heading", { name: "Start your 7-day free trial" })).toBeVisible();
  await page.getByRole("button", { name: "Start trial" }).click();

  await page.waitForURL((url) => url.pathname === "/subscription/success");
  expect(new URL(page.url()).searchParams.get("session_id")).toMatch(/^cs_test_/);
  await expect(page.getByRole("heading", { name: "Welcome to Professional!" })).toBeVisible();
  await expect(page.getByTestId("unlocked-features").getByRole("listitem")).toHaveCount(6);
  await expect(page.getByRole("link", { name: "Start Searching" })).toHaveAttribute("href", "/search");

  await page.getByRole("link", { name: "Go to Settings" }).click();
  await expect(page.getByText("Professional Active")).toBeVisible();
  await expect(page.getByText("Web Subscription")).toBeVisible();
  await expect(page.getByRole("button", { name: "Manage Billing" })).toBeVisible();
  const status = await page.request.get(`/api/user/subscription?t=${Date.now()}`);
  expect(await status.json()).toMatchObject({ isPro: true, subscription: { platform: "web" } });

  await page.goto("/settings?success=true");
  await expect(page.getByText("Payment Successful!", { exact: true })).toBeVisible();
  await expect.poll(() => new URL(page.url()).search).toBe("");
  expect(errors).toEqual([]);
});

test("/subscription/success without success or session_id is 'Invalid Access'", async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto("/subscription/success");
  await expect(page.getByRole("heading", { name: "Invalid Access" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to Settings" })).toHaveAttribute("href", "/settings");
  expect(errors).toEqual([]);
});

test("a forgotten password is reset through the e-mailed link (development: console), once", async ({
  page,
  baseURL,
}) => {
  const errors = watchConsole(page, [/status of 400/]);
  const origin = new URL(baseURL!).origin;
  const email = `e2e-${crypto.randomUUID()}@example.org`;
  expect(
    (
      await page.request.post("/api/register", { data: { email, password: "old-secret" }, headers: { Origin: origin } })
    ).status(),
  ).toBe(201);
  await page.context().clearCookies();

  let link: string | null = null;
  page.on("console", (msg) => {
    const match = /Reset link: (\S+)/.exec(msg.text());
    if (match) link = match[1]!;
  });

  await page.goto("/auth");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await page.waitForURL((url) => url.pathname === "/forgot-password");
  await expect(page.getByTestId("dev-notice")).toContainText("reset tokens show in the console");
  const send = page.getByRole("button", { name: "Send Reset Link" });
  await expect(send).toBeDisabled();
  await page.getByLabel("Email").fill(email);
  await send.click();
  await expect(page.getByRole("heading", { name: "Check Your Email" })).toBeVisible();
  await expect(page.getByText("The link expires in 15 minutes and works once.")).toBeVisible();
  await expect.poll(() => link).not.toBeNull();

  await page.goto(link!);
  const submit = page.getByRole("button", { name: "Reset Password" });
  await page.getByLabel("New password", { exact: true }).fill("new-secret");
  await page.getByLabel("Confirm new password", { exact: true }).fill("new-secre");
  await expect(page.getByText("Passwords do not match")).toBeVisible();
  await expect(submit).toBeDisabled();
  await page.getByLabel("Confirm new password", { exact: true }).fill("new-secret");
  await page.getByRole("button", { name: "Show new password" }).click();
  await expect(page.getByLabel("New password", { exact: true })).toHaveAttribute("type", "text");
  await submit.click();
  await expect(page.getByText("Password Reset Complete")).toBeVisible();

  const oldLogin = await page.request.post("/api/login", {
    data: { email, password: "old-secret" },
    headers: { Origin: origin },
  });
  expect(oldLogin.status()).toBe(401);
  const newLogin = await page.request.post("/api/login", {
    data: { email, password: "new-secret" },
    headers: { Origin: origin },
  });
  expect(newLogin.status()).toBe(200);

  await page.goto(link!);
  await expect(page.getByText("Invalid Reset Link")).toBeVisible();
  await page.goto("/reset-password");
  await expect(page.getByText("Invalid Reset Link")).toBeVisible();
  expect(errors).toEqual([]);
});
