import { z } from "zod";

/** Cloudflare bindings declared in wrangler.toml. */
export interface Bindings {
  DB: D1Database;
  BUCKET: R2Bucket;
  KV: KVNamespace;
  JOBS: Queue<unknown>;
}

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() ? v.trim() : undefined));

const url = z.string().url();

/**
 * Vars and secrets (wrangler.toml [vars], `.dev.vars`, `wrangler secret`). Parsed once per isolate;
 * a bad value fails fast with the variable's name.
 */
export const EnvSchema = z
  .object({
    ENVIRONMENT: z.enum(["development", "test", "production"]).default("production"),
    SESSION_SECRET: optionalString,
    PUBMED_BASE_URL: url.default("https://eutils.ncbi.nlm.nih.gov/entrez/eutils"),
    CROSSREF_BASE_URL: url.default("https://api.crossref.org"),
    EUROPEPMC_BASE_URL: url.default("https://www.ebi.ac.uk/europepmc/webservices/rest"),
    CORE_BASE_URL: url.default("https://api.core.ac.uk/v3"),
    SEMANTIC_SCHOLAR_BASE_URL: url.default("https://api.semanticscholar.org/graph/v1"),
    DOAJ_BASE_URL: url.default("https://doaj.org/api"),
    /** Unpaywall REST API (open-access lookups by DOI); the e-mail is required by Unpaywall. */
    UNPAYWALL_BASE_URL: url.default("https://api.unpaywall.org/v2"),
    /** Sent as Unpaywall's `email` parameter; CONTACT_EMAIL when unset. */
    UNPAYWALL_EMAIL: optionalString.pipe(z.string().email().optional()),
    NCBI_API_KEY: optionalString,
    CORE_API_KEY: optionalString,
    SEMANTIC_SCHOLAR_API_KEY: optionalString,
    CONTACT_EMAIL: z.string().email().default("support@metamind.app"),
    SEARCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8000),
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: optionalString.pipe(z.string().url().optional()),
    AI_MODEL: optionalString,
    OFFLINE_MODEL_DELAY_MS: z.coerce.number().int().min(0).max(1000).default(15),
    /** Remote model time limit: max wait for the answer to start and between streamed parts (ms). */
    AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
    AI_SUMMARIES_PER_MONTH: z.coerce.number().int().min(0).default(20),
    /** E-mail addresses (comma or space separated, any case) allowed on /admin and GET /api/admin/stats. */
    ADMIN_EMAILS: optionalString,
    /** Private hosts full-text fetches may reach anyway (comma list), e.g. "127.0.0.1" for the offline replay. */
    FULLTEXT_ALLOW_HOSTS: optionalString,
    /** Largest answer read from a search database, Unpaywall or Europe PMC, in bytes (16 MiB). */
    UPSTREAM_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024)
      .default(16 * 1024 * 1024),
    /** Public origin of the site (reset links in e-mails); the request's origin when unset. */
    APP_URL: optionalString.pipe(z.string().url().optional()),
    /** E-mail API for reset links: resend | postmark. Unset (or no key): console + debugToken in development. */
    EMAIL_PROVIDER: optionalString.pipe(z.enum(["resend", "postmark"]).optional()),
    /** The provider's key: Resend API key (Bearer) or Postmark Server API token. */
    EMAIL_API_KEY: optionalString,
    /** Sender, e.g. "MetaMind <no-reply@metamind.app>" (a domain verified with the provider). */
    EMAIL_FROM: z.string().min(3).default("MetaMind <no-reply@metamind.app>"),
    /** Base URL of the e-mail API (a local fake in tests); the provider's own when unset. */
    EMAIL_API_BASE: optionalString.pipe(z.string().url().optional()),
    /** Stripe secret key (sk_…). Unset: checkout and portal answer 503 PAYMENTS_UNAVAILABLE. */
    STRIPE_SECRET_KEY: optionalString,
    /** Signing secret of the webhook endpoint (whsec_…); webhooks are refused without it. */
    STRIPE_WEBHOOK_SECRET: optionalString,
    /** Price ids (price_…) of the monthly and annual Professional plans. */
    STRIPE_PRICE_MONTHLY: optionalString,
    STRIPE_PRICE_ANNUAL: optionalString,
    /** Stripe API base (a local fake in tests, e.g. http://127.0.0.1:12111); api.stripe.com when unset. */
    STRIPE_API_BASE: optionalString.pipe(z.string().url().optional()),
    /** Store pages the upgrade button opens inside the installed iOS / Android app. */
    APP_STORE_URL: optionalString.pipe(z.string().url().optional()),
    PLAY_STORE_URL: optionalString.pipe(z.string().url().optional()),
  })
  .transform((env) => {
    if (!env.SESSION_SECRET) {
      if (env.ENVIRONMENT === "production") {
        throw new Error("SESSION_SECRET must be set outside development");
      }
      return { ...env, SESSION_SECRET: "metamind-dev-session-secret-not-for-production" };
    }
    return { ...env, SESSION_SECRET: env.SESSION_SECRET };
  });

export type AppEnv = z.infer<typeof EnvSchema>;

const cache = new WeakMap<object, AppEnv>();

/**
 * Parses the Worker's env into typed settings, once per env object.
 * @throws Error naming each invalid variable.
 */
export function parseEnv(raw: Record<string, unknown>): AppEnv {
  const hit = cache.get(raw);
  if (hit) return hit;
  const result = EnvSchema.safeParse(raw);
  if (!result.success) {
    const details = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${details}`);
  }
  cache.set(raw, result.data);
  return result.data;
}

/** True where demo accounts and dev-only conveniences are allowed. */
export function isDevelopment(env: AppEnv): boolean {
  return env.ENVIRONMENT === "development" || env.ENVIRONMENT === "test";
}
