/**
 * ESLint rule `metamind/no-server-in-route-ui`: in a Remix route module, nothing imported from a
 * `.server` module (values or types) may be used by the code that ships to the browser — the
 * default-export component, the other client exports (meta, links, handle, ErrorBoundary,
 * HydrateFallback, Layout, shouldRevalidate, clientLoader, clientAction) and any top-level
 * PascalCase component (a function, or a call wrapping one). loader, action and headers may use `.server` freely (Remix strips them
 * from the client bundle); a type the page needs lives in app/lib (STYLE.md "Client code never
 * imports from .server, not even types").
 */
const SERVER_MODULE = /(^|\/)\.server(\/|$)/;
const CLIENT_EXPORTS = new Set([
  "meta",
  "links",
  "handle",
  "ErrorBoundary",
  "HydrateFallback",
  "Layout",
  "shouldRevalidate",
  "clientLoader",
  "clientAction",
]);
const PASCAL_CASE = /^[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]*$/;

/** A component-like initialiser: a function, or a call wrapping one (memo, forwardRef, lazy…). */
function isComponent(init) {
  if (!init) return false;
  if (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression") return true;
  return init.type === "CallExpression" && init.arguments.some(isComponent);
}

/** Top-level nodes whose code runs in the browser. */
function clientRegions(program) {
  const regions = [];
  for (const statement of program.body) {
    if (statement.type === "ExportDefaultDeclaration") {
      regions.push(statement);
      continue;
    }
    const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
    if (!declaration) continue;
    const exported = statement.type === "ExportNamedDeclaration";
    if (declaration.type === "FunctionDeclaration" && declaration.id) {
      const name = declaration.id.name;
      if ((exported && CLIENT_EXPORTS.has(name)) || PASCAL_CASE.test(name)) regions.push(declaration);
    } else if (declaration.type === "VariableDeclaration") {
      for (const declarator of declaration.declarations) {
        if (declarator.id.type !== "Identifier") continue;
        const name = declarator.id.name;
        if ((exported && CLIENT_EXPORTS.has(name)) || (PASCAL_CASE.test(name) && isComponent(declarator.init))) {
          regions.push(declarator);
        }
      }
    }
  }
  return regions;
}

export default {
  meta: {
    type: "problem",
    docs: { description: "Route UI code must not use anything imported from a .server module" },
    schema: [],
    messages: {
      serverInUi:
        "'{{name}}' comes from a .server module ({{source}}) and is used by code that ships to the browser: move the type or helper to app/lib.",
    },
  },
  create(context) {
    const imports = [];
    return {
      ImportDeclaration(node) {
        if (SERVER_MODULE.test(node.source.value)) imports.push(node);
      },
      "Program:exit"(program) {
        if (imports.length === 0) return;
        const regions = clientRegions(program);
        const inClient = (node) => regions.some((r) => node.range[0] >= r.range[0] && node.range[1] <= r.range[1]);
        for (const node of imports) {
          for (const variable of context.sourceCode.getDeclaredVariables(node)) {
            const used = variable.references.find((reference) => inClient(reference.identifier));
            if (used) {
              context.report({
                node: used.identifier,
                messageId: "serverInUi",
                data: { name: variable.name, source: node.source.value },
              });
            }
          }
        }
      },
    };
  },
};
