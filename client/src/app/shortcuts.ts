import { toolForKey } from '../ui/toolbar.js';
import type { BoardPage } from './page.js';

/**
 * Keyboard shortcuts: one key per tool, Delete, undo and redo, zoom. Never while the user types
 * in a field (the text editor, a name) or holds a modifier other than for undo and redo.
 */
export function bindShortcuts(page: BoardPage): void {
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
    if (event.key === '+' || event.key === '=') return page.act('zoom-in');
    if (event.key === '-') return page.act('zoom-out');
    if (event.key === '1') return page.act('fit');
    const tool = toolForKey(event.key);
    if (tool) page.chooseTool(tool);
  });
}
