import { MANIFEST_SCHEMA } from '../../../components/manifestSchema.js';
import type { Visibility } from '../../../components/manifestTypes.js';
import { openApiSchema, schemaRef, type JsonSchema } from '../jsonSchema.js';
import { everyValue, flag, isoTime, listOf, nullable, oneOfValues, record, text, url } from './common.js';

/**
 * Response bodies of the component registry and of component objects, as
 * components/componentService.ts, componentStorage.ts, componentActions.ts and dataProvider.ts write them.
 */

const visibility = oneOfValues(everyValue<Visibility>()('shared', 'private', 'anonymous'));
const anyJson: JsonSchema = {};

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  ComponentPublished: record({
    status: { const: 'published' },
    component: record({ name: text, version: text, url: { ...url, description: "The entry file's URL." }, assetsBaseUrl: url }),
    publishedAt: isoTime,
  }),
  ComponentList: record({
    components: listOf(
      record({
        name: text,
        versions: { ...listOf(text), description: 'Newest first; deleted versions are left out.' },
        latest: { ...nullable(text), description: 'What `latest` resolves to.' },
        author: nullable(text),
        deprecated: listOf(record({ version: text, message: nullable(text) })),
      }),
    ),
  }),
  ComponentDeprecation: record({ name: text, version: text, deprecated: flag, message: nullable(text) }),
  // The manifest schema the registry checks packages with (components/manifestSchema.ts), defaults included.
  ComponentManifest: openApiSchema(MANIFEST_SCHEMA, '#/components/schemas/ComponentManifest') as JsonSchema,
  ComponentDescription: record({ name: text, version: text, manifest: schemaRef('ComponentManifest') }),
  ComponentStorage: record({
    values: { type: 'object', additionalProperties: anyJson, description: "Every declared key's value (its default while unset)." },
    visibility: { type: 'object', additionalProperties: visibility },
  }),
  ComponentStorageValue: record({ key: text, value: anyJson, visibility }),
  ComponentActionCount: record({ action_count: { type: 'integer', minimum: 1, description: 'How often this action was performed on this object.' } }),
  ComponentData: record({
    data: anyJson,
    source: oneOfValues(['mock', 'provider']),
    cached: { ...flag, description: "Kept from an earlier call within the provider's `cache_ttl`." },
    fetched_at: isoTime,
  }),
};
