/**
 * The README stays a front door that cannot go stale (issue 32): its documentation table links
 * every page under docs/, its code map names every capability folder under app/.server, its quick
 * start is the two commands, docs/configuration.md names every variable and binding the Worker
 * reads, and every relative link in the README and docs/ points at a file that exists.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bindingsInterface, schemaVariables } from "../../scripts/lib/deploy-check.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (p: string) => readFileSync(path.join(ROOT, p), "utf8");
const README = read("README.md");

/** The section of a markdown text under `## title`, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) return "";
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** Relative link targets of a markdown text, without anchors (web links and pure anchors left out). */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith("#"))
    .map((href) => decodeURIComponent(href.split("#")[0]!));
}

const docPages = [
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...readdirSync(path.join(ROOT, "docs/methods"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/methods/${f}`),
];

describe("README as the front door", () => {
  it("keeps the quick start: npm install, npm start, npm test", () => {
    expect(section(README, "Quick start")).toContain("```sh\nnpm install\nnpm start\nnpm test\n```");
  });

  it("links every page under docs/ and the decisions from its documentation table", () => {
    const linked = new Set(
      relativeLinks(section(README, "Documentation")).map((l) => path.normalize(l).replace(/\/$/, "")),
    );
    const missing = [...docPages, "docs/decisions"].filter((p) => !linked.has(p));
    expect(missing).toEqual([]);
  });

  it("names every capability folder under app/.server in its map of the code", () => {
    const map = section(README, "A map of the code");
    const folders = readdirSync(path.join(ROOT, "app/.server"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((f) => !new RegExp(`(^|\\s)${f}/`).test(map))).toEqual([]);
  });

  it("keeps the headings scripts and .ci/run point readers to", () => {
    for (const title of ["Deploy to Cloudflare", "Dependencies"]) expect(section(README, title)).not.toBe("");
  });
});

describe("docs/configuration.md", () => {
  const config = read("docs/configuration.md");
  const envSource = read("app/.server/env.ts");

  it("names every variable of the Worker's EnvSchema and every binding", () => {
    const names = [...schemaVariables(envSource), ...bindingsInterface(envSource).keys()];
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((n) => !config.includes(`\`${n}\``))).toEqual([]);
  });
});

describe("links", () => {
  it("every relative link in the README and docs/ points at an existing file", () => {
    const broken: string[] = [];
    for (const file of ["README.md", ...docPages]) {
      for (const link of relativeLinks(read(file))) {
        const target = path.join(ROOT, path.dirname(file), link);
        if (!existsSync(target)) broken.push(`${file}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
