import type { BoardLink } from '../boardLink.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import type { BoardEditor } from '../model/boardEditor.js';
import type { BoardDocuments } from '../session/boardDocuments.js';
import type { Camera } from '../view/camera.js';
import type { Scene } from '../view/scene.js';
import { ComponentApi } from './componentApi.js';
import { ComponentLayer } from './componentLayer.js';
import { componentsOriginOf } from './componentView.js';
import { ComponentManifests } from './manifests.js';
import { PropsPanel } from './propsPanel.js';

export interface ComponentsMount {
  link: BoardLink;
  scene: Scene;
  camera: Camera;
  documents: BoardDocuments;
  editor: BoardEditor;
  role: 'host' | 'guest';
  /** Sends a stateless message on the board's socket. */
  send: (message: ClientMessage) => void;
}

/** Runs the board's components: a layer over the scene that follows every object the scene draws. */
export function mountComponents(mount: ComponentsMount): ComponentLayer {
  const api = new ComponentApi(mount.link);
  const layer = new ComponentLayer({
    svg: mount.scene.svg,
    camera: mount.camera,
    documents: mount.documents,
    manifests: new ComponentManifests(api),
    bridge: { api, editor: mount.editor, role: mount.role, send: mount.send },
    componentsOrigin: componentsOriginOf(document),
    panel: mount.role === 'host' ? new PropsPanel(document.querySelector<HTMLElement>('#side')!, mount.editor) : null,
  });
  mount.scene.onObjectDrawn((id, object) => layer.objectDrawn(id, object));
  return layer;
}
