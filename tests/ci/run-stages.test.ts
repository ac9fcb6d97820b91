/**
 * `npm test` runs its steps in stages (scripts/lib/run-stages.mjs): the steps of one stage at the
 * same time, output kept whole per step, and the first failing stage stops the run with its code.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runStages } from "../../scripts/lib/run-stages.mjs";
import { stages } from "../../scripts/lib/test-stages.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `stages` in a fresh folder; returns the exit code, everything written and the folder. */
async function runIn(stageList: string[][]): Promise<{ code: number; text: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "run-stages-"));
  dirs.push(dir);
  let text = "";
  const code = await runStages(stageList, { cwd: dir, write: (chunk: string) => (text += chunk) });
  return { code, text, dir };
}

/** A shell step that prints `words` one at a time, `ms` apart, to stdout. */
const printSlowly = (words: string[], ms: number) =>
  `node -e 'const w=${JSON.stringify(words)};let i=0;const t=setInterval(()=>{process.stdout.write(w[i++]+"\\n");if(i===w.length)clearInterval(t)},${ms})'`;

describe("runStages", () => {
  it("runs a stage's steps at the same time and prints each step's output whole, in the stage's order", async () => {
    const started = performance.now();
    const { code, text } = await runIn([[printSlowly(["a1", "a2", "a3"], 150), printSlowly(["b1", "b2", "b3"], 150)]]);
    const elapsed = performance.now() - started;
    expect(code).toBe(0);
    expect(text.indexOf("a1\na2\na3")).toBeGreaterThan(-1);
    expect(text.indexOf("b1\nb2\nb3")).toBeGreaterThan(text.indexOf("a3"));
    // Side by side: well under the 2 × 450 ms the steps would take one after the other.
    expect(elapsed).toBeLessThan(2 * 450 + 400);
    expect(text).toMatch(/— ok in \d+ s\n.*— ok in \d+ s\ntest: every step passed/s);
  });

  it("stops at the first stage with a failing step, with that step's exit code, after the stage's other steps end", async () => {
    const { code, text, dir } = await runIn([
      ["node -e 'process.exit(0)'"],
      [
        "node -e 'console.error(\"lint said no\"); process.exit(3)'",
        'node -e \'require("fs").writeFileSync("same-stage", "")\'',
      ],
      ['node -e \'require("fs").writeFileSync("later-stage", "")\''],
    ]);
    expect(code).toBe(3);
    expect(text).toContain("lint said no");
    expect(text).toMatch(/failed \(exit 3\)/);
    expect(existsSync(join(dir, "same-stage"))).toBe(true);
    expect(existsSync(join(dir, "later-stage"))).toBe(false);
  });

  it("reports a step killed by a signal as a failure", async () => {
    const { code, text } = await runIn([["node -e 'process.kill(process.pid, \"SIGKILL\")'"]]);
    expect(code).toBeGreaterThan(0);
    expect(text).toMatch(/failed \(exit \d+\)/);
  });
});

describe("npm test's stages", () => {
  it("provisioning and the build before vitest, Playwright last and alone", () => {
    const provisionStage = stages.findIndex((stage) => stage.includes("node scripts/provision.mjs"));
    const buildStage = stages.findIndex((stage) => stage.some((step) => step.includes("npm run build")));
    const vitestStage = stages.findIndex((stage) => stage.includes("vitest run"));
    expect(provisionStage).toBeGreaterThanOrEqual(0);
    expect(buildStage).toBeGreaterThanOrEqual(0);
    expect(vitestStage).toBeGreaterThan(Math.max(provisionStage, buildStage));
    expect(stages.at(-1)).toEqual(["playwright test"]);
    expect(stages.flat()).toEqual(
      expect.arrayContaining([
        "eslint .",
        "prettier --check .",
        "tsc --noEmit",
        "npm run build && npm run check:deploy",
      ]),
    );
  });
});
