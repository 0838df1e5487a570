import type { Transporter } from 'nodemailer';
import type { Db } from '../db/client.ts';
import { mailOutbox } from '../db/schema.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Records the message in mail_outbox and, when SMTP is configured, sends it (sent_at set on success). */
  send(mail: OutgoingMail): Promise<void>;
  /** Absolute link to a page of the app when VIGIE_PUBLIC_URL is set, else the path alone. */
  link(pathAndQuery: string): string;
  close(): void;
}

const DEFAULT_FROM = 'Vigie <no-reply@vigie.local>';

/**
 * Mail transport. Without VIGIE_SMTP_URL (smtp:// or smtps://, credentials in the URL) nothing leaves
 * the machine: messages wait in mail_outbox, where an operator or a test can read them.
 * Links come from VIGIE_PUBLIC_URL, never from the request's Host header, which a caller controls
 * (a forged Host would otherwise send reset links to the attacker's site).
 */
export function createMailer(db: Db, env: NodeJS.ProcessEnv = process.env): Mailer {
  const smtpUrl = env.VIGIE_SMTP_URL?.trim() || undefined;
  const from = env.VIGIE_MAIL_FROM?.trim() || DEFAULT_FROM;
  const publicUrl = env.VIGIE_PUBLIC_URL?.trim().replace(/\/+$/, '') || '';
  let transport: Promise<Transporter> | undefined;

  const smtp = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport(smtpUrl, {
        // Bounded, so a dead server cannot hold a request or the shutdown for long.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    ));

  return {
    async send(mail) {
      let sentAt: Date | null = null;
      let failure: Error | undefined;
      if (smtpUrl) {
        try {
          await (await smtp()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
          sentAt = new Date();
        } catch (err) {
          failure = err instanceof Error ? err : new Error(String(err));
        }
      }
      // An unsent message stays in the outbox (sent_at null) so it is not lost.
      await db.insert(mailOutbox).values({ recipient: mail.to, subject: mail.subject, body: mail.text, sentAt });
      if (failure) throw failure;
    },
    link(pathAndQuery) {
      return `${publicUrl}${pathAndQuery}`;
    },
    close() {
      void transport?.then((t) => t.close()).catch(() => {});
    },
  };
}
