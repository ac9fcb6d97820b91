/**
 * Password reset by e-mail (SPEC §2 Forgot/Reset password, §7 calls, §9 15-minute expiry).
 *
 * Token rules: 32 random bytes (256 bits) from the Web Crypto CSPRNG, sent base64url-encoded (43
 * characters); only their SHA-256 is stored; a token works once and for 15 minutes; a new request
 * replaces the account's older unused tokens; a successful reset changes the password, ends every
 * session of the account and deletes the account's other tokens, all in one D1 batch (a
 * transaction). The request answer is the same whether or not the account exists.
 */
import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { passwordResetTokens, sessions, users } from "../../../db/schema";
import type { AppServices } from "../context";
import { sendEmail } from "../email/send";
import { passwordResetEmail } from "../email/templates";
import { isDevelopment } from "../env";
import { AppError } from "../http/errors";
import { clientIp } from "../security/client-ip";
import { enforceRateLimits, RATE_LIMITS } from "../security/rate-limit";
import { hashPassword } from "./password";

/** Link lifetime (SPEC §9). */
export const RESET_TOKEN_TTL_MS = 15 * 60 * 1000;
/** Random bytes per token: 256 bits. */
export const RESET_TOKEN_BYTES = 32;
/** The one answer to every accepted forgot-password request. */
export const RESET_REQUESTED_MESSAGE =
  "If an account exists for that email, we sent a link to reset its password. It expires in 15 minutes.";
export const INVALID_TOKEN_MESSAGE = "This reset link is invalid or has expired";
export const RESET_DONE_MESSAGE = "Your password has been successfully reset";

/** A token as sent: 43 base64url characters (32 bytes, unpadded). */
export const ResetTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const ForgotPasswordSchema = z.object({
  email: z
    .string({ error: "Email is required" })
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: "Invalid email address" }).max(254, "Invalid email address")),
});

export const ResetPasswordSchema = z.object({
  token: z.string({ error: "Reset token is required" }).min(1, "Reset token is required").max(200),
  newPassword: z
    .string({ error: "Password must be at least 6 characters long" })
    .min(6, "Password must be at least 6 characters long")
    .max(1024, "Password is too long"),
});

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** SHA-256 of a token, hex: what the table stores and looks up. */
export async function hashResetToken(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A new token (256 random bits, base64url). */
export function newResetToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(RESET_TOKEN_BYTES)));
}

/** The reset page's address for a token: `{APP_URL or origin}/reset-password?token=…`. */
export function resetLink(origin: string, token: string): string {
  const url = new URL("/reset-password", origin);
  url.searchParams.set("token", token);
  return url.toString();
}

type ResetApp = Pick<AppServices, "db" | "env" | "fetch" | "waitUntil">;

/** The forgot-password answer; `debugToken` only in development without an e-mail API. */
export interface ForgotPasswordResult {
  message: string;
  debugToken?: string;
}

/**
 * Handles POST /api/auth/forgot-password {email}. Counts the request against the per-IP (10/h) and
 * per-e-mail (3/h) limits first (atomic, whether or not the account exists), then, for an existing
 * account, stores a new token (replacing older unused ones) and sends the link by e-mail. Without
 * an e-mail API in development the link is printed to the console and the token returned as
 * `debugToken`.
 * @throws AppError 429 RATE_LIMITED (Retry-After); 502 EMAIL_FAILED when the provider refuses.
 */
export async function requestPasswordReset(
  app: ResetApp,
  request: Request,
  input: z.infer<typeof ForgotPasswordSchema>,
  now: number = Date.now(),
): Promise<ForgotPasswordResult> {
  await enforceRateLimits(app, [
    { rule: RATE_LIMITS.passwordResetPerIp, subject: clientIp(request, app.env) },
    { rule: RATE_LIMITS.passwordResetPerAccount, subject: input.email },
  ]);
  const [user] = await app.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, input.email))
    .limit(1);
  if (!user) return { message: RESET_REQUESTED_MESSAGE };

  const token = newResetToken();
  const tokenHash = await hashResetToken(token);
  await app.db.batch([
    app.db
      .delete(passwordResetTokens)
      .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt))),
    app.db.insert(passwordResetTokens).values({ tokenHash, userId: user.id, expiresAt: now + RESET_TOKEN_TTL_MS }),
  ]);
  const link = resetLink(app.env.APP_URL ?? new URL(request.url).origin, token);
  let delivery;
  try {
    delivery = await sendEmail(app, passwordResetEmail(user.email, link, RESET_TOKEN_TTL_MS / 60_000));
  } catch (error) {
    console.error("password reset e-mail failed", error);
    await app.db.delete(passwordResetTokens).where(eq(passwordResetTokens.tokenHash, tokenHash));
    throw new AppError("EMAIL_FAILED", "Failed to send reset email", 502);
  }
  if (delivery.sent) return { message: RESET_REQUESTED_MESSAGE };
  if (isDevelopment(app.env)) {
    console.info(`[password reset] no e-mail API configured; reset link for ${user.email}: ${link}`);
    return { message: RESET_REQUESTED_MESSAGE, debugToken: token };
  }
  console.warn("[password reset] no e-mail API configured (EMAIL_PROVIDER, EMAIL_API_KEY): the link was not sent");
  return { message: RESET_REQUESTED_MESSAGE };
}

function invalidToken(): AppError {
  return new AppError("INVALID_TOKEN", INVALID_TOKEN_MESSAGE, 400);
}

/** The live (unused, unexpired) token row of a token, or null. */
async function findLiveToken(app: Pick<AppServices, "db">, token: string, now: number) {
  if (!ResetTokenSchema.safeParse(token).success) return null;
  const tokenHash = await hashResetToken(token);
  const [row] = await app.db
    .select()
    .from(passwordResetTokens)
    .where(
      and(
        eq(passwordResetTokens.tokenHash, tokenHash),
        isNull(passwordResetTokens.usedAt),
        gt(passwordResetTokens.expiresAt, now),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * GET /api/auth/verify-reset-token/{token}: resolves when the token is live.
 * @throws AppError 400 INVALID_TOKEN ('This reset link is invalid or has expired') when it is
 * malformed, unknown, used or expired.
 */
export async function verifyResetToken(
  app: Pick<AppServices, "db">,
  token: string,
  now: number = Date.now(),
): Promise<void> {
  if (!(await findLiveToken(app, token, now))) throw invalidToken();
}

/**
 * POST /api/auth/reset-password {token, newPassword}. One D1 batch, each statement guarded by "this
 * token is still live": sets the new password hash, deletes every session of the account, deletes
 * its other tokens, and marks this token used. D1 runs batches one at a time, so of two concurrent
 * resets with one token exactly one changes anything.
 * @throws AppError 400 INVALID_TOKEN when the token is not live (before or during the batch).
 */
export async function resetPassword(
  app: Pick<AppServices, "db">,
  input: z.infer<typeof ResetPasswordSchema>,
  now: number = Date.now(),
): Promise<void> {
  const row = await findLiveToken(app, input.token, now);
  if (!row) throw invalidToken();
  const passwordHash = await hashPassword(input.newPassword);
  const { db } = app;
  const live = sql`exists (select 1 from ${passwordResetTokens} where ${passwordResetTokens.tokenHash} = ${row.tokenHash} and ${passwordResetTokens.usedAt} is null and ${passwordResetTokens.expiresAt} > ${now})`;
  const [, , , claimed] = await db.batch([
    db
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, row.userId), live)),
    db.delete(sessions).where(and(eq(sessions.userId, row.userId), live)),
    db
      .delete(passwordResetTokens)
      .where(and(eq(passwordResetTokens.userId, row.userId), ne(passwordResetTokens.tokenHash, row.tokenHash), live)),
    db
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResetTokens.tokenHash, row.tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, now),
        ),
      )
      .returning({ userId: passwordResetTokens.userId }),
  ]);
  if (claimed.length === 0) throw invalidToken();
}
