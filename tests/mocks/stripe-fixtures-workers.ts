/**
 * ../shared/fixtures/stripe for tests inside workerd (no host file system there): Vite inlines the
 * files at transform time. Empty when ../shared is absent.
 */
import type { StripeFixtures } from "./stripe";

const PREFIX = "../../../shared/fixtures/stripe/";
const files = import.meta.glob("../../../shared/fixtures/stripe/**/*.json", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

export const stripeFixtures: StripeFixtures = Object.fromEntries(
  Object.entries(files).map(([k, v]) => [k.slice(PREFIX.length), v]),
);
export const hasStripeFixtures = Object.keys(stripeFixtures).length > 0;
