import type { BoardApi } from '../api.js';
import type { BoardLink } from '../boardLink.js';
import type { ComponentLayer } from '../components/componentLayer.js';
import type { PointerTools, Tool } from '../input/pointerTools.js';
import type { TextEditor } from '../input/textEditor.js';
import type { BoardEditor, EditResult } from '../model/boardEditor.js';
import type { FrameSet } from '../model/frames.js';
import type { BoardDocuments } from '../session/boardDocuments.js';
import type { Presence } from '../session/presence.js';
import type { SyncState } from '../ui/notices.js';
import type { ToolbarAction } from '../ui/toolbar.js';
import type { Camera } from '../view/camera.js';
import type { Scene } from '../view/scene.js';
import type { Connection } from './connection.js';
import type { StartupState } from './startup.js';
import type { ViewportRules } from './viewportRules.js';

/** Everything one open board is made of; the message handler and the shortcuts reach it through this. */
export interface BoardPage {
  link: BoardLink;
  state: StartupState;
  deviceKey: string;
  api: BoardApi;
  frames: FrameSet;
  documents: BoardDocuments;
  editor: BoardEditor;
  scene: Scene;
  camera: Camera;
  tools: PointerTools;
  textEditor: TextEditor;
  presence: Presence;
  viewport: ViewportRules;
  connection: Connection;
  /** The component frames over the scene (client/src/components). */
  components: ComponentLayer;
  chooseTool(tool: Tool): void;
  act(action: ToolbarAction): void;
  say(text: string, level?: 'info' | 'warning'): void;
  refused(result: EditResult): void;
  /** Opens the zone documents this viewer may now read, closes (and forgets) the others. */
  reconcileZones(): void;
  redrawFrames(): void;
  syncState(): SyncState;
  /** The board or the link is gone: the copy on this device goes too. */
  forgetDevice(): Promise<void>;
}
