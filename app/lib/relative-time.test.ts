import { describe, expect, it } from "vitest";
import { formatRelativeTime } from "./relative-time";

const now = new Date("2025-07-09T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const MIN = 60_000;

describe("formatRelativeTime", () => {
  it("counts minutes, hours and days", () => {
    expect(formatRelativeTime(ago(30_000), now)).toBe("just now");
    expect(formatRelativeTime(ago(-10_000), now)).toBe("just now");
    expect(formatRelativeTime(ago(MIN), now)).toBe("1 minute ago");
    expect(formatRelativeTime(ago(5 * MIN), now)).toBe("5 minutes ago");
    expect(formatRelativeTime(ago(60 * MIN), now)).toBe("1 hour ago");
    expect(formatRelativeTime(ago(2 * 60 * MIN + 59 * MIN), now)).toBe("2 hours ago");
    expect(formatRelativeTime(ago(24 * 60 * MIN), now)).toBe("yesterday");
    expect(formatRelativeTime(ago(3 * 24 * 60 * MIN), now)).toBe("3 days ago");
    expect(formatRelativeTime(ago(6 * 24 * 60 * MIN + 23 * 60 * MIN), now)).toBe("6 days ago");
  });

  it("shows a date from a week on, for future times, and nothing for garbage", () => {
    expect(formatRelativeTime("2025-03-05T12:00:00Z", now)).toBe("5 Mar 2025");
    expect(formatRelativeTime(ago(7 * 24 * 60 * MIN), now)).toBe("2 Jul 2025");
    expect(formatRelativeTime("2025-07-20T12:00:00Z", now)).toBe("20 Jul 2025");
    expect(formatRelativeTime("not a date", now)).toBe("");
  });
});
