import { ICONS, icon } from './icons.js';
import { TOOLS, type Tool } from '../input/pointerTools.js';

const TOOL_LABELS: Record<Tool, { label: string; key: string }> = {
  select: { label: 'Select and move', key: 'V' },
  hand: { label: 'Pan the board', key: 'H' },
  sticky: { label: 'Sticky note', key: 'S' },
  rect: { label: 'Rectangle', key: 'R' },
  ellipse: { label: 'Ellipse', key: 'O' },
  text: { label: 'Text', key: 'T' },
  pen: { label: 'Pen', key: 'P' },
};

export type ToolbarAction = 'undo' | 'redo' | 'delete' | 'zoom-in' | 'zoom-out' | 'fit';

const ACTIONS: Record<ToolbarAction, { label: string; key: string }> = {
  undo: { label: 'Undo', key: 'Ctrl+Z' },
  redo: { label: 'Redo', key: 'Ctrl+Shift+Z' },
  delete: { label: 'Delete selected', key: 'Delete' },
  'zoom-out': { label: 'Zoom out', key: '-' },
  'zoom-in': { label: 'Zoom in', key: '+' },
  fit: { label: 'Show everything', key: '1' },
};

/** The tool buttons: each labelled with its name and shortcut, the chosen one pressed. */
export function renderToolbar(nav: HTMLElement, choose: (tool: Tool) => void, act: (action: ToolbarAction) => void): (tool: Tool) => void {
  const buttons = new Map<Tool, HTMLButtonElement>();
  for (const tool of TOOLS) {
    const { label, key } = TOOL_LABELS[tool];
    const button = button_(tool, `${label} (${key})`);
    button.dataset.tool = tool;
    button.addEventListener('click', () => choose(tool));
    buttons.set(tool, button);
    nav.append(button);
  }
  nav.append(Object.assign(document.createElement('span'), { className: 'separator' }));
  for (const [action, { label, key }] of Object.entries(ACTIONS) as Array<[ToolbarAction, (typeof ACTIONS)[ToolbarAction]]>) {
    const button = button_(action, `${label} (${key})`);
    button.dataset.action = action;
    button.addEventListener('click', () => act(action));
    nav.append(button);
  }
  return (tool) => {
    for (const [candidate, button] of buttons) button.setAttribute('aria-pressed', String(candidate === tool));
  };
}

function button_(name: keyof typeof ICONS, label: string): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.append(icon(name));
  button.title = label;
  button.setAttribute('aria-label', label);
  return button;
}

/** Single-key shortcuts of the tools (no modifier, not while typing). */
export function toolForKey(key: string): Tool | null {
  const found = (Object.entries(TOOL_LABELS) as Array<[Tool, { key: string }]>).find(([, { key: shortcut }]) => shortcut.toLowerCase() === key.toLowerCase());
  return found ? found[0] : null;
}
