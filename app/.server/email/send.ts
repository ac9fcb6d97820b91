import type { AppEnv } from "../env";

/** One message to one recipient. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where a message went: an e-mail API (with its message id when given), or nowhere. */
export type EmailDelivery = { sent: true; provider: "resend" | "postmark"; id: string | null } | { sent: false };

type EmailEnv = Pick<AppEnv, "EMAIL_PROVIDER" | "EMAIL_API_KEY" | "EMAIL_FROM" | "EMAIL_API_BASE">;

const DEFAULT_BASES = { resend: "https://api.resend.com", postmark: "https://api.postmarkapp.com" } as const;
/** Largest provider answer read (an id or an error object). */
const MAX_ANSWER_BYTES = 16 * 1024;

/** True when an e-mail API is configured (provider and key). */
export function emailConfigured(env: EmailEnv): boolean {
  return Boolean(env.EMAIL_PROVIDER && env.EMAIL_API_KEY);
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      break;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/**
 * Sends one message through the configured e-mail API over HTTP (the providers' official SDKs
 * are thin wrappers over these calls):
 * - Resend: `POST {base}/emails`, `Authorization: Bearer KEY`, `{from, to: [..], subject, text, html}`
 *   → `{id}` (https://resend.com/docs/api-reference/emails/send-email).
 * - Postmark: `POST {base}/email`, `X-Postmark-Server-Token: KEY`, `{From, To, Subject, TextBody,
 *   HtmlBody, MessageStream: "outbound"}` → `{MessageID, ErrorCode: 0}`
 *   (https://postmarkapp.com/developer/api/email-api).
 * Returns `{sent:false}` when no provider/key is configured.
 * @throws Error when the provider refuses the message (status and its answer, capped at 16 KB).
 */
export async function sendEmail(
  deps: { fetch: typeof fetch; env: EmailEnv },
  message: EmailMessage,
): Promise<EmailDelivery> {
  const { env } = deps;
  if (!env.EMAIL_PROVIDER || !env.EMAIL_API_KEY) return { sent: false };
  const base = (env.EMAIL_API_BASE ?? DEFAULT_BASES[env.EMAIL_PROVIDER]).replace(/\/+$/, "");
  const request =
    env.EMAIL_PROVIDER === "resend"
      ? new Request(`${base}/emails`, {
          method: "POST",
          headers: { Authorization: `Bearer ${env.EMAIL_API_KEY}`, "Content-Type": "application/json" },
          body: JSON.stringify({
            from: env.EMAIL_FROM,
            to: [message.to],
            subject: message.subject,
            text: message.text,
            html: message.html,
          }),
        })
      : new Request(`${base}/email`, {
          method: "POST",
          headers: {
            "X-Postmark-Server-Token": env.EMAIL_API_KEY,
            "Content-Type": "application/json",
            Accept: "application/json",
          },
          body: JSON.stringify({
            From: env.EMAIL_FROM,
            To: message.to,
            Subject: message.subject,
            TextBody: message.text,
            HtmlBody: message.html,
            MessageStream: "outbound",
          }),
        });
  const response = await deps.fetch(request);
  const answer = await readCapped(response);
  if (!response.ok)
    throw new Error(`${env.EMAIL_PROVIDER} refused the e-mail: ${response.status} ${answer.slice(0, 500)}`);
  let id: string | null = null;
  try {
    const parsed = JSON.parse(answer) as { id?: unknown; MessageID?: unknown };
    const value = env.EMAIL_PROVIDER === "resend" ? parsed.id : parsed.MessageID;
    id = typeof value === "string" ? value : null;
  } catch {
    id = null;
  }
  return { sent: true, provider: env.EMAIL_PROVIDER, id };
}
