import type { EmailMessage } from "./send";

const escapeHtml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** The password-reset e-mail: the link, its 15-minute expiry and what to do if it was not you. */
export function passwordResetEmail(to: string, link: string, expiresInMinutes: number): EmailMessage {
  const text = [
    "Someone asked to reset the password of your MetaMind account.",
    "",
    `Choose a new password here (the link works once and expires in ${expiresInMinutes} minutes):`,
    link,
    "",
    "If you did not ask for this, ignore this e-mail: your password stays as it is.",
  ].join("\n");
  const href = escapeHtml(link);
  const html = `<p>Someone asked to reset the password of your MetaMind account.</p>
<p><a href="${href}">Choose a new password</a> (the link works once and expires in ${expiresInMinutes} minutes).</p>
<p style="color:#555">Or paste this address into your browser: ${href}</p>
<p style="color:#555">If you did not ask for this, ignore this e-mail: your password stays as it is.</p>`;
  return { to, subject: "Reset your MetaMind password", text, html };
}

/** The invitation to a review (issue 30): who invites, to which review, the role and the link's 7-day expiry. */
export function reviewInvitationEmail(
  to: string,
  {
    inviter,
    reviewTitle,
    role,
    link,
    expiresInDays,
  }: { inviter: string; reviewTitle: string; role: "reviewer" | "viewer"; link: string; expiresInDays: number },
): EmailMessage {
  const what =
    role === "reviewer" ? "a reviewer (screening, data extraction and risk of bias)" : "a viewer (read-only)";
  const text = [
    `${inviter} invited you to the systematic review "${reviewTitle}" on MetaMind as ${what}.`,
    "",
    `Accept here (sign in, or sign up first, with this e-mail address; the link works once and expires in ${expiresInDays} days):`,
    link,
    "",
    "If you did not expect this, ignore this e-mail.",
  ].join("\n");
  const href = escapeHtml(link);
  const html = `<p>${escapeHtml(inviter)} invited you to the systematic review “${escapeHtml(reviewTitle)}” on MetaMind as ${what}.</p>
<p><a href="${href}">Accept the invitation</a> (sign in, or sign up first, with this e-mail address; the link works once and expires in ${expiresInDays} days).</p>
<p style="color:#555">Or paste this address into your browser: ${href}</p>
<p style="color:#555">If you did not expect this, ignore this e-mail.</p>`;
  return { to, subject: `Invitation to review “${reviewTitle.slice(0, 120)}” on MetaMind`, text, html };
}

/**
 * A living review's digest: how many new records an update brought in, how many of them the
 * review's model ranks among the first `top` records of the screening queue, any search that failed,
 * and the link to screen them.
 */
export function livingDigestEmail(
  to: string,
  d: { reviewTitle: string; newRecords: number; nearTop: number; top: number; failed: number; link: string },
): EmailMessage {
  const records = `${d.newRecords} new record${d.newRecords === 1 ? "" : "s"}`;
  const ranked =
    d.nearTop === 0
      ? `None of them is among the first ${d.top} records of your screening queue.`
      : `${d.nearTop} of them ${d.nearTop === 1 ? "is" : "are"} among the first ${d.top} records of your screening queue, ranked by the review's model.`;
  const failed = d.failed
    ? `${d.failed} search${d.failed === 1 ? "" : "es"} could not be run this time; the review's update history says why.`
    : "";
  const text = [
    `The update of your living review "${d.reviewTitle}" found ${records}.`,
    ranked,
    failed,
    "",
    `Screen them: ${d.link}`,
  ]
    .filter((l, i) => l !== "" || i === 3)
    .join("\n");
  const html = `<p>The update of your living review <strong>${escapeHtml(d.reviewTitle)}</strong> found ${records}.</p>
<p>${escapeHtml(ranked)}</p>${failed ? `\n<p style="color:#555">${escapeHtml(failed)}</p>` : ""}
<p><a href="${escapeHtml(d.link)}">Screen the new records</a></p>`;
  return { to, subject: `${records} in "${d.reviewTitle}"`, text, html };
}

/** The daily digest of a team review's screening conflicts waiting for a resolution (issue 30). */
export function conflictsDigestEmail(
  to: string,
  d: { reviewTitle: string; conflicts: number; titleAbstract: number; fullText: number; link: string },
): EmailMessage {
  const what = `${d.conflicts} screening conflict${d.conflicts === 1 ? "" : "s"} waiting`;
  const split = `${d.titleAbstract} at title/abstract, ${d.fullText} at full text`;
  const text = [
    `The review "${d.reviewTitle}" has ${what} (${split}).`,
    "",
    "Resolve them in the Team tab:",
    d.link,
    "",
    "You get this e-mail once a day while conflicts wait; turn it off in the Team tab.",
  ].join("\n");
  const html = `<p>The review “${escapeHtml(d.reviewTitle)}” has <strong>${what}</strong> (${split}).</p>
<p><a href="${escapeHtml(d.link)}">Resolve them in the Team tab</a>.</p>
<p style="color:#555">You get this e-mail once a day while conflicts wait; turn it off in the Team tab.</p>`;
  return { to, subject: `${what}: “${d.reviewTitle.slice(0, 120)}”`, text, html };
}
