import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/**
 * Utilities whose first word differs although they can set the same CSS property: the families
 * (display, position, inset, padding, margin, width, height, text and the properties text utilities
 * share, alignment, …) of each first word; a word may belong to several ("flex" is a display and
 * sets a flex item's size, "line-clamp" sets display and overflow). A word not listed is its own
 * family. The grouping is coarser than tailwind-merge's class groups on purpose: two
 * classes of one family may still not conflict, but two classes of different families never do
 * (app/components/ui/class-sources.test.ts checks every pair of the app's own classes against
 * tailwind-merge).
 */
const FAMILY = new Map<string, string[]>();
for (const [family, words] of Object.entries({
  display: ["block", "inline", "flex", "table", "grid", "contents", "list", "hidden", "flow", "sr", "not", "line"],
  flexItem: ["flex", "grow", "shrink", "basis", "order"],
  position: ["static", "fixed", "absolute", "relative", "sticky"],
  visibility: ["visible", "invisible", "collapse"],
  inset: ["inset", "top", "right", "bottom", "left", "start", "end"],
  padding: ["p", "px", "py", "pt", "pr", "pb", "pl", "ps", "pe"],
  margin: ["m", "mx", "my", "mt", "mr", "mb", "ml", "ms", "me"],
  width: ["w", "size", "min", "max"],
  height: ["h", "size", "min", "max"],
  text: ["text", "leading", "truncate", "whitespace", "overflow", "break", "line", "wrap", "hyphens"],
  fontStyle: ["font", "italic", "not"],
  numericCase: [
    "normal",
    "uppercase",
    "lowercase",
    "capitalize",
    "tabular",
    "lining",
    "ordinal",
    "slashed",
    "oldstyle",
    "proportional",
    "diagonal",
    "stacked",
  ],
  decoration: ["underline", "overline", "no", "decoration"],
  smoothing: ["antialiased", "subpixel"],
  alignment: ["items", "justify", "content", "self", "place", "align"],
  isolation: ["isolate", "isolation"],
})) {
  for (const word of words) FAMILY.set(word, [...(FAMILY.get(word) ?? []), family]);
}

/** A class that must always go through tailwind-merge (arbitrary values and properties). */
const ANY_FAMILY = "*";

/** The index after a class's variants (`md:`, `[&_svg]:`): after its last `:` outside brackets. */
function utilityStart(token: string): number {
  let depth = 0;
  let start = 0;
  for (let i = 0; i < token.length; i++) {
    const char = token[i];
    if (char === "[") depth++;
    else if (char === "]") depth--;
    else if (char === ":" && depth === 0) start = i + 1;
  }
  return start;
}

/**
 * The families of one class: variants, `!` and a leading `-` removed, then {@link FAMILY} of its
 * first word; an arbitrary value or property (`w-[3px]`, `[mask-type:alpha]`) matches every family.
 */
function classFamilies(token: string): string[] {
  const utility = token.slice(utilityStart(token)).replace(/^!|!$/g, "").replace(/^-/, "");
  if (utility.includes("[") || utility.includes("(")) return [ANY_FAMILY];
  const word = utility.split("-", 1)[0]!;
  return FAMILY.get(word) ?? [word];
}

/**
 * True when two of the class sources may hold conflicting utilities: a class family occurs in more
 * than one source, or a source has an arbitrary value. Sources that share no family are joined
 * as they are, which is what tailwind-merge would return for them.
 */
function mayConflict(sources: string[]): boolean {
  const seen = new Map<string, number>();
  for (const [index, source] of sources.entries()) {
    for (const token of source.split(/\s+/)) {
      if (!token) continue;
      for (const family of classFamilies(token)) {
        if (family === ANY_FAMILY) return true;
        const first = seen.get(family);
        if (first !== undefined && first !== index) return true;
        seen.set(family, index);
      }
    }
  }
  return false;
}

/**
 * Joins class names (clsx) and, when two sources may conflict, resolves conflicting Tailwind
 * utilities with tailwind-merge (the later source wins: a caller's `className` over a component's
 * own classes). Each source is written conflict-free (app/components/ui/class-sources.test.ts
 * checks every `cn` literal and the components' variants), so a single source, or sources that
 * share no class family (`mayConflict`: a caller adding `flex flex-col` to a card's border and
 * colours), are returned as clsx joins them, and pages whose first render needs no merge never
 * build tailwind-merge's class map (15–23 ms of main-thread time in Node on a 2-core host; several
 * times that on a phone). docs/performance.md, Lighthouse, has the measured effect.
 */
export function cn(...inputs: ClassValue[]): string {
  const sources = inputs.map((input) => clsx(input)).filter(Boolean);
  const joined = sources.join(" ");
  return sources.length > 1 && mayConflict(sources) ? twMerge(joined) : joined;
}
