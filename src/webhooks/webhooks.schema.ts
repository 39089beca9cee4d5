/** The Webhook and delivery resources and the request bodies (spec "Webhooks", DESIGN.md "Webhook"). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../http/schemas.js';

export const WEBHOOK_EVENTS = ['scan.completed', 'scan.failed'] as const;
export const MAX_WEBHOOKS = 10;
export const MAX_DELIVERIES_SHOWN = 50;

const Url = Type.String({ maxLength: 2048, description: 'An https:// URL; Slack, Discord and Teams incoming-webhook URLs get their native message format' });
const Events = Type.Array(StringEnum(WEBHOOK_EVENTS), { minItems: 1, uniqueItems: true, description: 'At least one of scan.completed, scan.failed' });
const Description = Nullable(Type.String({ maxLength: 255 }));

export const CreateWebhookSchema = Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
});
export type CreateWebhookBody = Static<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Description),
  is_active: Type.Optional(Type.Boolean({ description: 'false stops deliveries; true resumes them' })),
  rotate_secret: Type.Optional(Type.Boolean({ description: 'true generates a new signing secret' })),
});
export type UpdateWebhookBody = Static<typeof UpdateWebhookSchema>;

export const WebhookSchema = Type.Object(
  {
    id: Type.Integer(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    is_active: Type.Boolean(),
    secret: Type.Optional(
      Type.String({
        description:
          'whsec_<base64>: verify deliveries with any Standard Webhooks library. Present in create and list answers, and in an update with rotate_secret: true (the new secret); absent from other updates',
      }),
    ),
    service: StringEnum(['generic', 'slack', 'discord', 'teams'] as const),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_delivery_at: Nullable(Type.String({ format: 'date-time', description: 'When the latest attempt ended' })),
    last_status: Nullable(
      Type.String({
        description:
          'The latest attempt in words: the delivery status it left (pending, succeeded, failed), then the attempt and the answer, e.g. `pending (attempt 2 of 6 failed: HTTP 500)`, `failed (attempt 6 of 6 failed: could not connect: ...)`, `succeeded (attempt 3 of 6: HTTP 200)`; null before any attempt',
      }),
    ),
  },
  { $id: 'Webhook' },
);
export type WebhookResource = Static<typeof WebhookSchema>;

/** One attempt of a delivery, oldest first in its `attempts`. */
export const DeliveryAttemptSchema = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  status: StringEnum(['in_flight', 'succeeded', 'failed'] as const, {
    description: 'in_flight: sent, no answer yet; succeeded: a 2xx answer; failed: any other answer or none',
  }),
  started_at: Type.String({ format: 'date-time' }),
  duration_ms: Nullable(Type.Integer({ description: 'null while in flight, or when its worker stopped before recording it' })),
  response_code: Nullable(Type.Integer({ description: 'null when no answer came (refused, TLS error, timeout)' })),
  response_body: Nullable(Type.String({ description: 'The first 4 KB of the answer' })),
  error: Nullable(Type.String({ description: 'Why no full answer came, e.g. `could not connect: ...`' })),
});
export type DeliveryAttemptResource = Static<typeof DeliveryAttemptSchema>;

/** One event sent to one webhook, however many attempts it took. */
export const DeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    event: Type.String(),
    payload: Type.Object({}, { additionalProperties: true, description: 'The JSON body sent (the same on every attempt)' }),
    response_code: Nullable(Type.Integer({ description: 'Of the latest finished attempt' })),
    response_body: Nullable(Type.String({ description: 'Of the latest finished attempt: the first 4 KB' })),
    attempt: Type.Integer({ description: 'Attempts made so far, one in flight included' }),
    max_attempts: Type.Integer(),
    next_retry_at: Nullable(Type.String({ format: 'date-time', description: 'When the next attempt is due; null while one is in flight and once the delivery is over' })),
    status: StringEnum(['pending', 'succeeded', 'failed'] as const, {
      description: 'pending: attempts remain and the next is scheduled or in flight; succeeded: an attempt got a 2xx; failed: the attempts ran out, or the receiver answered 410 Gone',
    }),
    duration_ms: Nullable(Type.Integer({ description: 'Of the latest finished attempt' })),
    error: Nullable(Type.String({ description: 'Of the latest finished attempt' })),
    created_at: Type.String({ format: 'date-time', description: 'When the event was queued' }),
    attempts: Type.Array(DeliveryAttemptSchema, { description: 'Every attempt so far, oldest first' }),
  },
  { $id: 'WebhookDelivery' },
);
export type DeliveryResource = Static<typeof DeliverySchema>;
