import type { AppServices } from "../context";
import { clientIp } from "../security/client-ip";
import { enforceRateLimits, RATE_LIMITS, releaseRateLimits } from "../security/rate-limit";

type LimitApp = Pick<AppServices, "db" | "env" | "waitUntil">;

/**
 * Runs one login attempt under the login limits: per client IP (20 per 15 min) and per account
 * e-mail (10 per 15 min, so credential stuffing from many addresses is stopped too). The attempt
 * is counted before it runs (atomically, so parallel attempts cannot all pass) and given back when
 * it succeeds: only failed attempts use up the limits.
 * @throws AppError 429 RATE_LIMITED with Retry-After; whatever `attempt` throws.
 */
export async function withLoginLimits<T>(
  app: LimitApp,
  request: Request,
  email: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const hits = await enforceRateLimits(app, [
    { rule: RATE_LIMITS.loginPerIp, subject: clientIp(request, app.env) },
    { rule: RATE_LIMITS.loginPerAccount, subject: email },
  ]);
  const result = await attempt();
  await releaseRateLimits(app, hits);
  return result;
}

/**
 * Runs one registration under the per-IP limit (10 per hour). Every attempt counts, successful
 * ones too: the limit is on creating accounts.
 * @throws AppError 429 RATE_LIMITED with Retry-After; whatever `attempt` throws.
 */
export async function withRegistrationLimit<T>(app: LimitApp, request: Request, attempt: () => Promise<T>): Promise<T> {
  await enforceRateLimits(app, [{ rule: RATE_LIMITS.registerPerIp, subject: clientIp(request, app.env) }]);
  return attempt();
}
