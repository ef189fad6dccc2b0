import type { BoardEditor, EditResult } from '../model/boardEditor.js';
import type { Camera } from '../view/camera.js';

/**
 * Edits an object's `data.text` in a textarea laid over it. Escape, Ctrl+Enter or leaving
 * the field commits; the text goes into the object's document as one edit.
 */
export class TextEditor {
  private editing: string | null = null;

  constructor(
    private readonly textarea: HTMLTextAreaElement,
    private readonly editor: BoardEditor,
    private readonly camera: Camera,
    private readonly refused: (result: EditResult) => void,
  ) {
    textarea.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Escape' || (event.key === 'Enter' && (event.ctrlKey || event.metaKey))) {
        event.preventDefault();
        this.commit();
      }
    });
    textarea.addEventListener('blur', () => this.commit());
    camera.onChange(() => this.place());
  }

  open(id: string): void {
    const object = this.editor.find(id);
    if (!object || object.type === 'ink') return;
    this.commit();
    this.editing = id;
    this.textarea.value = typeof object.data.text === 'string' ? object.data.text : '';
    this.textarea.hidden = false;
    this.place();
    this.textarea.focus();
  }

  isOpen(): boolean {
    return this.editing !== null;
  }

  commit(): void {
    const id = this.editing;
    if (!id) return;
    this.editing = null;
    this.textarea.hidden = true;
    const object = this.editor.find(id);
    if (!object || object.data.text === this.textarea.value) return;
    const result = this.editor.update(id, { data: { ...object.data, text: this.textarea.value } });
    if (!result.ok) this.refused(result);
  }

  private place(): void {
    if (!this.editing) return;
    const object = this.editor.find(this.editing);
    if (!object) return;
    const corner = this.camera.toScreen(object.position.x, object.position.y);
    Object.assign(this.textarea.style, {
      left: `${corner.x}px`,
      top: `${corner.y}px`,
      width: `${Math.max(120, object.width * this.camera.zoom)}px`,
      height: `${Math.max(40, object.height * this.camera.zoom)}px`,
      fontSize: `${Math.max(12, 16 * this.camera.zoom)}px`,
    });
  }
}
