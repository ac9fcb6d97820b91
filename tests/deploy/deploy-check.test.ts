import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  bindingProblems,
  bindingsInterface,
  bindingUsages,
  placeholders,
  schemaVariables,
  wranglerScopes,
} from "../../scripts/lib/deploy-check.mjs";

const ENV_TS = `
export interface Bindings {
  DB: D1Database;
  BUCKET: R2Bucket;
  KV: KVNamespace;
  JOBS: Queue<unknown>;
}
export const EnvSchema = z
  .object({
    ENVIRONMENT: z.enum(["development", "production"]).default("production"),
    SESSION_SECRET: optionalString,
    PUBMED_BASE_URL: url.default("https://x"),
  });
`;

const FULL_SCOPE = `
[[d1_databases]]
binding = "DB"
database_name = "m"
database_id = "x"
[[r2_buckets]]
binding = "BUCKET"
bucket_name = "b"
[[kv_namespaces]]
binding = "KV"
id = "k"
[[queues.producers]]
binding = "JOBS"
queue = "jobs"
[[queues.consumers]]
queue = "jobs"
dead_letter_queue = "jobs-dlq"
[[queues.consumers]]
queue = "jobs-dlq"
`;

/** The problems of a wrangler.toml (text) for the given source files and env.ts. */
function problemsOf(toml: string, files: { path: string; source: string }[] = [], envTs = ENV_TS) {
  return bindingProblems({
    bindings: bindingsInterface(envTs),
    variables: schemaVariables(envTs),
    usages: bindingUsages(files),
    scopes: wranglerScopes(parse(toml)),
  });
}

/** FULL_SCOPE re-declared under [env.NAME] (TOML table names prefixed). */
function asEnv(name: string, toml = FULL_SCOPE) {
  return toml.replace(/^\[\[([\w.]+)\]\]$/gm, `[[env.${name}.$1]]`);
}

describe("deploy check: bindings the code uses vs wrangler.toml", () => {
  it("reads the Bindings interface (types without generics) and the EnvSchema variables", () => {
    expect([...bindingsInterface(ENV_TS)]).toEqual([
      ["DB", "D1Database"],
      ["BUCKET", "R2Bucket"],
      ["KV", "KVNamespace"],
      ["JOBS", "Queue"],
    ]);
    expect([...schemaVariables(ENV_TS)]).toEqual(["ENVIRONMENT", "SESSION_SECRET", "PUBMED_BASE_URL"]);
    expect(() => bindingsInterface("export type X = 1;")).toThrow(/Bindings/);
  });

  it("finds env.X, bindings.X, cloudflare.env.X and destructured names, with file:line, not process.env", () => {
    const usages = bindingUsages([
      {
        path: "app/a.ts",
        source: [
          "const a = context.app.bindings.BUCKET;",
          "const b = context.cloudflare.env.AI;",
          "const { DB, KV: kv } = context.app.bindings;",
          "const c = process.env.HOME_DIR + import.meta.env.DEV_FLAG;",
          "const d = deps.env.SEARCH_TIMEOUT_MS; const e = env.lowercase;",
        ].join("\n"),
      },
    ]);
    expect(Object.fromEntries(usages)).toEqual({
      BUCKET: ["app/a.ts:1"],
      AI: ["app/a.ts:2"],
      DB: ["app/a.ts:3"],
      KV: ["app/a.ts:3"],
      SEARCH_TIMEOUT_MS: ["app/a.ts:5"],
    });
  });

  it("passes when the top level and every environment declare every binding", () => {
    expect(problemsOf(FULL_SCOPE + asEnv("staging") + asEnv("production"))).toEqual([]);
  });

  it("fails for an environment that leaves a binding out (environments inherit none)", () => {
    const staging = asEnv("staging").replace(/\[\[env\.staging\.kv_namespaces\]\]\nbinding = "KV"\nid = "k"\n/, "");
    expect(problemsOf(FULL_SCOPE + staging)).toEqual([
      "[env.staging] of wrangler.toml does not declare binding KV (KVNamespace, app/.server/env.ts Bindings)",
    ]);
  });

  it("fails when a binding is declared as another kind", () => {
    const swapped = FULL_SCOPE.replace(
      '[[r2_buckets]]\nbinding = "BUCKET"',
      '[[r2_buckets]]\nbinding = "BLOBS"',
    ).replace(
      '[[kv_namespaces]]\nbinding = "KV"\nid = "k"',
      '[[kv_namespaces]]\nbinding = "KV"\nid = "k"\n[[kv_namespaces]]\nbinding = "BUCKET"\nid = "k2"',
    );
    expect(problemsOf(swapped)).toEqual([
      "the top level of wrangler.toml declares BUCKET as KVNamespace, but Bindings says R2Bucket",
    ]);
  });

  it("fails when code reads a binding neither env.ts nor wrangler.toml knows, naming the file and line", () => {
    const files = [{ path: "app/.server/ai/x.ts", source: "\n\nconst ai = env.AI;\nconst t = env.SESSION_SECRET;" }];
    expect(problemsOf(FULL_SCOPE + asEnv("production"), files)).toEqual([
      "app/.server/ai/x.ts:3 reads env.AI, which the top level of wrangler.toml does not declare (nor app/.server/env.ts)",
      "app/.server/ai/x.ts:3 reads env.AI, which [env.production] of wrangler.toml does not declare (nor app/.server/env.ts)",
    ]);
    expect(problemsOf(`${FULL_SCOPE}[ai]\nbinding = "AI"\n`, files)).toEqual([]);
  });

  it("accepts a name declared only as a var of that scope", () => {
    const files = [{ path: "workers/app.ts", source: "const v = env.FEATURE_FLAG;" }];
    expect(problemsOf(`[vars]\nFEATURE_FLAG = "1"\n${FULL_SCOPE}`, files)).toEqual([]);
  });

  it("fails for a queue without consumer and a dead-letter queue that is unconsumed or misnamed", () => {
    const toml = FULL_SCOPE.replace('dead_letter_queue = "jobs-dlq"', 'dead_letter_queue = "jobs-dead"').replace(
      '[[queues.consumers]]\nqueue = "jobs"\n',
      '[[queues.consumers]]\nqueue = "other"\n',
    );
    expect(problemsOf(toml)).toEqual([
      "the top level: queue jobs (binding JOBS) has no consumer",
      'the top level: dead-letter queue jobs-dead must end in "-dlq" (workers/app.ts routes its batches by the suffix)',
      "the top level: dead-letter queue jobs-dead of other has no consumer, so its messages are never marked failed",
    ]);
  });

  it("the project's own wrangler.toml and code pass", () => {
    const envTs = readFileSync("app/.server/env.ts", "utf8");
    const files = ["workers/app.ts", "app/routes/api.health.ts", "app/.server/context.ts"].map((path) => ({
      path,
      source: readFileSync(path, "utf8"),
    }));
    const scopes = wranglerScopes(parse(readFileSync("wrangler.toml", "utf8")));
    expect([...scopes.keys()]).toEqual(["", "staging", "production"]);
    expect(problemsOf(readFileSync("wrangler.toml", "utf8"), files, envTs)).toEqual([]);
  });
});

describe("deploy check: placeholders", () => {
  it("lists every REPLACE_ME value with its TOML path", () => {
    const config = parse(asEnv("staging") + '[env.staging.vars]\nCONTACT_EMAIL = "REPLACE_ME@example.org"\n') as {
      env: Record<string, unknown>;
    };
    (config.env.staging as { kv_namespaces: { id: string }[] }).kv_namespaces[0]!.id = "REPLACE_ME_KV";
    expect(placeholders(config.env.staging, "env.staging")).toEqual([
      "env.staging.kv_namespaces[0].id",
      "env.staging.vars.CONTACT_EMAIL",
    ]);
    expect(placeholders({ a: ["fine", 3, true] }, "x")).toEqual([]);
  });

  it("the committed staging and production sections still carry placeholders a user must fill", () => {
    const config = parse(readFileSync("wrangler.toml", "utf8")) as { env: Record<string, unknown> };
    for (const env of ["staging", "production"]) {
      expect(placeholders(config.env[env], `env.${env}`)).toEqual([
        `env.${env}.vars.CONTACT_EMAIL`,
        `env.${env}.d1_databases[0].database_id`,
        `env.${env}.kv_namespaces[0].id`,
      ]);
    }
  });
});
