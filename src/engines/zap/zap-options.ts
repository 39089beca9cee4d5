/**
 * The options a ZAP scan may set when a ZAP daemon runs it (`engine_options`): few on purpose,
 * the daemon's own configuration (scan policy, threads) stays the operator's.
 */
import { Type, type Static } from 'typebox';

/** The longest a driven scan may run, whatever a scan asks: a day. */
export const MAX_DURATION_MINUTES = 24 * 60;

export const ZapOptionsSchema = Type.Object(
  {
    ajax_spider: Type.Optional(Type.Boolean({ description: "Also crawl with ZAP's AJAX spider (a browser in the daemon; slower, finds script-built links)" })),
    max_duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DURATION_MINUTES, description: 'Time limit of the whole scan of one target; the scans still running then are stopped and what was found is reported' })),
  },
  { additionalProperties: false },
);
export type ZapOptions = Static<typeof ZapOptionsSchema>;
