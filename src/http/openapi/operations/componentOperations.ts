import { actionInputSchema } from '../../../components/componentActions.js';
import { storageWriteSchema } from '../../../components/componentStorage.js';
import { componentDataSchema } from '../../../components/dataProvider.js';
import { PACKAGE_LIMITS } from '../../../components/packageLimits.js';
import { deprecateSchema } from '../../../components/schemas.js';
import { manifestQuerySchema } from '../../routes/componentRoutes.js';
import type { OperationSpec } from '../operationSpec.js';

/** http/routes/componentRoutes.ts, componentObjectRoutes.ts, componentDataRoutes.ts and http/componentFilesRoute.ts. */

const tag = 'Components';
const objectPath = '/boards/{boardId}/objects/{objectId}';

const publishForm = {
  type: 'object',
  properties: {
    bundle: { type: 'string', contentMediaType: 'application/zip', description: 'The package: a ZIP with `manifest.json` at its root.' },
    package: { type: 'string', contentMediaType: 'application/zip', description: 'The same file under the name another flow uses.' },
    apiKey: { type: 'string', description: 'The API key, when no `X-API-Key` header is sent.' },
  },
};

const fileHeaders = {
  ETag: { description: "The file's content hash.", schema: { type: 'string' } },
  'Cache-Control': { description: 'A year for an exact version (immutable), a minute for `latest`.', schema: { type: 'string' } },
  'X-Component-Version': { description: 'The version served (what `latest` resolved to).', schema: { type: 'string' } },
  'Content-Security-Policy': { description: '`sandbox allow-scripts`, no network access, framed by the app only.', schema: { type: 'string' } },
  Deprecation: { description: '`true` on a deprecated version (its message in `X-Deprecation-Message`).', schema: { type: 'string' } },
};

export const COMPONENT_OPERATIONS: OperationSpec[] = [
  {
    method: 'post', path: '/components/publish', tag, summary: 'Publish a component version', credential: 'publish',
    description: `The key goes in the form field \`apiKey\` (or the \`X-API-Key\` header). Limits: a ZIP of ${PACKAGE_LIMITS.maxBundleBytes / 1_048_576} MiB. A published \`name@version\` never changes and is never reused (409); a name belongs to the organization that first published it (403).`,
    rawBody: { contentType: 'multipart/form-data', schema: publishForm, description: 'The ZIP as `bundle` (or `package`), and `apiKey`.' },
    responses: { 200: { description: 'Published.', schema: 'ComponentPublished' } }, errors: [400, 403, 409, 413, 422],
  },
  {
    method: 'get', path: '/components', tag, summary: "List the organization's components", credential: 'apiKey',
    responses: { 200: { description: 'Each component with its versions.', schema: 'ComponentList' } }, errors: [],
  },
  {
    method: 'patch', path: '/components/{name}/{version}', tag, summary: 'Deprecate or undeprecate a version', credential: 'apiKey', body: { name: 'DeprecateRequest', schema: deprecateSchema },
    description: 'Boards keep working on a deprecated version; `latest` prefers versions that are not.',
    responses: { 200: { description: 'The version.', schema: 'ComponentDeprecation' } }, errors: [404],
  },
  {
    method: 'delete', path: '/components/{name}/{version}', tag, summary: "Delete a version's files", credential: 'apiKey',
    description: "The `name@version` stays taken; boards using it show an error in its place. Another organization's version, or one already deleted, is not found (404).",
    responses: { 204: { description: 'Deleted.' } }, errors: [404],
  },
  {
    method: 'get', path: '/components/files/{spec}', tag, summary: "A component version's folder", credential: 'none',
    description: '`{spec}` is `<name>@<version>` (`latest` allowed). Redirects to the folder with its slash, so the entry resolves its relative URLs.',
    responses: {
      301: {
        description: 'To `/components/files/{spec}/`.',
        contentType: 'text/plain',
        schema: { type: 'string' },
        headers: { Location: { description: 'The folder.', schema: { type: 'string' } } },
      },
    },
    errors: [404],
  },
  {
    method: 'get', path: '/components/files/{spec}/{path}', tag, summary: 'A component file', credential: 'none',
    description: 'Public and cookie-less, also served at the app root. `{path}` may hold slashes (`assets/app.js`); empty serves the entry.',
    responses: {
      200: { description: 'The file.', contentType: '*/*', schema: { type: 'string', contentMediaType: 'application/octet-stream' }, headers: fileHeaders },
      304: { description: '`If-None-Match` names the current ETag.' },
    },
    errors: [404, 410],
  },
  {
    method: 'get', path: '/boards/{boardId}/component-manifest', tag, summary: 'The manifest of a component a board runs', credential: 'board', query: manifestQuerySchema,
    description: "`url` is an object's `componentUrl`. 404: never published here; 410: deleted by its author.",
    responses: { 200: { description: 'The version and its manifest, defaults filled in.', schema: 'ComponentDescription' } }, errors: [],
  },
  {
    method: 'get', path: `${objectPath}/storage`, tag, summary: "Read a component object's storage", credential: 'board',
    description: "Every key the manifest declares; `private` values are the caller's own.",
    responses: { 200: { description: 'The values and their visibility.', schema: 'ComponentStorage' } }, errors: [409],
  },
  {
    method: 'put', path: `${objectPath}/storage/{key}`, tag, summary: "Write a key of a component object's storage", credential: 'board', body: { name: 'StorageWriteRequest', schema: storageWriteSchema },
    description: "Checked against the manifest's `storage.schema` and `permissions.storage`; a `private` key needs a credential that names a user.",
    responses: { 200: { description: 'Stored.', schema: 'ComponentStorageValue' } }, errors: [409],
  },
  {
    method: 'post', path: `${objectPath}/actions`, tag, summary: 'Perform a custom action on a component object', credential: 'board', body: { name: 'ActionRequest', schema: actionInputSchema },
    description: 'Counts the action and raises the `object.action` webhook event.',
    responses: { 202: { description: 'Accepted.', schema: 'ComponentActionCount' } }, errors: [409],
  },
  {
    method: 'post', path: '/boards/{boardId}/component-data', tag, summary: "Ask the board's data provider", credential: 'board', body: { name: 'ComponentDataRequest', schema: componentDataSchema },
    description: "A sandbox board answers its `mock_external_data`; otherwise the board's `data_provider` is called (its `:param` placeholders filled from `params`).",
    responses: { 200: { description: 'The data.', schema: 'ComponentData' } }, errors: [502],
  },
];
