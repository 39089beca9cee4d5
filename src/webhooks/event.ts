/**
 * The body of a webhook delivery (DESIGN.md "Event body"): what generic receivers get as is, and
 * what `chat-formats.ts` turns into Slack, Discord and Teams messages.
 */

import type { ReportFormat, ThreatCounts } from '../reports/reports.service.js';

export type { ThreatCounts };

/** One webhook event. `ping` carries sample data, so a receiver can be built against it. */
export type WebhookEvent = {
  /** `evt_<hex>`; also the Standard Webhooks `webhook-id` header, so receivers can de-duplicate. */
  id: string;
  type: 'scan.completed' | 'scan.failed' | 'ping';
  created_at: string;
  data: {
    scan: { uuid: string; name: string; type: string; target: string };
    run: {
      run_index: number;
      /** null only while a run is unfinished, which no event describes; kept nullable as the row is. */
      outcome: 'succeeded' | 'failed' | 'cancelled' | null;
      completed_at: string | null;
      /** Why the run failed; null when it succeeded. */
      error: string | null;
      /**
       * Whose fault a failure was (the engine's EngineErrorKind): `network-temporary`,
       * `network-permanent`, `deadline`, `config` (tool missing or misconfigured), `internal` (a
       * bug), `missed` (a scheduled Unmanaged run no agent took in time); null when the run
       * succeeded or its worker stopped responding.
       */
      error_kind: 'network-temporary' | 'network-permanent' | 'deadline' | 'config' | 'internal' | 'missed' | null;
      counts: ThreatCounts;
      /** Signed download links (no bearer needed) that expire after RAMPART_REPORT_LINK_TTL. */
      report_urls: { pdf: string; html: string; csv: string; txt: string; xml: string };
    };
  };
};

/** The uuid of the sample scan in a ping: no real scan has it, so its report links answer 404. */
export const SAMPLE_SCAN_UUID = '00000000-0000-0000-0000-000000000000';
/** The run index of the sample run in a ping. */
export const SAMPLE_RUN_INDEX = 1;

/**
 * A `ping` event with plausible sample data: what the "test" button sends. `reportUrls` are signed
 * links to the sample run, made as for real events (see `enqueueRunEvent`), so a receiver's link
 * handling can be tried out.
 */
export function samplePingEvent(reportUrls: Record<ReportFormat, string>, now: Date, id: string): WebhookEvent {
  const at = now.toISOString();
  return {
    id,
    type: 'ping',
    created_at: at,
    data: {
      scan: { uuid: SAMPLE_SCAN_UUID, name: 'Sample scan', type: 'Rampart', target: 'scanme.example.com' },
      run: {
        run_index: SAMPLE_RUN_INDEX,
        outcome: 'succeeded',
        completed_at: at,
        error: null,
        error_kind: null,
        counts: { critical: 1, high: 2, medium: 3, low: 4, informational: 5 },
        report_urls: reportUrls,
      },
    },
  };
}
