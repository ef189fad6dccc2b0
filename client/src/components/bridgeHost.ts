import type { BoardEditor, EditRefusal } from '../model/boardEditor.js';
import type { ComponentApi } from './componentApi.js';
import type { FrameHost } from './componentFrame.js';
import { propsWithDefaults, type ClientManifest, type PropSpec } from './manifests.js';
import { valueProblem } from '../../../src/components/manifestRules.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import { isPlainObject, type ComponentRequest, type JsonObject, type JsonValue } from './protocol.js';

/** What the bridge reaches on the page: the page's own API and editor, never its token. */
export interface BridgeDependencies {
  api: ComponentApi;
  editor: BoardEditor;
  role: 'host' | 'guest';
  /** Sends a stateless message on the board's socket. */
  send: (message: ClientMessage) => void;
}

/** The component one frame runs, as the page knows it now. */
export interface FrameSubject {
  objectId: string;
  manifest: ClientManifest;
  /** The readable storage values the page holds (shared and anonymous ones, from the document). */
  storage(): JsonObject;
}

const REFUSED: Record<EditRefusal, string> = {
  missing: 'The object is gone',
  locked: 'The host locked this object',
  'read-only': 'This viewer may only look at this area',
  'not-yours': 'This area belongs to someone else',
};

/** The page's side of the bridge for one frame: each request becomes the REST call, edit or socket message of the plan. */
export function frameHost(deps: BridgeDependencies, subject: FrameSubject): FrameHost {
  const { api, editor, role } = deps;
  const id = subject.objectId;
  return {
    init() {
      const object = editor.find(id);
      return {
        object: { id, width: object?.width ?? 0, height: object?.height ?? 0 },
        props: propsWithDefaults(subject.manifest, object?.data.props),
        role,
        storage: subject.storage(),
      };
    },
    async request(message: ComponentRequest): Promise<unknown> {
      switch (message.type) {
        case 'data.request':
          return api.data(id, message.params);
        case 'storage.get':
          return api.storage(id);
        case 'storage.set':
          return api.setStorage(id, message.key, message.value);
        case 'action':
          return api.action(id, { action_id: message.action_id, ...(message.action_label !== undefined ? { action_label: message.action_label } : {}), ...(message.action_metadata ? { action_metadata: message.action_metadata } : {}) });
        case 'props.set':
          return setProps(editor, role, subject, message.props);
      }
    },
    emit(name: string, payload: JsonValue) {
      deps.send({ type: 'component:event', object_id: id, name, payload });
    },
  };
}

/**
 * `props.set`: the given props over the object's current ones, written through the editor
 * (so zones, locks and undo apply as to any edit). The server checks again and undoes what
 * it refuses; checking here first answers the frame with the reason instead of a silent undo.
 */
function setProps(editor: BoardEditor, role: 'host' | 'guest', subject: FrameSubject, changes: JsonObject): { props: JsonObject } {
  if (!subject.manifest.propsWriters[role]) throw new Error(`A ${role} may not change this component's props`);
  const object = editor.find(subject.objectId);
  if (!object) throw new Error(REFUSED.missing);
  const problem = Object.entries(changes)
    .map(([name, value]) => (subject.manifest.props[name] ? propProblem(name, subject.manifest.props[name], value) : null))
    .find((found) => found !== null);
  if (problem) throw new Error(problem);
  const props = { ...(isPlainObject(object.data.props) ? (object.data.props as JsonObject) : {}), ...changes };
  const result = editor.update(subject.objectId, { data: { ...object.data, props } });
  if (!result.ok) throw new Error(REFUSED[result.refusal]);
  return { props: propsWithDefaults(subject.manifest, props) };
}

/** Why a value does not fit its prop's spec (the server's own rule: type, enum, bounds, items), or null. */
export function propProblem(name: string, spec: PropSpec, value: JsonValue): string | null {
  const problem = valueProblem(value, spec, name);
  return problem ? `The prop ${problem.field} ${problem.message}` : null;
}
