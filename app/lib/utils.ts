import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/**
 * Joins class names (clsx) and, when more than one source is given, resolves conflicting
 * Tailwind utilities with tailwind-merge (the later source wins: a caller's `className` over a
 * component's own classes). A single source is returned as clsx joins it: each source is written
 * conflict-free (app/components/ui/class-sources.test.ts checks every `cn` literal and the components' variants), so
 * there is nothing to merge, and pages whose first render passes no override never build
 * tailwind-merge's class map (15–23 ms of main-thread time in Node on a 2-core host; several
 * times that on a phone). docs/performance.md, Lighthouse, has the measured effect on /search.
 */
export function cn(...inputs: ClassValue[]): string {
  const sources = inputs.filter(Boolean);
  return sources.length > 1 ? twMerge(clsx(sources)) : clsx(sources);
}
