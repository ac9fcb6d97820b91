import { expect, type Page } from "@playwright/test";

/**
 * Streamed text, as a browser test sees it: every text length the first element matching `selector`
 * passes through (anywhere in the document, so also inside dialog portals), recorded from now on by
 * a MutationObserver; `recordedTextLengths` reads them back.
 */
export async function recordTextLengths(page: Page, selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const lengths: number[] = [];
    (window as unknown as { __lengths: number[] }).__lengths = lengths;
    new MutationObserver(() => {
      const el = document.querySelector(sel);
      if (el) lengths.push(el.textContent?.length ?? 0);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, selector);
}

/** The lengths recorded since `recordTextLengths`, in the order they were seen. */
export async function recordedTextLengths(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { __lengths: number[] }).__lengths);
}

/**
 * Expects text that was streamed, not drawn whole: at least two distinct partial lengths between
 * an empty (or one-character placeholder) element and the longest text seen. One per token is not
 * asked for: a loaded machine may paint several tokens at once.
 */
export function expectStreamed(lengths: number[], what: string): void {
  const longest = Math.max(0, ...lengths);
  const partial = new Set(lengths.filter((length) => length > 1 && length < longest));
  expect(
    partial.size,
    `${what} streamed in: partial lengths seen ${[...partial].join(", ") || "none"}`,
  ).toBeGreaterThanOrEqual(2);
}
