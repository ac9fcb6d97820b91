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
