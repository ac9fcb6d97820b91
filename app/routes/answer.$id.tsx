import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { loadSharedPage, PUBLIC_SHARE_CACHE_CONTROL } from "~/.server/sharing/public";
import { AnswerText, CitedStudies, NOT_MEDICAL_ADVICE } from "~/components/sharing/answer-view";
import { shareDate, shareMeta } from "~/lib/share-meta";

/** GET /answer/{id}: a shared health answer, public and complete without JavaScript; 404 page for unknown ids. */
export async function loader({ params, request, context }: LoaderFunctionArgs) {
  const item = await loadSharedPage(context.app, { kind: "answer", id: params.id });
  return Response.json({ item, url: request.url }, { headers: { "Cache-Control": PUBLIC_SHARE_CACHE_CONTROL } });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": loaderHeaders.get("Cache-Control") ?? "no-store",
});

type Data = { item: Extract<import("~/lib/sharing").SharedItem, { kind: "answer" }>; url: string };

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const d = data as Data | undefined;
  if (!d) return [{ title: "404 Page Not Found | MetaMind" }];
  return shareMeta({
    title: d.item.question,
    description: `${d.item.answer.replace(/\[\d+\]|⟦(?:unverified|framing): |⟧/g, "")} (Based on ${d.item.studyCount} studies.)`,
    url: d.url,
  });
};

export default function SharedAnswerPage() {
  const { item } = useLoaderData<typeof loader>() as unknown as Data;
  const studies = item.studies ?? [];
  return (
    <article className="mx-auto max-w-3xl px-4 py-10" data-testid="shared-answer">
      <p className="text-sm font-medium text-brand-700">Health answer</p>
      <h1 className="mt-1 text-2xl font-bold text-slate-900" data-testid="shared-question">
        {item.question}
      </h1>
      <p className="mt-1 text-sm text-slate-500">
        Shared on <time dateTime={new Date(item.createdAt).toISOString()}>{shareDate(item.createdAt)}</time> · Based on{" "}
        <span data-testid="study-count">
          {item.studyCount} {item.studyCount === 1 ? "study" : "studies"}
        </span>
        {item.model && <> · Written by {item.model}</>}
      </p>
      <div className="mt-5 text-base leading-relaxed whitespace-pre-line text-slate-800" data-testid="shared-answer-text">
        <AnswerText text={item.answer} studyCount={item.studyCount} />
      </div>
      <p className="mt-5 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="note">
        {NOT_MEDICAL_ADVICE}
      </p>
      {studies.length > 0 && (
        <section className="mt-8">
          <h2 className="mb-3 text-lg font-semibold text-slate-900">Studies cited</h2>
          <CitedStudies studies={studies} />
        </section>
      )}
      <div className="mt-10">
        <a href="/search#ask" className="inline-flex rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
          Ask your own question
        </a>
      </div>
    </article>
  );
}
