/**
 * Pure checks behind scripts/check-deploy.mjs (no I/O; unit-tested in deploy-check.test.ts):
 * which bindings the code uses, which each wrangler.toml scope (top level and every [env.X])
 * declares, and what is missing. Wrangler environments inherit no bindings and no vars
 * (developers.cloudflare.com/workers/wrangler/environments/), so each scope is checked on its own.
 */

/** wrangler.toml binding tables → the Workers runtime type each one gives `env.NAME`. */
const KINDS = {
  d1_databases: "D1Database",
  r2_buckets: "R2Bucket",
  kv_namespaces: "KVNamespace",
  "queues.producers": "Queue",
  "durable_objects.bindings": "DurableObjectNamespace",
  services: "Fetcher",
  analytics_engine_datasets: "AnalyticsEngineDataset",
  vectorize: "VectorizeIndex",
  hyperdrive: "Hyperdrive",
  workflows: "Workflow",
  send_email: "SendEmail",
  mtls_certificates: "Fetcher",
  dispatch_namespaces: "DispatchNamespace",
};
/** Single-table bindings: `[ai] binding = "AI"` and the like. */
const SINGLE = { ai: "Ai", browser: "Fetcher", images: "ImagesBinding", version_metadata: "WorkerVersionMetadata" };

/** Gzip limit of a Worker on the Workers Free plan: 3 MB (decimal, the stricter reading). */
export const FREE_PLAN_GZIP_LIMIT_BYTES = 3_000_000;

/**
 * The names and types of `export interface Bindings { NAME: Type; … }` in app/.server/env.ts.
 * @param {string} source TypeScript source
 * @returns {Map<string, string>} name → type without generics ("Queue<unknown>" → "Queue")
 */
export function bindingsInterface(source) {
  const body = /export\s+interface\s+Bindings\s*\{([^}]*)\}/.exec(source)?.[1];
  if (body === undefined) throw new Error("app/.server/env.ts has no `export interface Bindings { … }`");
  const out = new Map();
  for (const m of body.matchAll(/^\s*([A-Z][A-Z0-9_]*)\??\s*:\s*([A-Za-z0-9_]+)/gm)) out.set(m[1], m[2]);
  return out;
}

/**
 * Variable and secret names the zod EnvSchema reads (its `NAME: z…` keys). These are not bindings:
 * each has a default or is optional, so none has to be declared in wrangler.toml.
 * @param {string} source TypeScript source of app/.server/env.ts
 * @returns {Set<string>}
 */
export function schemaVariables(source) {
  const start = source.indexOf("EnvSchema");
  if (start < 0) return new Set();
  return new Set(
    [...source.slice(start).matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:\s*(?:z\.|optionalString|url\b)/gm)].map((m) => m[1]),
  );
}

/**
 * Upper-case names read from the Worker's env in source: `env.X`, `bindings.X`, `rawEnv.X`,
 * `cloudflare.env.X` (any prefix such as `context.app.bindings.X`) and destructuring
 * `const { X, Y } = ….bindings` / `….env`. `process.env.X` and `import.meta.env.X` are not the Worker's.
 * @param {{ path: string, source: string }[]} files
 * @returns {Map<string, string[]>} name → ["path:line", …]
 */
export function bindingUsages(files) {
  const out = new Map();
  const add = (name, path, source, index) => {
    const line = source.slice(0, index).split("\n").length;
    const at = `${path}:${line}`;
    out.set(name, [...(out.get(name) ?? []), at]);
  };
  for (const { path, source } of files) {
    for (const m of source.matchAll(
      /(?<!process\.)(?<!import\.meta\.)\b(?:env|bindings|rawEnv)\.([A-Z][A-Z0-9_]*)\b/g,
    )) {
      add(m[1], path, source, m.index);
    }
    for (const m of source.matchAll(/\{([^{}]*)\}\s*=\s*[\w.]*\b(?:env|bindings|rawEnv)\b(?!\.)/g)) {
      if (/process\.env|import\.meta\.env/.test(m[0])) continue;
      for (const part of m[1].split(",")) {
        const name = /^\s*([A-Z][A-Z0-9_]*)\b/.exec(part)?.[1];
        if (name) add(name, path, source, m.index);
      }
    }
  }
  return out;
}

function bindingsOfScope(scope) {
  const declared = new Map();
  for (const [key, kind] of Object.entries(KINDS)) {
    const [table, sub] = key.split(".");
    const list = sub ? scope?.[table]?.[sub] : scope?.[table];
    for (const entry of Array.isArray(list) ? list : []) {
      if (entry && typeof entry.binding === "string") declared.set(entry.binding, kind);
      else if (entry && typeof entry.name === "string" && key === "durable_objects.bindings")
        declared.set(entry.name, kind);
    }
  }
  for (const [key, kind] of Object.entries(SINGLE)) {
    if (scope?.[key] && typeof scope[key].binding === "string") declared.set(scope[key].binding, kind);
  }
  for (const name of Object.keys(scope?.vars ?? {})) declared.set(name, "var");
  return declared;
}

/**
 * Every scope of a parsed wrangler.toml: "" (the top level) and each environment name.
 * @param {Record<string, any>} config the parsed TOML
 * @returns {Map<string, { declared: Map<string, string>, consumers: any[], producers: any[] }>}
 *   declared: binding or var name → kind ("D1Database", "R2Bucket", "KVNamespace", "Queue", "var", …)
 */
export function wranglerScopes(config) {
  const scopes = new Map();
  const describe = (scope) => ({
    declared: bindingsOfScope(scope),
    consumers: Array.isArray(scope?.queues?.consumers) ? scope.queues.consumers : [],
    producers: Array.isArray(scope?.queues?.producers) ? scope.queues.producers : [],
  });
  scopes.set("", describe(config));
  for (const [name, scope] of Object.entries(config.env ?? {})) scopes.set(name, describe(scope));
  return scopes;
}

/**
 * The problems that would break a deploy, one sentence each (empty when all is well):
 * - a Bindings-interface name a scope does not declare, or declares as another kind;
 * - a name the code reads from env that is neither in the EnvSchema, nor in Bindings, nor declared;
 * - a queue with no consumer in its scope, a dead-letter queue without a consumer, or one whose
 *   name does not end in "-dlq" (the Worker tells dead-letter batches apart by that suffix).
 * @param {{ bindings: Map<string,string>, variables: Set<string>, usages: Map<string,string[]>,
 *   scopes: ReturnType<typeof wranglerScopes> }} input
 * @returns {string[]}
 */
export function bindingProblems({ bindings, variables, usages, scopes }) {
  const problems = [];
  for (const [scopeName, scope] of scopes) {
    const where = scopeName ? `[env.${scopeName}]` : "the top level";
    for (const [name, type] of bindings) {
      const kind = scope.declared.get(name);
      if (!kind)
        problems.push(
          `${where} of wrangler.toml does not declare binding ${name} (${type}, app/.server/env.ts Bindings)`,
        );
      else if (kind !== type)
        problems.push(`${where} of wrangler.toml declares ${name} as ${kind}, but Bindings says ${type}`);
    }
    for (const [name, at] of usages) {
      if (bindings.has(name) || variables.has(name) || scope.declared.has(name)) continue;
      problems.push(
        `${at[0]} reads env.${name}, which ${where} of wrangler.toml does not declare (nor app/.server/env.ts)`,
      );
    }
    const consumed = new Set(scope.consumers.map((c) => c.queue));
    for (const producer of scope.producers) {
      if (!consumed.has(producer.queue))
        problems.push(`${where}: queue ${producer.queue} (binding ${producer.binding}) has no consumer`);
    }
    for (const consumer of scope.consumers) {
      const dlq = consumer.dead_letter_queue;
      if (typeof dlq !== "string") continue;
      if (!dlq.endsWith("-dlq"))
        problems.push(
          `${where}: dead-letter queue ${dlq} must end in "-dlq" (workers/app.ts routes its batches by the suffix)`,
        );
      if (!consumed.has(dlq))
        problems.push(
          `${where}: dead-letter queue ${dlq} of ${consumer.queue} has no consumer, so its messages are never marked failed`,
        );
    }
  }
  return problems;
}

/**
 * Placeholders a user must replace before deploying a scope: any string value containing
 * "REPLACE_ME", with its TOML path (e.g. "env.staging.d1_databases[0].database_id").
 * @param {unknown} scope a parsed [env.X] table
 * @param {string} prefix path of the scope
 * @returns {string[]}
 */
export function placeholders(scope, prefix) {
  if (typeof scope === "string") return scope.includes("REPLACE_ME") ? [prefix] : [];
  if (Array.isArray(scope)) return scope.flatMap((v, i) => placeholders(v, `${prefix}[${i}]`));
  if (scope && typeof scope === "object") {
    return Object.entries(scope).flatMap(([k, v]) => placeholders(v, prefix ? `${prefix}.${k}` : k));
  }
  return [];
}
