/**
 * .ci/run refuses to run the suite without the shared test data (issue 32): copied into a repository
 * whose parent holds no `shared/`, or only part of it, it stops with one line naming what is
 * missing, before installing anything (a fake `npm` on PATH records whether it was called).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const CI_RUN = fileURLToPath(new URL("../../.ci/run", import.meta.url));
const dirs: string[] = [];

/** A parent folder with repo/.ci/run and a fake npm; `shared` lists the data paths to create. */
function sandbox(shared: string[]): { parent: string; run: () => ReturnType<typeof spawnSync>; npmLog: string } {
  const parent = mkdtempSync(join(tmpdir(), "ci-run-"));
  dirs.push(parent);
  mkdirSync(join(parent, "repo/.ci"), { recursive: true });
  copyFileSync(CI_RUN, join(parent, "repo/.ci/run"));
  chmodSync(join(parent, "repo/.ci/run"), 0o755);
  for (const path of shared) {
    const full = join(parent, "shared", path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, "");
  }
  const bin = join(parent, "bin");
  const npmLog = join(parent, "npm.log");
  mkdirSync(bin);
  writeFileSync(join(bin, "npm"), `#!/usr/bin/env bash\necho "$@" >> ${JSON.stringify(npmLog)}\n`);
  chmodSync(join(bin, "npm"), 0o755);
  const run = () =>
    spawnSync("bash", [join(parent, "repo/.ci/run")], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
  return { parent, run, npmLog };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe(".ci/run and ../shared", () => {
  it("fails with one line naming the missing folder when ../shared is absent, before npm ci", () => {
    const { parent, run, npmLog } = sandbox([]);
    const res = run();
    expect(res.status).toBe(1);
    const lines = String(res.stderr).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`ci: test data missing: ${parent}/shared lacks fixtures/providers/API_NOTES.md`);
    expect(existsSync(npmLog)).toBe(false);
  });

  it("names only the parts that are missing", () => {
    const { run, npmLog } = sandbox([
      "fixtures/providers/API_NOTES.md",
      "fixtures/stripe/x.json",
      "pdfs/provenance.json",
      "metaref/README.md",
      "screening/Sep_2021.csv",
    ]);
    const res = run();
    expect(res.status).toBe(1);
    expect(String(res.stderr)).toMatch(/lacks extraction-arms\/dev\.jsonl \(/);
    expect(existsSync(npmLog)).toBe(false);
  });

  it("goes on to npm ci and npm test when every part is there", () => {
    const { run, npmLog } = sandbox([
      "fixtures/providers/API_NOTES.md",
      "fixtures/stripe/x.json",
      "pdfs/provenance.json",
      "extraction-arms/dev.jsonl",
      "metaref/README.md",
      "screening/Sep_2021.csv",
    ]);
    const res = run();
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    expect(readFileSync(npmLog, "utf8").trim().split("\n")).toEqual(["ci --no-audit --no-fund", "test"]);
  });
});
