import { describe, expect, it } from "vitest";
import { subscriptionGivesPro } from "./billing-plan";

const NOW = Date.UTC(2026, 10, 25);
const DAY = 86_400_000;

describe("subscriptionGivesPro", () => {
  it.each([
    ["trialing", NOW + DAY, true],
    ["active", NOW + DAY, true],
    ["active", null, true],
    ["past_due", NOW + DAY, true],
    ["past_due", NOW - 1, false],
    ["past_due", null, false],
    ["canceled", NOW + DAY, false],
    ["unpaid", NOW + DAY, false],
    ["incomplete", NOW + DAY, false],
    ["incomplete_expired", NOW + DAY, false],
    ["paused", NOW + DAY, false],
  ] as const)("%s with period end %s → %s", (status, currentPeriodEnd, expected) => {
    expect(subscriptionGivesPro({ status, currentPeriodEnd }, NOW)).toBe(expected);
  });
});
