/**
 * Outgoing mail. With RAMPART_SMTP_URL, messages go through that SMTP server (with timeouts);
 * without it, each message is written as an `.eml` file under `<data dir>/mail/` (with a plain
 * `.txt` copy of its text beside it), so a fresh install still shows what it would have sent.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { AppError } from '../shared/errors.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

export interface Mailer {
  /** Sends or stores the message; returns where it went (an SMTP message id or a file path). */
  send(message: MailMessage): Promise<{ messageId: string; file?: string }>;
  close(): void;
}

const SMTP_TIMEOUT_MS = 15_000;

export function createMailer(options: { smtpUrl: string | undefined; from: string; dataDir: string }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport({
      url: options.smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    return {
      async send(message) {
        try {
          const info = await transport.sendMail({ from: options.from, ...message });
          return { messageId: info.messageId };
        } catch (error) {
          throw new AppError('service_unavailable', 'The mail server could not be reached; try again later.', {
            cause: error,
            context: { smtpError: error instanceof Error ? error.message : String(error) },
          });
        }
      },
      close: () => transport.close(),
    };
  }

  const dir = path.join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message });
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const safeId = info.messageId.replace(/[^A-Za-z0-9.@-]/g, '');
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${safeId}.eml`);
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
      // The .eml encodes long lines (quoted-printable), which mangles links for someone reading it with
      // `cat`; a plain-text copy beside it reads as sent.
      await fs.writeFile(file.replace(/\.eml$/, '.txt'), `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`, { mode: 0o600 });
      return { messageId: info.messageId, file };
    },
    close: () => transport.close(),
  };
}
