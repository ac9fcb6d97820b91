import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The import graph between capability folders under app/.server (search, studies, openaccess …),
 * read from the source text: every `from "…"` / `import("…")` specifier of a non-test module,
 * resolved (`~/` is app/) to the capability folder it lands in. Files directly under app/.server
 * (env.ts, context.ts) belong to no folder and are left out.
 */
export function capabilityGraph(root: string): Map<string, Set<string>> {
  const server = join(root, "app", ".server");
  const graph = new Map<string, Set<string>>();
  const folderOf = (file: string): string | null => {
    const rel = relative(server, file);
    if (rel.startsWith("..")) return null;
    const parts = rel.split(/[\\/]/);
    return parts.length > 1 ? parts[0] : null;
  };
  for (const file of sourceFiles(server)) {
    const from = folderOf(file);
    if (!from) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      const spec = match[1];
      const target = spec.startsWith("~/")
        ? join(root, "app", spec.slice(2))
        : spec.startsWith(".")
          ? resolve(dirname(file), spec)
          : null;
      const to = target ? folderOf(target) : null;
      if (to && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every cycle's folders (one representative per strongly connected component of size > 1; Tarjan). */
export function folderCycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return components;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) yield path;
  }
}
