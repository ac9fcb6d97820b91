import { describe, expect, it } from "vitest";
import { sharePath } from "./sharing";

describe("sharing (SPEC §8)", () => {
  it("names the public paths", () => {
    expect(sharePath("answer", "x")).toBe("/answer/x");
    expect(sharePath("workout", "x")).toBe("/workout/x");
    expect(sharePath("meal-plan", "x")).toBe("/meal-plan/x");
  });
});
