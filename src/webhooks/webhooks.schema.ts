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
    last_delivery_at: Nullable(Type.String({ format: 'date-time' })),
    last_status: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null when it got no answer' })),
  },
  { $id: 'Webhook' },
);
export type WebhookResource = Static<typeof WebhookSchema>;

export const DeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.Integer(),
    event: Type.String(),
    payload: Type.Object({}, { additionalProperties: true, description: 'The JSON body sent' }),
    response_code: Nullable(Type.Integer()),
    response_body: Nullable(Type.String({ description: 'The first 4 KB' })),
    attempt: Type.Integer(),
    max_attempts: Type.Integer(),
    next_retry_at: Nullable(Type.String({ format: 'date-time' })),
    status: StringEnum(['pending', 'succeeded', 'failed'] as const, { description: 'pending: this attempt failed and another is scheduled' }),
    duration_ms: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
);
export type DeliveryResource = Static<typeof DeliverySchema>;
