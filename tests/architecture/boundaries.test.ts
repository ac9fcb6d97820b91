import { describe, expect, it } from "vitest";
import { capabilityGraph, folderCycles } from "./import-graph";
import { lintProbe, REPO_ROOT } from "./lint-probe";

describe("capability folders under app/.server", () => {
  it("import each other without cycles", () => {
    const graph = capabilityGraph(REPO_ROOT);
    expect(graph.get("search")?.has("studies")).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });

  it("a cycle is found when there is one", () => {
    const graph = new Map([
      ["search", new Set(["studies"])],
      ["studies", new Set(["openaccess"])],
      ["openaccess", new Set(["studies"])],
      ["http", new Set<string>()],
    ]);
    expect(folderCycles(graph)).toEqual([["openaccess", "studies"]]);
  });
});

describe("the lint step's boundary rules (eslint.config.js)", () => {
  const problems = lintProbe();

  it("app/lib imports neither .server nor components", async () => {
    const code = [
      'import type { SearchResponse } from "~/.server/search/service";',
      'import { StudyCard } from "~/components/study-card";',
      'import { x } from "../../.server/db/client";',
      'import { DATE_RANGES } from "./search/types";',
      "export type Probe = SearchResponse | typeof StudyCard | typeof x | typeof DATE_RANGES;",
    ].join("\n");
    expect(await problems("app/lib/boundary-probe.ts", code)).toEqual([
      "no-restricted-imports@1:1",
      "no-restricted-imports@2:1",
      "no-restricted-imports@3:1",
    ]);
  }, 60_000);

  it("components import nothing from .server, not even types", async () => {
    const code = 'import type { PublicUser } from "~/.server/auth/session";\nexport type Probe = PublicUser;\n';
    expect(await problems("app/components/boundary-probe.tsx", code)).toEqual(["no-restricted-imports@1:1"]);
  }, 60_000);

  it("a route's loader may use .server; its component, meta and PascalCase helpers may not", async () => {
    const code = [
      'import { getUser, type PublicUser } from "~/.server/auth/session";',
      'import { MAX } from "~/.server/search/history";',
      'import { z } from "zod";',
      "const QuerySchema = z.object({ limit: z.number().max(MAX) });",
      "export async function loader() { return getUser(QuerySchema); }",
      "export const meta = () => [{ title: String(MAX) }];",
      "function Card({ user }: { user: PublicUser }) { return user.email; }",
      "export default function Page() { return Card; }",
    ].join("\n");
    expect(await problems("app/routes/boundary-probe.tsx", code)).toEqual([
      "metamind/no-server-in-route-ui@6:44",
      "metamind/no-server-in-route-ui@7:33",
    ]);
  }, 60_000);
});
