import { Link2, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import type { SharedLink } from "~/lib/sharing";
import { toast } from "~/browser/toast";

const KIND_LABEL: Record<SharedLink["kind"], string> = {
  answer: "Health answer",
  workout: "Training program",
  "meal-plan": "Meal plan",
};

/**
 * The requester's share links (GET /api/shared-answers) with Unshare (DELETE
 * /api/shared-answers/{id}): an unshared link's page answers 404 from then on.
 */
export function SharedLinks() {
  const [links, setLinks] = useState<SharedLink[] | null>(null);
  const load = useCallback(async () => {
    try {
      const res = await fetch("/api/shared-answers", { credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      setLinks(((await res.json()) as { items: SharedLink[] }).items);
    } catch (error) {
      console.warn("could not load share links", error);
      setLinks([]);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function unshare(id: string) {
    try {
      const res = await fetch(`/api/shared-answers/${id}`, { method: "DELETE", credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      setLinks((current) => (current ?? []).filter((l) => l.id !== id));
      toast({ title: "Link removed", description: "The shared page is no longer available." });
    } catch (error) {
      console.warn("unshare failed", error);
      toast({ title: "Error", description: "Failed to remove the share link", variant: "destructive" });
    }
  }

  if (!links || links.length === 0) return null;
  return (
    <section className="mt-6" data-testid="shared-links">
      <h2 className="mb-2 flex items-center gap-2 text-sm font-semibold text-slate-900">
        <Link2 className="size-4" aria-hidden /> Your share links
      </h2>
      <ul className="space-y-2">
        {links.map((l) => (
          <li
            key={l.id}
            className="flex items-center justify-between gap-3 rounded-lg border border-slate-200 bg-white p-3 text-sm"
            data-testid="shared-link"
          >
            <div className="min-w-0">
              <p className="truncate font-medium text-slate-900">{l.title}</p>
              <p className="text-xs text-slate-500">
                {KIND_LABEL[l.kind]} ·{" "}
                <a href={l.url} className="text-brand-700 underline" target="_blank" rel="noreferrer">
                  {l.url}
                </a>
              </p>
            </div>
            <Button variant="outline" size="sm" onClick={() => unshare(l.id)} aria-label={`Unshare ${l.title}`}>
              <Trash2 aria-hidden /> Unshare
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
