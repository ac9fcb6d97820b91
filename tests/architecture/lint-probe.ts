import { ESLint } from "eslint";
import { fileURLToPath } from "node:url";

/** The repository root (absolute path). */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Lints `code` with the project's eslint.config.js as if it were the file at `filePath` (relative to
 * the repository root; the file need not exist) and returns its problems as `rule@line:column`, so a
 * test can show that a boundary rule fires where it should and nowhere else.
 */
export function lintProbe(): (filePath: string, code: string) => Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  return async (filePath, code) => {
    const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${filePath}` });
    return result.messages.map((m) => `${m.ruleId}@${m.line}:${m.column}`);
  };
}
