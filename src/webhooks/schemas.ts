/** JSON schemas of the webhook subscription endpoints. */
const url = { type: 'string', minLength: 1, maxLength: 2048 };
const events = { type: 'array', minItems: 1, maxItems: 50, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 64 } };

export const createSubscriptionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: { url, events, description: { type: 'string', maxLength: 500 } },
};

export const updateSubscriptionSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { url, events, is_active: { type: 'boolean' }, description: { type: 'string', maxLength: 500 } },
};

export const DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const listDeliveriesQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    subscription_id: { type: 'string', maxLength: 64 },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
};

export interface CreateSubscriptionInput {
  url: string;
  events?: string[];
  description?: string;
}

export interface UpdateSubscriptionInput {
  url?: string;
  events?: string[];
  is_active?: boolean;
  description?: string;
}
