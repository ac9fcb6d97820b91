import { afterEach, beforeEach, vi } from "vitest";

/**
 * A test fails on an unexpected console.error. Tests that expect one call
 * `expectConsoleError()` (or spy on console.error themselves) before triggering it.
 */
let spy: { mock: { calls: unknown[][] }; mockRestore: () => void } | undefined;
let expected = false;

export function expectConsoleError(): void {
  expected = true;
}

beforeEach(() => {
  expected = false;
  spy = vi.spyOn(console, "error");
});

afterEach(() => {
  const calls = spy?.mock.calls ?? [];
  spy?.mockRestore();
  if (!expected && calls.length > 0) {
    throw new Error(`Unexpected console.error: ${calls.map((c: unknown[]) => c.map(String).join(" ")).join("\n")}`);
  }
});
