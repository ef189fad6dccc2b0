import type { Person } from '../session/presence.js';

/** The participants list: people and visible agents, each in its colour; an agent at work says so. */
export function renderPeople(list: HTMLElement, people: Person[], rename: (name: string) => void): void {
  const focused = document.activeElement;
  if (focused instanceof HTMLInputElement && list.contains(focused)) return; // never rebuild under a typing user
  list.replaceChildren(
    ...people.map((person) => {
      const item = document.createElement('li');
      item.dataset.userId = person.id;
      item.classList.toggle('self', person.self);
      item.classList.toggle('agent', person.agent);
      item.classList.toggle('thinking', person.thinking);
      item.style.setProperty('--color', person.color);
      const dot = Object.assign(document.createElement('span'), { className: 'dot', ariaHidden: 'true' });
      item.append(dot);
      if (person.renamable) {
        const input = Object.assign(document.createElement('input'), { value: person.name, ariaLabel: 'Your name', maxLength: 60 });
        input.addEventListener('change', () => rename(input.value.trim() || person.name));
        item.append(input, Object.assign(document.createElement('span'), { className: 'tag', textContent: 'you' }));
      } else {
        item.append(Object.assign(document.createElement('span'), { className: 'name', textContent: person.name }));
        const tag = person.self ? 'you' : person.agent ? (person.thinking ? 'thinking…' : 'agent') : person.role === 'host' ? 'host' : null;
        if (tag) item.append(Object.assign(document.createElement('span'), { className: 'tag', textContent: tag }));
      }
      return item;
    }),
  );
}
