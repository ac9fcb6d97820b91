/** Minimal typings for the parts of citation-js this app uses (the packages ship none). */
declare module "@citation-js/core" {
  export class Cite {
    constructor(data?: unknown, options?: Record<string, unknown>);
    data: Record<string, unknown>[];
    format(format: string, options?: Record<string, unknown>): string;
    static async(data: unknown, options?: Record<string, unknown>): Promise<Cite>;
  }
  export const plugins: {
    config: { get(name: string): unknown };
    input: { chain(data: unknown, options?: Record<string, unknown>): Record<string, unknown>[] };
  };
}
declare module "@citation-js/plugin-csl";
declare module "@citation-js/plugin-bibtex";
declare module "@citation-js/plugin-ris";
declare module "@citation-js/name" {
  export function parse(name: string): {
    given?: string;
    family?: string;
    literal?: string;
    "non-dropping-particle"?: string;
    "dropping-particle"?: string;
    suffix?: string;
  };
}
