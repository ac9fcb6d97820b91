import { Button } from "~/components/ui/button";
import { providerFailures, type ProviderFailureReport } from "~/lib/search-failure";

/**
 * What follows a failed search's message (loaded on demand, so /search's initial JavaScript stays
 * within its budget): each database's reason in words, in development the offline server's name,
 * and a Try again button.
 */
export function SearchFailureDetails({
  providers,
  development,
  onRetry,
}: {
  providers?: Record<string, ProviderFailureReport | undefined> | null;
  development: boolean;
  onRetry: () => void;
}) {
  const failures = providerFailures(providers);
  return (
    <>
      {failures.length > 0 && (
        <ul className="mt-1 list-disc pl-5 text-sm" data-testid="provider-failures">
          {failures.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
      {development && failures.length > 0 && (
        <p className="mt-2 text-sm" data-testid="offline-hint">
          Developing without a network? <code>npm run start:offline</code> serves recorded database answers.
        </p>
      )}
      <Button type="button" variant="outline" size="sm" className="mt-3 bg-white" onClick={onRetry}>
        Try again
      </Button>
    </>
  );
}
