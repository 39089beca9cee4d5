import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatPayload, detectService, type ChatService } from '../src/webhooks/chat-formats.js';
import { SAMPLE_SCAN_UUID, samplePingEvent, type ThreatCounts, type WebhookEvent } from '../src/webhooks/event.js';
import { REPORT_FORMATS, type ReportFormat } from '../src/reports/report.js';

/** Report links of the sample run as the service signs them (the signature here is a stand-in). */
const pingLinks = (base: string) =>
  Object.fromEntries(REPORT_FORMATS.map((f) => [f, `${base}/api/reports/${SAMPLE_SCAN_UUID}/1/${f}?expires=1714557600&signature=sig`])) as Record<ReportFormat, string>;

// Documented limits, in characters unless said otherwise. Each is checked against every payload.
// Slack Block Kit reference, https://api.slack.com/reference/block-kit/blocks
const SLACK_MAX_BLOCKS = 50; // "blocks: … a maximum of 50 blocks" per message
const SLACK_HEADER_TEXT_MAX = 150; // Header block: text, "Maximum length … 150 characters"
const SLACK_SECTION_TEXT_MAX = 3000; // Section block: text, "Maximum length … 3000 characters"
const SLACK_SECTION_FIELDS_MAX = 10; // Section block: fields, "Maximum number of items is 10"
const SLACK_FIELD_TEXT_MAX = 2000; // Section block: fields, "Maximum length for the text in each item is 2000"
const SLACK_CONTEXT_ELEMENTS_MAX = 10; // Context block: elements, "Maximum number of items is 10"
const SLACK_ACTIONS_ELEMENTS_MAX = 25; // Actions block: elements, "maximum of 25 elements"
// Slack button element, https://api.slack.com/reference/block-kit/block-elements#button
const SLACK_BUTTON_TEXT_MAX = 75; // text: "Maximum length … 75 characters"
const SLACK_BUTTON_URL_MAX = 3000; // url: "Maximum length … 3000 characters"
// Slack chat.postMessage, https://api.slack.com/methods/chat.postMessage#truncating
const SLACK_TEXT_MAX = 40000; // top-level text is truncated past 40,000 characters
// Discord embed limits, https://discord.com/developers/docs/resources/message#embed-object-embed-limits
const DISCORD_TITLE_MAX = 256;
const DISCORD_DESCRIPTION_MAX = 4096;
const DISCORD_FIELDS_MAX = 25;
const DISCORD_FIELD_NAME_MAX = 256;
const DISCORD_FIELD_VALUE_MAX = 1024;
const DISCORD_FOOTER_TEXT_MAX = 2048;
const DISCORD_EMBED_TOTAL_MAX = 6000; // title + description + field names and values + footer + author
const DISCORD_EMBEDS_MAX = 10; // Execute Webhook, https://discord.com/developers/docs/resources/webhook#execute-webhook
const DISCORD_CONTENT_MAX = 2000; // same page: content, "up to 2000 characters"
// Teams cards reference, https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-reference
// ("The message size limit is 28 KB"); read as 28,000 bytes of UTF-8 JSON, the stricter reading.
const TEAMS_MAX_BYTES = 28_000;

const PDF = 'https://rampart.example/api/scans/pdf/7d1c1a52-9a4e-4c55-9d43-6a0f0e2c1b11?run_index=3';
const HOSTILE = '<script>alert(1)</script> @everyone <!channel> <@123> & [click](https://evil.example) **bold** `x` ';
/** A 5000-code-unit hostile name; `shift` moves where the emoji pairs fall against any cut. */
const hostileName = (shift = 0) => (HOSTILE + 'x'.repeat(shift) + '😀'.repeat(2500)).slice(0, 5000);
const NO_FINDINGS: ThreatCounts = { critical: 0, high: 0, medium: 0, low: 0, informational: 0 };

function makeEvent(type: 'scan.completed' | 'scan.failed', over: { name?: string; target?: string; error?: string | null; counts?: Partial<ThreatCounts>; outcome?: 'failed' | 'cancelled' } = {}): WebhookEvent {
  return {
    id: 'evt_0123',
    type,
    created_at: '2024-05-01T10:00:05.000Z',
    data: {
      scan: { uuid: '7d1c1a52-9a4e-4c55-9d43-6a0f0e2c1b11', name: over.name ?? 'Weekly perimeter', type: 'Nuclei', target: over.target ?? 'app.example.com' },
      run: {
        run_index: 3,
        outcome: type === 'scan.completed' ? 'succeeded' : (over.outcome ?? 'failed'),
        completed_at: '2024-05-01T10:00:00.000Z',
        error: over.error ?? (type === 'scan.failed' ? 'Engine crashed: <boom> & more' : null),
        error_kind: type === 'scan.failed' ? 'internal' : null,
        counts: { ...NO_FINDINGS, high: 2, low: 1, ...over.counts },
        report_urls: { pdf: PDF, html: PDF.replace('/pdf/', '/html/'), csv: '', txt: '', xml: '' },
      },
    },
  };
}

/** Every string in a payload, so none can slip past the well-formedness check. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const assertWellFormed = (payload: unknown) => strings(payload).forEach((s) => assert.doesNotMatch(s, LONE_SURROGATE, 'a surrogate pair was cut'));

// Hostile inputs for every format: long names at each alignment, hostile targets and errors.
const HOSTILE_EVENTS: [string, WebhookEvent][] = [
  ...[0, 1, 2, 3].map((shift): [string, WebhookEvent] => [`completed, shift ${shift}`, makeEvent('scan.completed', { name: hostileName(shift), target: HOSTILE.repeat(60) })]),
  ['failed', makeEvent('scan.failed', { name: hostileName(), target: HOSTILE.repeat(60), error: HOSTILE.repeat(300) })],
  ['ping', samplePingEvent(pingLinks('https://rampart.example'), new Date('2024-05-01T10:00:00Z'), 'evt_ping')],
];

test('detectService: by host and path, never by look-alikes', () => {
  const cases: Record<ChatService, string[]> = {
    slack: [
      'https://hooks.slack.com/services/T000/B000/XXXXXXXX', 'http://hooks.slack.com/services/T000/B000/XXXXXXXX',
      'https://HOOKS.Slack.com/services/T000/B000/XXXXXXXX', 'https://hooks.slack.com/workflows/T000/A000/123/abc',
    ],
    discord: [
      'https://discord.com/api/webhooks/123/token', 'http://discordapp.com/api/webhooks/123/token',
      'https://ptb.discord.com/api/webhooks/123/token', 'https://canary.discord.com/api/webhooks/123/token',
      'https://discord.com/api/v10/webhooks/123/token',
    ],
    teams: [
      'https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d', 'http://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d',
      'https://outlook.office.com/webhook/a@b/IncomingWebhook/c/d',
      'https://prod-12.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=x',
      'https://default1a2b.c3.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/abc/triggers/manual/paths/invoke?sig=x',
    ],
    generic: [
      'https://hooks.slack.com.evil.example/services/T000/B000/X', 'https://evilhooks.slack.com/services/T000/B000/X',
      'https://hooks.slack.com@evil.example/services/T000/B000/X', 'https://evil.example/hooks.slack.com/services/T000/B000/X',
      'https://evil.example/?u=https://hooks.slack.com/services/T000', 'https://hooks.slack.com/api/chat.postMessage',
      'https://slack.com/services/T000/B000/X', 'https://discord.com.evil.example/api/webhooks/123/token',
      'https://evildiscord.com/api/webhooks/123/token', 'https://discord.com/channels/123/456',
      'https://webhook.office.com.evil.example/webhookb2/a', 'https://evilwebhook.office.com/webhookb2/a',
      'https://contoso.webhook.office.com/other/a', 'https://logic.azure.com.evil.example/workflows/abc',
      'https://evil.example/workflows/abc', 'https://example.com/webhook', 'not a url', '',
    ],
  };
  for (const [expected, urls] of Object.entries(cases)) for (const url of urls) assert.equal(detectService(url), expected, url);
});

test('samplePingEvent: sample data and the report links it is given; generic webhooks get it as is', () => {
  const e = samplePingEvent(pingLinks('https://rampart.example'), new Date('2024-05-01T10:00:00Z'), 'evt_1');
  assert.equal(e.type, 'ping');
  assert.equal(e.id, 'evt_1');
  assert.equal(e.created_at, '2024-05-01T10:00:00.000Z');
  assert.deepEqual(e.data.scan, { uuid: '00000000-0000-0000-0000-000000000000', name: 'Sample scan', type: 'Rampart', target: 'scanme.example.com' });
  assert.deepEqual(e.data.run.counts, { critical: 1, high: 2, medium: 3, low: 4, informational: 5 });
  assert.deepEqual(e.data.run.report_urls, pingLinks('https://rampart.example'));
  assert.equal(e.data.run.error, null);
  assert.equal(chatPayload('generic', e), e);
});

test('user text is put on one line: no line breaks, control or bidi characters, lone surrogates', () => {
  // U+202E would make the rest of the name read backwards; a lone surrogate is rejected as bad JSON text.
  const event = makeEvent('scan.failed', { name: 'a\nb\r\n\tc\u202Ed\uD800e\u0000f', error: 'line 1\n  line 2' });
  const header = (chatPayload('slack', event) as Obj).blocks[0].text.text;
  assert.equal(header, ':x: Scan “a b c d\uFFFDe f” failed');
  const runs = (chatPayload('teams', event) as Obj).attachments[0].content.body.flatMap((b: Obj) => b.inlines ?? []);
  assert.equal(runs.at(-1).text, 'Error: line 1 line 2');
});

type Obj = Record<string, any>;

// Worst threat -> Slack emoji, Discord colour, Teams title colour (a failed run: :x:, 0x616161, Attention).
const BY_WORST_THREAT: [Partial<ThreatCounts>, string, number, string][] = [
  [{ critical: 1, high: 1, low: 9 }, ':red_circle:', 0x7b1fa2, 'Attention'],
  [{ high: 1, medium: 5 }, ':red_circle:', 0xd32f2f, 'Attention'],
  [{ medium: 1, informational: 3 }, ':large_orange_circle:', 0xf57c00, 'Warning'],
  [{ low: 1 }, ':large_yellow_circle:', 0xfbc02d, 'Warning'],
  [{ informational: 1 }, ':white_circle:', 0x1976d2, 'Good'],
  [{}, ':white_circle:', 0x1976d2, 'Good'],
];
const withCounts = (counts: Partial<ThreatCounts>) => makeEvent('scan.completed', { counts: { ...NO_FINDINGS, ...counts } });

/** The mrkdwn texts of a Slack message, with our one trusted `<!date^…>` token taken out. */
function slackMrkdwn(p: Obj): string[] {
  const texts: string[] = [p.text];
  for (const b of p.blocks) {
    if (b.type === 'section') texts.push(b.text.text, ...b.fields.map((f: Obj) => f.text));
    if (b.type === 'context') texts.push(...b.elements.map((e: Obj) => e.text));
  }
  return texts.map((t) => t.replace(/<!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^<>|]+>/, ''));
}

test('Slack: Block Kit within every limit, escaped, with the report button', async (t) => {
  for (const [label, event] of HOSTILE_EVENTS) {
    await t.test(label, () => {
      const p = chatPayload('slack', event) as Obj;
      assertWellFormed(p);
      assert.ok(p.text.length <= SLACK_TEXT_MAX);
      assert.ok(p.blocks.length <= SLACK_MAX_BLOCKS);
      const [header, section, context, actions] = p.blocks;
      assert.equal(header.type, 'header');
      assert.equal(header.text.type, 'plain_text');
      assert.ok(header.text.text.length <= SLACK_HEADER_TEXT_MAX, `header ${header.text.text.length}`);
      assert.equal(section.type, 'section');
      assert.ok(section.text.text.length <= SLACK_SECTION_TEXT_MAX);
      assert.ok(section.fields.length <= SLACK_SECTION_FIELDS_MAX);
      for (const f of section.fields) assert.ok(f.type === 'mrkdwn' && f.text.length <= SLACK_FIELD_TEXT_MAX);
      assert.equal(context.type, 'context');
      assert.ok(context.elements.length <= SLACK_CONTEXT_ELEMENTS_MAX);
      assert.equal(actions.type, 'actions');
      assert.ok(actions.elements.length <= SLACK_ACTIONS_ELEMENTS_MAX);
      const button = actions.elements[0];
      assert.equal(button.type, 'button');
      assert.ok(button.text.text.length <= SLACK_BUTTON_TEXT_MAX);
      assert.ok(button.url.length <= SLACK_BUTTON_URL_MAX);
      assert.equal(button.url, event.data.run.report_urls.pdf);
      for (const text of slackMrkdwn(p)) {
        assert.doesNotMatch(text, /[<>]/, `unescaped markup in ${text.slice(0, 80)}`);
        assert.doesNotMatch(text, /&(?!amp;|lt;|gt;)/, 'a bare & in mrkdwn');
      }
      if (event.type !== 'ping') {
        assert.match(header.text.text, /…” (completed|failed)$/);
        assert.match(p.text, /^Scan “&lt;script&gt;alert\(1\)&lt;\/script&gt; @everyone &lt;!channel&gt;/);
        assert.match(section.text.text, /\*Target:\* &lt;script&gt;/);
      }
    });
  }

  await t.test('says what happened: outcome, error, run, target, counts, worst threat', () => {
    const done = chatPayload('slack', makeEvent('scan.completed', { target: 'a&b.example' })) as Obj;
    assert.equal(done.blocks[0].text.text, ':red_circle: Scan “Weekly perimeter” completed');
    assert.equal(done.text, 'Scan “Weekly perimeter” completed: 0 critical, 2 high, 0 medium, 1 low, 0 informational. Worst threat: High.');
    assert.match(done.blocks[1].text.text, /\*Target:\* a&amp;b\.example\n\*Run:\* #3 · Nuclei scan\n\*Worst threat:\* High/);
    assert.deepEqual(done.blocks[1].fields.map((f: Obj) => f.text), ['*Critical*\n0', '*High*\n2', '*Medium*\n0', '*Low*\n1', '*Informational*\n0']);
    const failed = chatPayload('slack', makeEvent('scan.failed')) as Obj;
    assert.equal(failed.blocks[0].text.text, ':x: Scan “Weekly perimeter” failed');
    assert.match(failed.blocks[1].text.text, /\*Error:\* Engine crashed: &lt;boom&gt; &amp; more/);
    const cancelled = chatPayload('slack', makeEvent('scan.failed', { outcome: 'cancelled', error: null })) as Obj;
    assert.equal(cancelled.blocks[0].text.text, ':x: Scan “Weekly perimeter” was cancelled');
    const ping = chatPayload('slack', samplePingEvent(pingLinks('https://r.example'), new Date(), 'evt_p')) as Obj;
    assert.match(ping.blocks[0].text.text, /Test message from Rampart: scan “Sample scan” completed/);
    assert.match(ping.blocks[1].text.text, /test message from Rampart/);
  });
});

test('Discord: one embed within every limit, escaped, no mentions', async (t) => {
  for (const [label, event] of HOSTILE_EVENTS) {
    await t.test(label, () => {
      const p = chatPayload('discord', event) as Obj;
      assertWellFormed(p);
      assert.deepEqual(p.allowed_mentions, { parse: [] });
      assert.ok(p.content === undefined || p.content.length <= DISCORD_CONTENT_MAX);
      assert.ok(p.embeds.length >= 1 && p.embeds.length <= DISCORD_EMBEDS_MAX);
      let total = 0;
      for (const e of p.embeds) {
        assert.ok(e.title.length <= DISCORD_TITLE_MAX, `title ${e.title.length}`);
        assert.ok(e.description.length <= DISCORD_DESCRIPTION_MAX);
        assert.ok(e.fields.length <= DISCORD_FIELDS_MAX);
        for (const f of e.fields) assert.ok(f.name.length <= DISCORD_FIELD_NAME_MAX && f.value.length <= DISCORD_FIELD_VALUE_MAX && f.inline === true);
        assert.ok(e.footer.text.length <= DISCORD_FOOTER_TEXT_MAX);
        total += e.title.length + e.description.length + e.footer.text.length + e.fields.reduce((n: number, f: Obj) => n + f.name.length + f.value.length, 0);
        assert.equal(new Date(e.timestamp).toISOString(), e.timestamp);
        assert.ok(Number.isInteger(e.color));
        assert.equal(e.url, event.data.run.report_urls.pdf);
      }
      assert.ok(total <= DISCORD_EMBED_TOTAL_MAX, `embed total ${total}`);
      if (event.type !== 'ping') {
        const title: string = p.embeds[0].title;
        assert.match(title, /^Scan “\\<script>alert\(1\)\\<\/script> \\@everyone \\<!channel> \\<\\@123> & \\\[click\\\]\(https:\/\/evil\.example\) \\\*\\\*bold/);
        assert.match(title, /…” (completed|failed)$/);
        assert.doesNotMatch(p.embeds[0].description, /(^|[^\\])[<@[]/, 'unescaped markup in the description');
      }
    });
  }

  await t.test('says what happened', () => {
    const failed = (chatPayload('discord', makeEvent('scan.failed')) as Obj).embeds[0];
    assert.equal(failed.title, 'Scan “Weekly perimeter” failed');
    assert.equal(failed.description, '**Target:** app.example.com\n**Run:** #3 · Nuclei scan\n**Error:** Engine crashed: \\<boom> & more');
    assert.deepEqual(failed.fields.map((f: Obj) => `${f.name}=${f.value}`), ['Critical=0', 'High=2', 'Medium=0', 'Low=1', 'Informational=0', 'Worst threat=High']);
    assert.equal(failed.color, 0x616161);
    const ping = (chatPayload('discord', samplePingEvent(pingLinks('https://r.example'), new Date(), 'evt_p')) as Obj).embeds[0];
    assert.match(ping.title, /^Test message from Rampart/);
  });
});

/** The TextRuns of a Teams card's RichTextBlocks, in order. */
const teamsRuns = (card: Obj): Obj[] => card.body.filter((b: Obj) => b.type === 'RichTextBlock').flatMap((b: Obj) => b.inlines);

test('Teams: an Adaptive Card message under 28 KB, user text kept out of Markdown', async (t) => {
  // Characters that cost the most bytes per code unit in JSON: 3-byte UTF-8 and JSON-escaped quotes.
  const heavy = makeEvent('scan.failed', { name: '€'.repeat(5000), target: '"\\'.repeat(5000), error: '中"'.repeat(50_000) });
  for (const [label, event] of [...HOSTILE_EVENTS, ['heaviest bytes', heavy] as [string, WebhookEvent]]) {
    await t.test(label, () => {
      const p = chatPayload('teams', event) as Obj;
      assertWellFormed(p);
      const bytes = Buffer.byteLength(JSON.stringify(p), 'utf8');
      assert.ok(bytes <= TEAMS_MAX_BYTES, `${bytes} bytes`);
      assert.equal(p.type, 'message');
      assert.equal(p.attachments.length, 1);
      const [attachment] = p.attachments;
      assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
      assert.equal(attachment.contentUrl, null);
      const card = attachment.content;
      assert.equal(card.$schema, 'http://adaptivecards.io/schemas/adaptive-card.json');
      assert.equal(card.type, 'AdaptiveCard');
      assert.equal(card.version, '1.4');
      assert.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open the PDF report', url: event.data.run.report_urls.pdf }]);
      // Markdown is read in TextBlocks and Fact titles and values: none may carry user text.
      assert.ok(!card.body.some((b: Obj) => b.type === 'TextBlock'));
      const facts = card.body.find((b: Obj) => b.type === 'FactSet').facts;
      for (const f of facts) assert.match(`${f.title}=${f.value}`, /^[A-Za-z ]+=(\d+|[A-Za-z]+)$/);
      const title = teamsRuns(card)[0]!;
      assert.equal(title.weight, 'Bolder');
      assert.equal(title.size, 'Medium');
      if (event.type !== 'ping') assert.match(title.text, /…” (completed|failed)$/);
    });
  }

  await t.test('says what happened', () => {
    const card = (event: WebhookEvent) => (chatPayload('teams', event) as Obj).attachments[0].content;
    const failed = teamsRuns(card(makeEvent('scan.failed')));
    assert.deepEqual(failed.map((r) => r.text), [
      'Scan “Weekly perimeter” failed', 'Target: app.example.com', 'Run #3 · Nuclei scan', 'Error: Engine crashed: <boom> & more',
    ]);
    assert.equal(failed[0]!.color, 'Attention');
    const facts = card(makeEvent('scan.completed')).body.find((b: Obj) => b.type === 'FactSet').facts;
    assert.deepEqual(facts.map((f: Obj) => `${f.title}=${f.value}`), ['Critical=0', 'High=2', 'Medium=0', 'Low=1', 'Informational=0', 'Worst threat=High']);
    const ping = teamsRuns(card(samplePingEvent(pingLinks('https://r.example'), new Date(), 'evt_p')));
    assert.match(ping[0]!.text, /^Test message from Rampart/);
    assert.match(ping.at(-1)!.text, /test message from Rampart/);
  });
});

test('emoji and colours follow the worst threat', () => {
  for (const [counts, emoji, discordColor, teamsColor] of BY_WORST_THREAT) {
    const event = withCounts(counts);
    assert.equal((chatPayload('slack', event) as Obj).blocks[0].text.text.split(' ')[0], emoji, JSON.stringify(counts));
    assert.equal((chatPayload('discord', event) as Obj).embeds[0].color, discordColor, JSON.stringify(counts));
    assert.equal(teamsRuns((chatPayload('teams', event) as Obj).attachments[0].content)[0]!.color, teamsColor, JSON.stringify(counts));
  }
});
