import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lintProbe, REPO_ROOT } from "./lint-probe";

const PRIMITIVE = "app/components/ui/dialog.tsx";

/** Every .ts/.tsx file under `dir`, as paths relative to the repository root. */
function sources(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

describe("the one dialog primitive (issue 32 item 3)", () => {
  it("is the only module of app/ that imports @radix-ui/react-dialog", () => {
    const importers = sources("app").filter((file) =>
      /from\s+["']@radix-ui\/react-dialog["']|import\(\s*["']@radix-ui\/react-dialog["']/.test(
        readFileSync(path.join(REPO_ROOT, file), "utf8"),
      ),
    );
    expect(importers).toEqual([PRIMITIVE]);
  });

  it("the lint step rejects Radix Dialog anywhere else in app/", async () => {
    const lint = lintProbe();
    const code = 'import * as Dialog from "@radix-ui/react-dialog";\nexport const Root = Dialog.Root;\n';
    const problems = (filePath: string) => lint(filePath, code);
    expect(await problems("app/components/search/dialog-probe.tsx")).toEqual(["no-restricted-imports@1:1"]);
    expect(await problems("app/routes/dialog-probe.tsx")).toEqual(["no-restricted-imports@1:1"]);
    expect(await problems("app/lib/dialog-probe.ts")).toEqual(["no-restricted-imports@1:1"]);
    expect(await problems(PRIMITIVE)).toEqual([]);
  }, 60_000);
});
