import type { FrameRecord } from '../model/frames.js';

/** What the host can do with frames from the panel. */
export interface FrameControls {
  create(): void;
  navigate(frame: FrameRecord, smooth: boolean): void;
  setLock(frame: FrameRecord, mode: FrameRecord['lock_mode']): void;
  setZoneVisibility(frame: FrameRecord, visibility: FrameRecord['zone_visibility']): void;
  rename(frame: FrameRecord, name: string): void;
  assign(frame: FrameRecord, userId: string): void;
  copyLink(frame: FrameRecord): Promise<string | null>;
  endSession(): void;
}

const LOCK_LABELS: Record<FrameRecord['lock_mode'], string> = { none: 'Free', soft: 'Soft lock (warn)', hard: 'Hard lock (hold)' };
const VISIBILITY_LABELS: Record<FrameRecord['zone_visibility'], string> = { visible: 'Everyone sees it', hidden: 'Only its student', host_only: 'Only the host' };

/**
 * The host's frame panel: one row per frame with its controls, and the session's controls. Only
 * the rows of frames that changed are rebuilt, so a control the host is using is not replaced
 * under the pointer by another frame's update.
 */
export function renderFramesPanel(panel: HTMLElement, frames: FrameRecord[], controls: FrameControls): void {
  let list = panel.querySelector<HTMLUListElement>('ul.frames');
  if (!list) {
    const actions = document.createElement('div');
    actions.className = 'panel-actions';
    actions.append(button('New frame', 'new-frame', () => controls.create()), button('End session', 'end-session', () => controls.endSession()));
    list = Object.assign(document.createElement('ul'), { className: 'frames' });
    panel.append(actions, list);
  }
  const rows = new Map([...list.children].map((row) => [(row as HTMLElement).dataset.frameId, row as HTMLLIElement]));
  const wanted = frames.map((frame) => {
    const row = rows.get(frame.id);
    const shown = JSON.stringify(frame);
    if (row && row.dataset.shown === shown) return row;
    const focused = row?.contains(document.activeElement) && document.activeElement instanceof HTMLInputElement;
    if (row && focused) return row; // never rebuilt under a typing host; the next change brings it up to date
    const fresh = frameRow(frame, controls);
    fresh.dataset.shown = shown;
    return fresh;
  });
  const current = [...list.children];
  if (wanted.length === current.length && wanted.every((row, index) => row === current[index])) return;
  if (wanted.length === current.length && wanted.every((row, index) => row.dataset.frameId === (current[index] as HTMLElement).dataset.frameId)) {
    wanted.forEach((row, index) => row !== current[index] && current[index]!.replaceWith(row));
    return;
  }
  list.replaceChildren(...wanted);
}

function frameRow(frame: FrameRecord, controls: FrameControls): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.frameId = frame.id;
  const name = Object.assign(document.createElement('input'), { value: frame.name, ariaLabel: `Name of frame ${frame.name}`, maxLength: 255 });
  name.dataset.field = 'name';
  name.addEventListener('change', () => name.value.trim() && controls.rename(frame, name.value.trim()));
  const go = button('Go', 'navigate', () => controls.navigate(frame, true), `Bring everyone to ${frame.name}`);
  const lock = select('lock_mode', LOCK_LABELS, frame.lock_mode, `Lock of ${frame.name}`, (mode) => controls.setLock(frame, mode));
  item.append(name, go, lock);
  const assigned = frame.assigned_user_id ?? frame.assigned_participant_id;
  const assign = Object.assign(document.createElement('input'), { value: assigned ?? '', placeholder: 'student id', ariaLabel: `Student of ${frame.name}`, maxLength: 255 });
  assign.dataset.field = 'assign';
  const assignButton = button(assigned ? 'Reassign' : 'Make zone', 'assign', () => assign.value.trim() && controls.assign(frame, assign.value.trim()), `Assign ${frame.name} to a student`);
  item.append(assign, assignButton);
  if (assigned) {
    const visibility = select('zone_visibility', VISIBILITY_LABELS, frame.zone_visibility, `Who sees ${frame.name}`, (value) => controls.setZoneVisibility(frame, value));
    const linkOutput = Object.assign(document.createElement('output'), { className: 'personal-link' });
    const copy = button('Copy link', 'copy-link', () => void controls.copyLink(frame).then((link) => (linkOutput.textContent = link ?? '')), `Copy the personal link of ${assigned}`);
    item.append(visibility, copy, linkOutput);
  }
  return item;
}

function button(text: string, action: string, onClick: () => void, label?: string): HTMLButtonElement {
  const element = Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  element.dataset.action = action;
  if (label) element.setAttribute('aria-label', label);
  element.addEventListener('click', onClick);
  return element;
}

function select<T extends string>(field: string, labels: Record<T, string>, value: T, label: string, onChange: (value: T) => void): HTMLSelectElement {
  const element = document.createElement('select');
  element.dataset.field = field;
  element.setAttribute('aria-label', label);
  for (const [option, text] of Object.entries(labels) as Array<[T, string]>) element.append(new Option(text, option, false, option === value));
  element.addEventListener('change', () => onChange(element.value as T));
  return element;
}
