import { registerObjectTypeSchema } from '../../../objectTypes/schemas.js';
import { changePlanSchema, createOrganizationSchema } from '../../../organizations/schemas.js';
import { createUserSchema, loginSchema, refreshSchema } from '../../../users/schemas.js';
import { createSubscriptionSchema, listDeliveriesQuerySchema, updateSubscriptionSchema } from '../../../webhooks/schemas.js';
import { schemaRef } from '../jsonSchema.js';
import type { OperationSpec } from '../operationSpec.js';
import { listOf } from '../schemas/common.js';

/**
 * http/routes/adminRoutes.ts, authRoutes.ts, organizationRoutes.ts, quotaRoutes.ts,
 * webhookRoutes.ts and objectTypeRoutes.ts.
 */

const noStore = { 'Cache-Control': { description: '`no-store`: tokens and keys are not kept by caches.', schema: { type: 'string' } } };
const subscription = '/webhooks/subscriptions/{subscriptionId}';

export const ACCOUNT_OPERATIONS: OperationSpec[] = [
  {
    method: 'post', path: '/admin/organizations', tag: 'Admin', summary: 'Create an organization', credential: 'admin', body: { name: 'CreateOrganizationRequest', schema: createOrganizationSchema },
    responses: { 201: { description: 'The organization and its API key (shown once).', schema: 'OrganizationWithKey' } }, errors: [],
  },
  {
    method: 'patch', path: '/admin/organizations/{organizationId}', tag: 'Admin', summary: "Change an organization's plan", credential: 'admin', body: { name: 'ChangePlanRequest', schema: changePlanSchema },
    responses: { 200: { description: 'The organization.', schema: 'Organization' } }, errors: [],
  },
  {
    method: 'post', path: '/admin/users', tag: 'Admin', summary: 'Create a user', credential: 'admin', body: { name: 'CreateUserRequest', schema: createUserSchema },
    responses: { 201: { description: 'The user.', schema: 'User' } }, errors: [409],
  },
  {
    method: 'post', path: '/auth/login', tag: 'Users', summary: 'Log a user in', credential: 'none', body: { name: 'LoginRequest', schema: loginSchema },
    description: 'Failed attempts are throttled per account and address (429 with `Retry-After`).',
    responses: { 200: { description: 'An access token and a refresh token.', schema: 'Tokens', headers: noStore } }, errors: [401, 429],
  },
  {
    method: 'post', path: '/auth/refresh', tag: 'Users', summary: 'Exchange a refresh token', credential: 'none', body: { name: 'RefreshRequest', schema: refreshSchema },
    description: 'The refresh token is used up; the answer carries a new one.',
    responses: { 200: { description: 'New tokens.', schema: 'Tokens', headers: noStore } }, errors: [401],
  },
  {
    method: 'get', path: '/organizations', tag: 'Organizations', summary: "The caller's organizations", credential: 'apiKeyOrUser',
    responses: { 200: { description: 'The organization the credential belongs to.', schema: 'OrganizationList' } }, errors: [],
  },
  {
    method: 'patch', path: '/organizations/{organizationId}/regenerate-api-key', tag: 'Organizations', summary: 'Replace the API key', credential: 'apiKeyOrUser',
    description: 'The old key stops working at once. Only for the caller\'s own organization (403 otherwise).',
    responses: { 200: { description: 'The organization and its new key (shown once).', schema: 'OrganizationWithKey', headers: noStore } }, errors: [403],
  },
  {
    method: 'get', path: '/quota', tag: 'Quota', summary: 'Usage against the plan', credential: 'apiKeyOrUser',
    description: 'Reading the quota does not count as an API call.',
    responses: { 200: { description: 'Every quota.', schema: 'QuotaReport' } }, errors: [],
  },
  {
    method: 'get', path: '/quota/{type}', tag: 'Quota', summary: 'Check one quota', credential: 'apiKeyOrUser',
    description: 'At 100% usage `allowed` is false (still 200). An unknown type is refused with 400 and `validTypes`.',
    responses: { 200: { description: 'The quota.', schema: 'QuotaCheck' } }, errors: [400],
  },
  {
    method: 'post', path: '/webhooks/subscriptions', tag: 'Webhooks', summary: 'Subscribe to events', credential: 'apiKey', body: { name: 'CreateSubscriptionRequest', schema: createSubscriptionSchema },
    description: '`events` are names or patterns (`board.*`, `*.created`, `*`; default `*`). Plans without webhook deliveries are refused (403).',
    responses: { 201: { description: 'The subscription with its signing `secret`, shown only here.', schema: 'WebhookSubscriptionCreated' } }, errors: [403],
  },
  {
    method: 'get', path: '/webhooks/subscriptions', tag: 'Webhooks', summary: 'List subscriptions', credential: 'apiKey',
    responses: { 200: { description: 'The subscriptions.', schema: listOf(schemaRef('WebhookSubscription')) } }, errors: [],
  },
  {
    method: 'get', path: subscription, tag: 'Webhooks', summary: 'Read a subscription', credential: 'apiKey',
    responses: { 200: { description: 'The subscription.', schema: 'WebhookSubscription' } }, errors: [403, 404],
  },
  {
    method: 'patch', path: subscription, tag: 'Webhooks', summary: 'Change a subscription', credential: 'apiKey', body: { name: 'UpdateSubscriptionRequest', schema: updateSubscriptionSchema },
    description: '`is_active: true` re-enables a subscription disabled after 10 consecutive failed deliveries.',
    responses: { 200: { description: 'The subscription.', schema: 'WebhookSubscription' } }, errors: [403, 404],
  },
  {
    method: 'delete', path: subscription, tag: 'Webhooks', summary: 'Delete a subscription', credential: 'apiKey',
    responses: { 204: { description: 'Deleted.' } }, errors: [403, 404],
  },
  {
    method: 'get', path: `${subscription}/stats`, tag: 'Webhooks', summary: "A subscription's delivery statistics", credential: 'apiKey',
    responses: { 200: { description: 'Totals per status.', schema: 'WebhookStats' } }, errors: [403, 404],
  },
  {
    method: 'get', path: '/webhooks/deliveries', tag: 'Webhooks', summary: 'The delivery log', credential: 'apiKey', query: listDeliveriesQuerySchema,
    responses: { 200: { description: 'Newest first.', schema: listOf(schemaRef('WebhookDelivery')) } }, errors: [403, 404],
  },
  {
    method: 'post', path: '/object-types', tag: 'Object types', summary: 'Register an object type', credential: 'apiKey', body: { name: 'RegisterObjectTypeRequest', schema: registerObjectTypeSchema },
    description: "Objects of this `type` must then satisfy `schema` (JSON Schema). A registered type never changes (409 on a second registration); a schema the service cannot use safely is refused (400, 422).",
    responses: { 201: { description: 'The type.', schema: 'ObjectType' } }, errors: [402, 403, 409, 422],
  },
  {
    method: 'get', path: '/object-types', tag: 'Object types', summary: 'List object types', credential: 'apiKey',
    responses: { 200: { description: 'The types.', schema: listOf(schemaRef('ObjectType')) } }, errors: [],
  },
  {
    method: 'get', path: '/object-types/{typeName}', tag: 'Object types', summary: 'Read an object type', credential: 'apiKey',
    responses: { 200: { description: 'The type.', schema: 'ObjectType' } }, errors: [404],
  },
  {
    method: 'get', path: '/openapi.json', tag: 'API description', summary: 'This document', credential: 'none',
    responses: { 200: { description: 'The OpenAPI 3.1 description of the API.', schema: { type: 'object', required: ['openapi', 'info', 'paths'] } } }, errors: [],
  },
];
