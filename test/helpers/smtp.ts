/** A real SMTP server on loopback that keeps every message it receives. */
import type { TestContext } from 'node:test';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpReceiver {
  url: string;
  messages: ReceivedMail[];
  /** Resolves with the next message received (or one already waiting). */
  next(): Promise<ReceivedMail>;
}

/** `refuseFirst`: that many messages are answered with a temporary failure (451) first. */
export async function startSmtpReceiver(t: TestContext, options: { refuseFirst?: number } = {}): Promise<SmtpReceiver & { refused: number }> {
  const messages: ReceivedMail[] = [];
  const state = { refused: 0 };
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  let consumed = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refused < (options.refuseFirst ?? 0)) {
          state.refused++;
          callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          return;
        }
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        };
        messages.push(mail);
        waiting.shift()?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    get refused() {
      return state.refused;
    },
    next() {
      const ready = messages[consumed];
      if (ready) {
        consumed++;
        return Promise.resolve(ready);
      }
      return new Promise((resolve) =>
        waiting.push((mail) => {
          consumed++;
          resolve(mail);
        }),
      );
    },
  };
}
