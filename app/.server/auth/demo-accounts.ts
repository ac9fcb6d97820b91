import { inArray } from "drizzle-orm";
import { users } from "../../../db/schema";
import type { AppServices } from "../context";
import { isDevelopment } from "../env";
import { hashPassword } from "./password";

/** Seeded in development only (README): one Free and one Professional account. */
export const DEMO_PASSWORD = "metamind-demo";
export const DEMO_ACCOUNTS = [
  { email: "free@metamind.local", firstName: "Fran", lastName: "Free", plan: "free" as const },
  { email: "pro@metamind.local", firstName: "Pat", lastName: "Pro", plan: "pro" as const },
];

let seeded: Promise<void> | null = null;

async function seed(app: Pick<AppServices, "db">): Promise<void> {
  const emails = DEMO_ACCOUNTS.map((a) => a.email);
  const existing = await app.db.select({ email: users.email }).from(users).where(inArray(users.email, emails));
  const have = new Set(existing.map((r) => r.email));
  for (const account of DEMO_ACCOUNTS) {
    if (have.has(account.email)) continue;
    await app.db
      .insert(users)
      .values({
        id: crypto.randomUUID(),
        email: account.email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        firstName: account.firstName,
        lastName: account.lastName,
        plan: account.plan,
        subscriptionPlatform: account.plan === "pro" ? "web" : null,
      })
      .onConflictDoNothing({ target: users.email });
  }
}

/**
 * Makes sure the demo accounts exist when ENVIRONMENT is development or test; a no-op in
 * production. Runs once per isolate; a failure is retried on the next request.
 */
export async function ensureDemoAccounts(app: Pick<AppServices, "db" | "env">): Promise<void> {
  if (!isDevelopment(app.env)) return;
  seeded ??= seed(app).catch((error: unknown) => {
    seeded = null;
    throw error;
  });
  await seeded;
}
