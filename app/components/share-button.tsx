import { Loader2, Share2 } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { browserShareEnvironment, SHARE_COPIED_MESSAGE, shareLink } from "~/browser/share-sheet";
import { toast } from "~/browser/toast";

/**
 * Share button (SPEC §8): creates the public link (`create`), then shares it with the Web Share
 * API, else copies it ('Share link copied'), else opens a WhatsApp-style link. The link is shown
 * under the button once created.
 */
export function ShareButton({
  create,
  title,
  text,
  testId = "share-button",
}: {
  create: () => Promise<{ url: string }>;
  title: string;
  text: string;
  testId?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  async function onClick() {
    setBusy(true);
    try {
      const link = url ?? (await create()).url;
      setUrl(link);
      const outcome = await shareLink(browserShareEnvironment(), { title, text, url: link });
      if (outcome === "copied") toast({ title: SHARE_COPIED_MESSAGE, description: link });
      if (outcome === "failed") toast({ title: "Share failed", description: link, variant: "destructive" });
    } catch (error) {
      console.warn("share failed", error);
      const message =
        error instanceof Error && error.message.startsWith("429")
          ? "Too many share links created. Please try again later."
          : "Could not create the share link. Please try again.";
      toast({ title: "Share failed", description: message, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="flex flex-col gap-1">
      <Button type="button" variant="outline" size="sm" onClick={onClick} disabled={busy} data-testid={testId}>
        {busy ? <Loader2 className="animate-spin" aria-hidden /> : <Share2 aria-hidden />}
        Share
      </Button>
      {url && (
        <a
          href={url}
          data-testid={`${testId}-url`}
          className="max-w-xs truncate text-xs text-brand-700 underline"
          target="_blank"
          rel="noreferrer"
        >
          {url}
        </a>
      )}
    </div>
  );
}
