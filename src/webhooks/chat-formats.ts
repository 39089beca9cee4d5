/**
 * Native chat messages for webhook deliveries (DESIGN.md "Chat services"): a webhook whose URL is a
 * Slack, Discord or Microsoft Teams incoming-webhook URL gets that service's own message format;
 * any other URL gets the event body itself.
 *
 * Scan names, targets and error texts are user text: every field is cut to the service's documented
 * limit (in UTF-16 code units, never fewer than the services count, so always safe) and escaped for
 * the service's markup, so a hostile name can neither break a delivery nor ping a channel.
 */
import type { ThreatCounts, WebhookEvent } from './event.js';

/** Which message format a webhook gets; stored on the webhook and shown in its resource. */
export type ChatService = 'generic' | 'slack' | 'discord' | 'teams';

const SLACK_HOSTS = new Set(['hooks.slack.com', 'hooks.slack-gov.com']);
const DISCORD_HOSTS = new Set([
  'discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com', 'ptb.discordapp.com', 'canary.discordapp.com',
]);

/**
 * The chat service an incoming-webhook URL belongs to, from its host and path; 'generic' for any
 * other URL or text that is not a URL. Hosts are compared whole or on a dot-led suffix, so a
 * look-alike such as `hooks.slack.com.evil.example` stays generic. The scheme is not looked at:
 * the webhook service enforces https on its own.
 */
export function detectService(url: string): ChatService {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'generic';
  }
  // A trailing dot names the same DNS host ("hooks.slack.com." is absolute).
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  const path = parsed.pathname;
  if (SLACK_HOSTS.has(host) && /^\/(services|workflows)\/./.test(path)) return 'slack';
  if (DISCORD_HOSTS.has(host) && /^\/api\/(v\d+\/)?webhooks\/./.test(path)) return 'discord';
  const teams =
    // Office 365 connectors: the current per-tenant host, then the retired shared one.
    (host.endsWith('.webhook.office.com') && path.startsWith('/webhookb2/')) ||
    ((host === 'outlook.office.com' || host === 'outlook.office365.com') && path.startsWith('/webhook/')) ||
    // Power Automate "Workflows" (the connectors' replacement): Logic Apps and Power Platform hosts.
    (host.endsWith('.logic.azure.com') && path.includes('/workflows/')) ||
    (host.endsWith('.environment.api.powerplatform.com') && path.includes('/powerautomate/automations/direct/workflows/'));
  return teams ? 'teams' : 'generic';
}

type Threat = keyof ThreatCounts;
/** What sets a message's emoji and colour: the worst threat found, or that the run failed. */
type Level = Threat | 'none' | 'failed';

const THREATS: readonly Threat[] = ['critical', 'high', 'medium', 'low', 'informational'];
const LABEL: Record<Threat, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', informational: 'Informational' };
const ELLIPSIS = '…';
// Budgets for user text, in code units before escaping; each field's own limit still caps the result.
const TARGET_BUDGET = 500;
const TYPE_BUDGET = 40;
const ERROR_BUDGET = 1500;
const FALLBACK_NAME_BUDGET = 200;
const PING_NOTE = 'This is a test message from Rampart: the scan above is sample data.';

/** `text` cut to `n` code units, stepping back rather than cutting a surrogate pair in half. */
function cut(text: string, n: number): string {
  const last = text.charCodeAt(n - 1);
  return (last >= 0xd800 && last <= 0xdbff ? text.slice(0, n - 1) : text.slice(0, n)).trimEnd();
}

/**
 * `text` escaped and, if longer than `max`, cut with an ellipsis. The raw text is cut before it is
 * escaped, so an escape (`&amp;`, `\*`) is never cut in half; escaping only lengthens text, so the
 * longest prefix that fits is found by bisection.
 */
function fit(text: string, max: number, escape: (s: string) => string = (s) => s): string {
  const whole = escape(text);
  if (whole.length <= max) return whole;
  if (max < ELLIPSIS.length) return '';
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (escape(cut(text, mid)).length + ELLIPSIS.length <= max) lo = mid;
    else hi = mid - 1;
  }
  return escape(cut(text, lo)) + ELLIPSIS;
}

/** `prefix + text + suffix` within `max`, cutting only `text`, so the outcome always shows. */
function frame(prefix: string, text: string, suffix: string, max: number, escape?: (s: string) => string): string {
  return prefix + fit(text, max - prefix.length - suffix.length, escape) + suffix;
}

/**
 * User text on one line: control characters, line breaks and bidi overrides (which can make a name
 * read backwards) become spaces, and lone surrogates, which the services reject, become U+FFFD.
 */
function clean(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/[\s\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ')
    .trim();
}

/** Slack's mrkdwn escaping: only these three are control characters ("Escaping text" in its docs). */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Discord markdown: a backslash before punctuation shows it as itself. These are the characters that
 * start markup mid-line (emphasis, code, spoilers, masked links, mentions); user text never starts a
 * line here, so line-start markup (`#`, `>`, `-`) cannot begin in it.
 */
function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|[\]<@]/g, '\\$&');
}

interface Summary {
  level: Level;
  worst: string;
  ping: boolean;
  /** The headline is prefix + scan name + suffix; only the name is ever cut. */
  prefix: string;
  suffix: string;
  name: string;
  target: string;
  type: string;
  /** Why the run failed, cleaned; empty when it did not. */
  error: string;
  counts: ThreatCounts;
  countsLine: string;
  when: string;
  pdf: string;
}

function summarize(event: WebhookEvent): Summary {
  const { scan, run } = event.data;
  const failed = event.type === 'scan.failed';
  const worst = THREATS.find((t) => run.counts[t] > 0);
  const verb = !failed ? 'completed' : run.outcome === 'cancelled' ? 'was cancelled' : 'failed';
  const error = failed ? clean(run.error ?? '') || (run.outcome === 'cancelled' ? 'The run was cancelled.' : 'No reason was recorded.') : '';
  return {
    level: failed ? 'failed' : (worst ?? 'none'),
    worst: worst ? LABEL[worst] : 'None',
    ping: event.type === 'ping',
    prefix: event.type === 'ping' ? 'Test message from Rampart: scan “' : 'Scan “',
    suffix: `” ${verb}`,
    name: clean(scan.name) || 'Untitled',
    target: clean(scan.target),
    type: clean(scan.type),
    error,
    counts: run.counts,
    countsLine: THREATS.map((t) => `${run.counts[t]} ${t}`).join(', '),
    when: run.completed_at ?? event.created_at,
    pdf: run.report_urls.pdf,
  };
}

// Slack Block Kit limits: https://api.slack.com/reference/block-kit/blocks
const SLACK_HEADER_MAX = 150;
const SLACK_SECTION_TEXT_MAX = 3000;
const SLACK_BUTTON_URL_MAX = 3000;
const SLACK_EMOJI: Record<Level, string> = {
  critical: ':red_circle:', high: ':red_circle:', medium: ':large_orange_circle:', low: ':large_yellow_circle:',
  informational: ':white_circle:', none: ':white_circle:', failed: ':x:',
};

function slackMessage(event: WebhookEvent, s: Summary) {
  // verbatim: Slack would otherwise turn bare URLs and channel names in user text into links.
  const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });
  const lines = [
    `*Target:* ${fit(s.target, TARGET_BUDGET, escapeSlack)}`,
    `*Run:* #${event.data.run.run_index} · ${fit(s.type, TYPE_BUDGET, escapeSlack)} scan`,
    `*Worst threat:* ${s.worst}`,
    ...(s.error ? [`*Error:* ${fit(s.error, ERROR_BUDGET, escapeSlack)}`] : []),
    ...(s.ping ? [`_${PING_NOTE}_`] : []),
  ];
  const epoch = Math.floor(Date.parse(s.when) / 1000);
  // <!date^…|fallback> shows the time in each reader's own time zone.
  const when = Number.isFinite(epoch) ? `<!date^${epoch}^{date_short_pretty} at {time}|${s.when}>` : escapeSlack(s.when);
  return {
    text: frame(s.prefix, s.name, s.suffix, s.prefix.length + FALLBACK_NAME_BUDGET + s.suffix.length, escapeSlack) +
      `: ${s.countsLine}. Worst threat: ${s.worst}.`,
    blocks: [
      // plain_text is never parsed for markup, so the name goes in unescaped.
      { type: 'header', text: { type: 'plain_text', text: frame(`${SLACK_EMOJI[s.level]} ${s.prefix}`, s.name, s.suffix, SLACK_HEADER_MAX), emoji: true } },
      { type: 'section', text: mrkdwn(fit(lines.join('\n'), SLACK_SECTION_TEXT_MAX)), fields: THREATS.map((t) => mrkdwn(`*${LABEL[t]}*\n${s.counts[t]}`)) },
      { type: 'context', elements: [mrkdwn(`Rampart · ${event.type} · ${when}`)] },
      // A cut URL would be a broken link: leave the button out rather than send one.
      ...(s.pdf.length <= SLACK_BUTTON_URL_MAX
        ? [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open the PDF report' }, url: s.pdf }] }]
        : []),
    ],
  };
}

// Discord embed limits: https://discord.com/developers/docs/resources/message#embed-object-embed-limits
// Title 256 + description 4096 + six short fields + a short footer stay under the 6000 total.
const DISCORD_TITLE_MAX = 256;
const DISCORD_DESCRIPTION_MAX = 4096;
const DISCORD_COLOR: Record<Level, number> = {
  critical: 0x7b1fa2, high: 0xd32f2f, medium: 0xf57c00, low: 0xfbc02d, informational: 0x1976d2, none: 0x1976d2, failed: 0x616161,
};

function discordMessage(event: WebhookEvent, s: Summary) {
  const lines = [
    `**Target:** ${fit(s.target, TARGET_BUDGET, escapeDiscord)}`,
    `**Run:** #${event.data.run.run_index} · ${fit(s.type, TYPE_BUDGET, escapeDiscord)} scan`,
    ...(s.error ? [`**Error:** ${fit(s.error, ERROR_BUDGET, escapeDiscord)}`] : []),
    ...(s.ping ? [`*${PING_NOTE}*`] : []),
  ];
  const fields = THREATS.map((t) => ({ name: LABEL[t], value: String(s.counts[t]), inline: true }));
  return {
    embeds: [
      {
        title: frame(s.prefix, s.name, s.suffix, DISCORD_TITLE_MAX, escapeDiscord),
        description: fit(lines.join('\n'), DISCORD_DESCRIPTION_MAX),
        url: s.pdf,
        color: DISCORD_COLOR[s.level],
        fields: [...fields, { name: 'Worst threat', value: s.worst, inline: true }],
        timestamp: s.when,
        footer: { text: `Rampart · ${event.type}` },
      },
    ],
    // Escaping hides a mention's markup; this makes sure no @everyone, role or user is pinged at all.
    allowed_mentions: { parse: [] },
  };
}

// Teams: Adaptive Card 1.4 (https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-reference).
// The whole message must stay under 28 KB. User text is at most about 3,200 code units here, each at
// most 3 bytes of UTF-8 in JSON (control characters, which JSON would spell as 6, are cleaned out).
const TEAMS_TITLE_BUDGET = 1100;
const TEAMS_COLOR: Record<Level, string> = {
  critical: 'Attention', high: 'Attention', failed: 'Attention', medium: 'Warning', low: 'Warning', informational: 'Good', none: 'Good',
};

function teamsMessage(event: WebhookEvent, s: Summary) {
  // TextBlock and Fact values are read as Markdown, and Teams clients disagree on backslash escapes
  // (some show the backslashes), so user text goes in TextRuns, which are never read as Markdown.
  const plain = (text: string, style: Record<string, string | boolean> = {}) => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text, ...style }] });
  const outcome = s.error
    ? plain(`Error: ${fit(s.error, ERROR_BUDGET)}`, { color: 'Attention' })
    : plain(s.ping ? PING_NOTE : `Completed ${s.when}`, { isSubtle: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            plain(frame(s.prefix, s.name, s.suffix, TEAMS_TITLE_BUDGET), { weight: 'Bolder', size: 'Medium', color: TEAMS_COLOR[s.level] }),
            plain(`Target: ${fit(s.target, TARGET_BUDGET)}`),
            plain(`Run #${event.data.run.run_index} · ${fit(s.type, TYPE_BUDGET)} scan`),
            {
              type: 'FactSet',
              facts: [...THREATS.map((t) => ({ title: LABEL[t], value: String(s.counts[t]) })), { title: 'Worst threat', value: s.worst }],
            },
            outcome,
          ],
          actions: [{ type: 'Action.OpenUrl', title: 'Open the PDF report', url: s.pdf }],
        },
      },
    ],
  };
}

/**
 * The JSON body to deliver for `event` to a webhook of `service`: the event itself for generic
 * receivers, else the service's native message naming the scan, its outcome (with the error when
 * it failed), the run number, the target, the counts by threat, the worst threat and a link to the
 * PDF report. A `ping` renders its sample data and says it is a test message from Rampart.
 */
export function chatPayload(service: ChatService, event: WebhookEvent): unknown {
  switch (service) {
    case 'generic':
      return event;
    case 'slack':
      return slackMessage(event, summarize(event));
    case 'discord':
      return discordMessage(event, summarize(event));
    case 'teams':
      return teamsMessage(event, summarize(event));
  }
}
