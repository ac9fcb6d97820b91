import { appendFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * Every page of the app a user reaches by its address, visited signed out and signed in: the
 * phone-width sideways-scroll check (new-user.spec.ts) and the axe sweep (accessibility.spec.ts)
 * both walk this list. Pages that need an id or a state (a review, a share link, search results,
 * dialogs) are visited by the accessibility spec on top of it.
 */
export const APP_PAGES = [
  "/",
  "/search",
  "/upload",
  "/meta-analysis",
  "/reviews",
  "/faq",
  "/terms",
  "/privacy",
  "/contact",
  "/auth",
  "/forgot-password",
  "/settings",
  "/profile",
  "/admin",
  "/student",
  "/no-such-page",
];

/** The two sizes every page is audited at. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 800 };

/** The axe impacts that fail the sweep (issue 16: 0 serious or critical violations). */
const FAILING = new Set(["serious", "critical"]);

type Impact = "minor" | "moderate" | "serious" | "critical";

/**
 * Runs axe-core (all rules of its default set: WCAG 2.0–2.2 A/AA and best practices) on pages as
 * they are and keeps what it finds, so one test can visit many pages and report every violation
 * at once. With A11Y_REPORT=<file> each audit also appends one JSON line
 * `{label, ms, counts: {minor, moderate, serious, critical}, rules: [id:impact:nodes…]}` to that
 * file (and the first nodes of each violation to `<file>.nodes`).
 */
export class A11yAudit {
  private readonly failures: string[] = [];

  /**
   * Audits the page as it is now under `label` (e.g. "/search (signed in), desktop"); with `within`
   * (a CSS selector: an open dialog or menu) only that part, the page behind it having been audited.
   */
  async check(page: Page, label: string, within?: string): Promise<void> {
    // axe runs in the page itself (legacy mode). Our only frames are the sandboxed report viewers
    // (srcdoc, no scripts): axe's frame mode, which injects itself into every frame, hung in CI
    // when such a frame was re-rendered mid-audit, so each viewer's document is audited on a page
    // of its own instead, at the same size.
    // `iframes: false`: the frame element itself is still audited (its title), not its document.
    let builder = new AxeBuilder({ page }).options({ resultTypes: ["violations"], iframes: false }).setLegacyMode();
    if (within) builder = builder.include(within);
    const viewers = await page
      .locator("iframe[srcdoc]")
      .evaluateAll((frames) => frames.map((f) => f.getAttribute("srcdoc") ?? ""));
    await this.record(label, () => builder.analyze());
    for (const [i, html] of viewers.entries()) {
      const viewer = await page.context().newPage();
      try {
        const size = page.viewportSize();
        if (size) await viewer.setViewportSize(size);
        await viewer.setContent(html);
        await this.record(`${label}, report viewer ${i + 1}`, () =>
          new AxeBuilder({ page: viewer })
            .options({ resultTypes: ["violations"] })
            .setLegacyMode()
            .analyze(),
        );
      } finally {
        await viewer.close();
      }
    }
  }

  /** Runs one axe audit and keeps its serious and critical findings under `label`. */
  private async record(label: string, run: () => ReturnType<AxeBuilder["analyze"]>): Promise<void> {
    const started = Date.now();
    const { violations } = await run();
    const ms = Date.now() - started;
    const counts: Record<Impact, number> = { minor: 0, moderate: 0, serious: 0, critical: 0 };
    for (const v of violations) {
      counts[(v.impact ?? "minor") as Impact] += v.nodes.length;
      if (process.env.A11Y_REPORT)
        appendFileSync(
          `${process.env.A11Y_REPORT}.nodes`,
          `${label} ${v.id}\n${v.nodes
            .slice(0, 3)
            .map(
              (n) =>
                `  ${n.target.join(" ")}\n    ${n.html.slice(0, 300)}\n    ${n.failureSummary?.replace(/\n/g, " ")}`,
            )
            .join("\n")}\n`,
        );
      if (!FAILING.has(v.impact ?? "")) continue;
      const targets = v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(" | ");
      this.failures.push(`${label}: ${v.id} (${v.impact}, ${v.nodes.length}×) ${v.help} — ${targets}`);
    }
    if (process.env.A11Y_REPORT) {
      appendFileSync(
        process.env.A11Y_REPORT,
        `${JSON.stringify({ label, ms, counts, rules: violations.map((v) => `${v.id}:${v.impact}:${v.nodes.length}`) })}\n`,
      );
    }
  }

  /**
   * Audits the page at a desktop size and at a phone size in the same visit (the viewport
   * resized; the layout is CSS-driven), then puts the viewport back as it was.
   */
  async checkDesktopAndPhone(page: Page, label: string, within?: string): Promise<void> {
    const before = page.viewportSize();
    for (const [name, size] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(size);
      await this.check(page, `${label}, ${name}`, within);
    }
    if (before) await page.setViewportSize(before);
  }

  /** Every serious or critical violation found so far, one line each (empty when there is none). */
  serious(): string[] {
    return [...this.failures];
  }
}
