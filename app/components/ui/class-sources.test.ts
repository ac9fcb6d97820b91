import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { twMerge } from "tailwind-merge";
import { describe, expect, it } from "vitest";
import { cn } from "~/lib/utils";
import { badgeVariants } from "./badge";
import { buttonVariants } from "./button";

/** Every .tsx file under app/ (the components and routes whose classes go through `cn`). */
function appSources(dir = path.resolve("app")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return appSources(full);
    return entry.name.endsWith(".tsx") && !entry.name.endsWith(".test.tsx") ? [full] : [];
  });
}

/** A class source is conflict-free when tailwind-merge leaves it unchanged. */
const conflictFree = (classes: string) => twMerge(classes) === classes;

describe("cn", () => {
  it("lets a later source override a conflicting utility of an earlier one (tailwind-merge)", () => {
    expect(cn("h-10 px-4 text-sm", "px-2")).toBe("h-10 text-sm px-2");
    expect(cn("text-lg font-semibold", undefined, "text-base")).toBe("font-semibold text-base");
    const compact = false;
    expect(cn("p-4", compact && "p-2", { "p-8": true })).toBe("p-8");
  });

  it("returns a single source as clsx joins it, without building tailwind-merge's class map", () => {
    expect(cn("rounded-md px-4", undefined, false, null, "")).toBe("rounded-md px-4");
    expect(cn({ "font-medium": true, hidden: false })).toBe("font-medium");
    expect(cn()).toBe("");
  });
});

/**
 * Every class the app's sources write in a class list: the tokens of each double-quoted string
 * whose tokens all look like utilities and one of which is a common utility.
 */
function appClassTokens(): string[] {
  const tokens = new Set<string>();
  for (const file of appSources()) {
    for (const match of readFileSync(file, "utf8").matchAll(/"([a-z0-9!:[\]\-/._&=%(),#>*@ ]+)"/g)) {
      if (!/(?:^|[\s:])(?:p|m|px|py|mt|mb|text|bg|flex|grid|w|h|rounded|border|gap)-/.test(match[1]!)) continue;
      for (const token of match[1]!.split(/\s+/)) if (token) tokens.add(token);
    }
  }
  return [...tokens];
}

describe("cn merges exactly when tailwind-merge would change the joined classes", () => {
  it("gives tailwind-merge's result for every ordered pair of the app's own classes", () => {
    const tokens = appClassTokens();
    expect(tokens.length).toBeGreaterThan(300);
    const wrong: string[] = [];
    for (const a of tokens) {
      for (const b of tokens) {
        if (a !== b && cn(a, b) !== twMerge(`${a} ${b}`)) wrong.push(`${a} + ${b}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("joins sources of different families without merging, and merges within a family", () => {
    expect(cn("rounded-xl border border-slate-200 bg-white shadow-sm", "flex flex-col")).toBe(
      "rounded-xl border border-slate-200 bg-white shadow-sm flex flex-col",
    );
    expect(cn("block px-4", "hidden")).toBe("px-4 hidden");
    expect(cn("absolute", "md:relative")).toBe("absolute md:relative");
    expect(cn("size-4", "w-6")).toBe(twMerge("size-4 w-6"));
    expect(cn("truncate", "whitespace-normal")).toBe(twMerge("truncate whitespace-normal"));
    expect(cn("p-2", "[padding:1px]")).toBe(twMerge("p-2 [padding:1px]"));
    expect(cn("h-10 px-4 [&_svg]:size-4", "w-full")).toBe("h-10 px-4 [&_svg]:size-4 w-full");
    expect(cn("h-10 [&_svg]:size-4", "[&_svg]:size-6")).toBe(twMerge("h-10 [&_svg]:size-4 [&_svg]:size-6"));
  });
});

describe("class sources are written conflict-free (so a single source needs no merge)", () => {
  it("every variant and size of Button", () => {
    const variants = ["default", "outline", "ghost", "destructive"] as const;
    const sizes = ["default", "sm", "lg", "icon"] as const;
    for (const variant of variants) {
      for (const size of sizes) {
        const classes = buttonVariants({ variant, size });
        expect(conflictFree(classes), `${variant}/${size}: ${classes}`).toBe(true);
      }
    }
  });

  it("every variant of Badge", () => {
    for (const variant of ["default", "secondary", "outline", "destructive"] as const) {
      expect(conflictFree(badgeVariants({ variant })), variant).toBe(true);
    }
  });

  it("every string literal a component passes to cn first, and every cva base with each of its values", () => {
    const literals: string[] = [];
    for (const file of appSources()) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/\bcn\(\s*"([^"]+)"/g)) literals.push(match[1]!);
      for (const block of text.matchAll(/\bcva\(([\s\S]*?)\n\);/g)) {
        const [base, ...values] = [...block[1]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
        for (const value of values) if (value.includes(" ") || value.includes("-")) literals.push(`${base} ${value}`);
      }
    }
    expect(literals.length).toBeGreaterThan(20);
    expect(literals.filter((classes) => !conflictFree(classes))).toEqual([]);
  });
});
