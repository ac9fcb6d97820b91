import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import { Loader2, Users } from "lucide-react";
import { useState } from "react";
import { getUser } from "~/.server/auth/session";
import { describeInvitation } from "~/.server/reviews/members";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";

export const meta: MetaFunction = () => [
  { title: "Review invitation · MetaMind" },
  { name: "robots", content: "noindex" },
];

/** The invitation behind the link (review title, inviter, role, e-mail) and who is signed in. No secret leaves the server. */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const [user, invitation] = await Promise.all([
    getUser(context.app, request),
    describeInvitation(context.app, params.token ?? ""),
  ]);
  return { invitation, signedInAs: user?.email ?? null, token: params.token ?? "" };
}

/**
 * /invitations/{token}: the page the invitation e-mail links to. Signed in as the invited e-mail,
 * Accept joins the review (POST /api/invitations/{token}/accept) and opens it; signed out, it asks
 * to sign in or sign up with that e-mail first; a used or expired link says so.
 */
export default function InvitationPage() {
  const { invitation, signedInAs, token } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`/api/invitations/${encodeURIComponent(token)}/accept`, { method: "POST" });
      const body = (await res.json().catch(() => ({}))) as { review?: { id: string }; message?: string };
      if (!res.ok || !body.review)
        throw new Error(body.message ?? `The invitation could not be accepted (${res.status}).`);
      navigate(`/reviews/${encodeURIComponent(body.review.id)}?tab=team`);
    } catch (e) {
      setError(e instanceof Error ? e.message : "The invitation could not be accepted.");
      setBusy(false);
    }
  };

  const sameAccount = signedInAs !== null && invitation !== null && signedInAs.toLowerCase() === invitation.email;
  return (
    <div className="mx-auto max-w-lg px-4 py-12">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="flex items-center gap-2">
            <Users className="size-5" aria-hidden /> Review invitation
          </CardTitle>
          {invitation && (
            <CardDescription>
              {invitation.inviter} invited {invitation.email} to the systematic review &ldquo;{invitation.reviewTitle}
              &rdquo; as {invitation.role === "reviewer" ? "a reviewer" : "a viewer"}.
            </CardDescription>
          )}
        </CardHeader>
        <CardContent className="space-y-4 text-sm text-slate-700" data-testid="invitation">
          {!invitation ? (
            <p role="alert">This invitation link is not valid.</p>
          ) : !invitation.live ? (
            <p role="alert">This invitation has been used or has expired. Ask the review&apos;s owner for a new one.</p>
          ) : !signedInAs ? (
            <p>
              Sign in as <strong>{invitation.email}</strong> (or create an account with that e-mail), then open this
              link again.{" "}
              <Link to="/auth" className="text-brand-700 underline">
                Sign in or sign up
              </Link>
            </p>
          ) : !sameAccount ? (
            <p role="alert">
              You are signed in as {signedInAs}. This invitation is for {invitation.email}: sign out and sign in with
              that e-mail to accept it.
            </p>
          ) : (
            <Button onClick={() => void accept()} disabled={busy} data-testid="accept-invitation">
              {busy && <Loader2 className="animate-spin" aria-hidden />} Accept and open the review
            </Button>
          )}
          {error && (
            <p role="alert" className="text-red-700">
              {error}
            </p>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
