import type { BoardEditor, EditRefusal } from '../model/boardEditor.js';
import type { BoardObject } from '../model/boardObject.js';
import { propProblem } from './bridgeHost.js';
import { propsWithDefaults, type ClientManifest, type PropSpec } from './manifests.js';
import { isPlainObject, type JsonObject, type JsonValue } from './protocol.js';

const REFUSED: Record<EditRefusal, string> = {
  missing: 'The component is gone.',
  locked: 'The component is locked.',
  'read-only': 'This area is read-only.',
  'not-yours': 'This area belongs to someone else.',
};

/**
 * A host's editor of the selected component's props, in the side panel: one field per prop
 * the manifest declares (and per plain value the object holds, when the manifest is not
 * known), written through the editor like any edit. Arrays and objects are left to the component.
 */
export class PropsPanel {
  private readonly section: HTMLElement;
  private shown: { id: string; manifest: ClientManifest } | null = null;

  constructor(
    side: HTMLElement,
    private readonly editor: BoardEditor,
  ) {
    this.section = document.createElement('section');
    this.section.id = 'component-panel';
    this.section.hidden = true;
    this.section.setAttribute('aria-labelledby', 'component-panel-heading');
    side.prepend(this.section);
  }

  /** Shows the props of a component (null hides the panel). */
  show(object: BoardObject | null, manifest: ClientManifest | null): void {
    if (!object || !manifest) {
      this.shown = null;
      this.section.hidden = true;
      return;
    }
    // A redraw while the host types in a field leaves the field alone.
    if (this.shown?.id === object.id && this.section.contains(document.activeElement)) return;
    this.shown = { id: object.id, manifest };
    this.render(object, manifest);
  }

  private render(object: BoardObject, manifest: ClientManifest): void {
    const heading = document.createElement('h2');
    heading.id = 'component-panel-heading';
    heading.textContent = manifest.title ? `Component: ${manifest.title}` : 'Component';
    const form = document.createElement('form');
    form.className = 'component-props';
    form.addEventListener('submit', (event) => event.preventDefault());
    const props = propsWithDefaults(manifest, object.data.props);
    for (const [name, spec] of Object.entries(specsOf(manifest, props))) {
      const field = fieldFor(name, spec, props[name] ?? spec.default, (value) => this.write(name, spec, value));
      if (field) form.append(field);
    }
    const error = document.createElement('p');
    error.className = 'component-props-error';
    error.setAttribute('role', 'alert');
    if (form.childElementCount === 0) form.append(Object.assign(document.createElement('p'), { textContent: 'This component has no props to set here.' }));
    this.section.replaceChildren(heading, form, error);
    this.section.hidden = false;
  }

  private write(name: string, spec: PropSpec, value: JsonValue): void {
    const error = this.section.querySelector('.component-props-error')!;
    const shown = this.shown;
    const object = shown ? this.editor.find(shown.id) : null;
    if (!shown || !object) return;
    const problem = propProblem(name, spec, value);
    error.textContent = problem ?? '';
    if (problem) return;
    const props = { ...(isPlainObject(object.data.props) ? (object.data.props as JsonObject) : {}), [name]: value };
    const result = this.editor.update(shown.id, { data: { ...object.data, props } });
    error.textContent = result.ok ? '' : REFUSED[result.refusal];
  }
}

/** The manifest's props, or, while the manifest is not known, the plain values the object holds. */
function specsOf(manifest: ClientManifest, props: JsonObject): Record<string, PropSpec> {
  const specs: Record<string, PropSpec> = { ...manifest.props };
  for (const [name, value] of Object.entries(props)) {
    if (!specs[name] && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) specs[name] = { type: typeof value as 'string' | 'number' | 'boolean', default: value };
  }
  return specs;
}

function fieldFor(name: string, spec: PropSpec, value: JsonValue, commit: (value: JsonValue) => void): HTMLLabelElement | null {
  const label = document.createElement('label');
  label.className = 'component-prop';
  label.append(Object.assign(document.createElement('span'), { textContent: spec.label ?? name }));
  let input: HTMLInputElement | HTMLSelectElement;
  if (spec.enum) {
    input = document.createElement('select');
    for (const option of spec.enum) input.append(new Option(String(option), String(option), false, option === value));
    input.addEventListener('change', () => commit(spec.type === 'number' ? Number(input.value) : input.value));
  } else if (spec.type === 'boolean') {
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = value === true;
    box.addEventListener('change', () => commit(box.checked));
    input = box;
  } else if (spec.type === 'string' || spec.type === 'number') {
    const text = document.createElement('input');
    text.type = spec.type === 'number' ? 'number' : 'text';
    if (spec.minimum !== undefined) text.min = String(spec.minimum);
    if (spec.maximum !== undefined) text.max = String(spec.maximum);
    text.value = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    text.addEventListener('change', () => {
      if (spec.type === 'number' && (text.value === '' || !Number.isFinite(text.valueAsNumber))) return;
      commit(spec.type === 'number' ? text.valueAsNumber : text.value);
    });
    input = text;
  } else {
    return null;
  }
  input.name = name;
  label.append(input);
  return label;
}
