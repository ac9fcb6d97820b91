import Markdown, { type Components } from "react-markdown";
import { sourceLine, type ReportSection } from "~/lib/report-sections";

/**
 * Markdown a model may write inside a report's text, rendered as HTML (react-markdown: raw HTML
 * is skipped, never injected). Headings inside a text sit below the section's own heading.
 */
const MARKDOWN_COMPONENTS: Components = {
  h1: ({ children }) => <h4 className="mt-3 mb-1 text-sm font-semibold text-slate-900">{children}</h4>,
  h2: ({ children }) => <h4 className="mt-3 mb-1 text-sm font-semibold text-slate-900">{children}</h4>,
  h3: ({ children }) => <h4 className="mt-3 mb-1 text-sm font-semibold text-slate-900">{children}</h4>,
  h4: ({ children }) => <h5 className="mt-2 mb-1 text-sm font-medium text-slate-800">{children}</h5>,
  h5: ({ children }) => <h5 className="mt-2 mb-1 text-sm font-medium text-slate-800">{children}</h5>,
  h6: ({ children }) => <h5 className="mt-2 mb-1 text-sm font-medium text-slate-800">{children}</h5>,
  p: ({ children }) => <p className="mb-2 last:mb-0">{children}</p>,
  ul: ({ children }) => <ul className="mb-2 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="mb-2 list-decimal space-y-1 pl-5">{children}</ol>,
  a: ({ children }) => <span>{children}</span>,
  img: () => null,
};

/** Text that may hold Markdown; single line breaks are kept as breaks (plain texts use them). */
export function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown skipHtml components={MARKDOWN_COMPONENTS}>
      {text.replace(/(?<!\n)\n(?!\n|\s*(?:[-*+]|\d+\.)\s|\s*#)/g, "  \n")}
    </Markdown>
  );
}

/**
 * A report's sections (SPEC §4 analysis view; issue 16): each section's heading, its sub-headed
 * blocks (text as Markdown, lists as lists) and its sources named by study title, with the
 * quoted sentences. Used by the report modal and, rendered to static HTML, by the download.
 */
export function ReportBody({ sections }: { sections: readonly ReportSection[] }) {
  return (
    <div className="space-y-5" data-testid="analysis-view">
      {sections.map((s, i) => (
        <section key={`${s.title}-${i}`} aria-label={s.title}>
          <h3 className="mb-1.5 text-base font-semibold text-slate-900">{s.title}</h3>
          <div className="space-y-3 text-sm leading-relaxed text-slate-700">
            {s.blocks.map((b, j) => (
              <div key={j}>
                {b.heading ? (
                  <h4 className="mb-0.5 text-xs font-semibold tracking-wide text-slate-500 uppercase">{b.heading}</h4>
                ) : null}
                {b.text ? <MarkdownText text={b.text} /> : null}
                {b.items ? (
                  <ul className="list-disc space-y-1 pl-5">
                    {b.items.map((item, k) => (
                      <li key={k}>
                        <MarkdownText text={item} />
                      </li>
                    ))}
                  </ul>
                ) : null}
              </div>
            ))}
          </div>
          {s.sources.length > 0 ? (
            <details className="mt-2 text-xs text-slate-600" data-testid="report-sources">
              <summary className="cursor-pointer">
                <span className="font-medium text-slate-700">Sources:</span> {s.sources.map(sourceLine).join("; ")}
              </summary>
              <ul className="mt-1 space-y-1 pl-4">
                {s.sources.flatMap((src) =>
                  src.quotes.map((q, k) => (
                    <li key={`${src.study}-${k}`}>
                      <span className="font-medium">{src.title}:</span> <q className="italic">{q}</q>
                    </li>
                  )),
                )}
              </ul>
            </details>
          ) : null}
        </section>
      ))}
    </div>
  );
}
