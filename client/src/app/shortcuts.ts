import { toolForKey } from '../ui/toolbar.js';
import type { BoardPage } from './page.js';

/**
 * Keyboard shortcuts: one key per tool, Delete, undo and redo, zoom, arrows. Never while the user types
 * in a field (the text editor, a name) or holds a modifier other than for undo and redo.
 */
const ARROWS: Record<string, { x: number; y: number } | undefined> = {
  ArrowLeft: { x: -1, y: 0 },
  ArrowRight: { x: 1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

/** Arrow keys move the selected object (10 px, 50 with Shift), or pan the board when nothing is selected. */
function nudge(page: BoardPage, direction: { x: number; y: number }, distance: number): void {
  const id = page.tools.selected;
  const object = id ? page.editor.find(id) : null;
  if (!id || !object) return page.camera.panBy(-direction.x * distance * 4, -direction.y * distance * 4);
  const result = page.editor.update(id, { position: { x: object.position.x + direction.x * distance, y: object.position.y + direction.y * distance } });
  if (!result.ok) page.refused(result);
}

export function bindShortcuts(page: BoardPage): void {
  // An object reached with Tab is selected, as if clicked.
  page.scene.svg.addEventListener('focusin', (event) => {
    const id = (event.target as Element).closest<SVGGElement>('g.object')?.dataset.objectId;
    if (id && id !== page.tools.selected) page.tools.select(id);
  });
  document.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    const modifier = event.ctrlKey || event.metaKey;
    if (modifier && event.key.toLowerCase() === 'z') {
      event.preventDefault();
      return page.act(event.shiftKey ? 'redo' : 'undo');
    }
    if (modifier && event.key.toLowerCase() === 'y') {
      event.preventDefault();
      return page.act('redo');
    }
    if (modifier || event.altKey) return;
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      return page.act('delete');
    }
    if (event.key === 'Enter' && page.tools.selected) {
      event.preventDefault();
      return page.textEditor.open(page.tools.selected);
    }
    if (event.key === 'Escape') return page.tools.select(null);
    const step = ARROWS[event.key];
    if (step) {
      event.preventDefault();
      return nudge(page, step, event.shiftKey ? 50 : 10);
    }
    if (event.key === '+' || event.key === '=') return page.act('zoom-in');
    if (event.key === '-') return page.act('zoom-out');
    if (event.key === '1') return page.act('fit');
    const tool = toolForKey(event.key);
    if (tool) page.chooseTool(tool);
  });
}
