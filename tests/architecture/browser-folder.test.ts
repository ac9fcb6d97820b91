import { describe, expect, it } from "vitest";
import { lintProbe } from "./lint-probe";

describe("browser-only code lives in app/browser (ADR 0043)", () => {
  const problems = lintProbe();

  it("app/lib imports neither app/browser nor React", async () => {
    const code = [
      'import { toast } from "~/browser/toast";',
      'import { robApi } from "../browser/risk-of-bias-client";',
      'import { useState } from "react";',
      'import { escalc } from "./meta-analysis";',
      "export const probe = [toast, robApi, useState, escalc];",
    ].join("\n");
    expect(await problems("app/lib/boundary-probe.ts", code)).toEqual([
      "no-restricted-imports@1:1",
      "no-restricted-imports@2:1",
      "no-restricted-imports@3:1",
    ]);
  }, 60_000);

  it("app/lib uses no browser globals; a local of the same name is fine", async () => {
    const code = [
      'export const a = () => localStorage.getItem("k");',
      'export const b = () => fetch("/api/health");',
      "export const c = () => window.location.href;",
      "export const d = (document: string) => document.length;",
    ].join("\n");
    expect(await problems("app/lib/boundary-probe.ts", code)).toEqual([
      "no-restricted-globals@1:24",
      "no-restricted-globals@2:24",
      "no-restricted-globals@3:24",
    ]);
  }, 60_000);

  it("server code never imports app/browser", async () => {
    const code = 'import { toast } from "../../browser/toast";\nexport const probe = toast;\n';
    expect(await problems("app/.server/search/boundary-probe.ts", code)).toEqual(["no-restricted-imports@1:1"]);
  }, 60_000);

  it("app/browser may use browser globals, React and app/lib", async () => {
    const code = [
      'import { useState } from "react";',
      'import { formatFileSize } from "~/lib/uploads";',
      'export const probe = () => [useState, formatFileSize, localStorage.getItem("k"), fetch("/api/health")];',
    ].join("\n");
    expect(await problems("app/browser/boundary-probe.ts", code)).toEqual([]);
  }, 60_000);
});
