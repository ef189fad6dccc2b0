import { describe, expect, it } from 'vitest';
import { browserForSuite, screenshot } from '../helpers/browser.js';
import { createBoard, expectOk, serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/**
 * What an agent writes on the board (here the built-in rule engine's
 * tutor: feedback, a hint, a note of its own, a summary, generated ideas) shows in the browser
 * client as notes, each with its whole text visible, none covering another.
 */

const suite = serverForSuite({ env: { AGENT_TICK_MS: '3600000' } });
const { server } = suite;
const browsers = browserForSuite();

const ANSWER = "object.data.kind == 'answer'";
const TOPIC =
  'how to add two fractions whose denominators differ: find a common denominator first, rewrite both fractions with it, and only then add the numerators while the denominator stays the same';
const OWN_NOTE =
  'Remember: a fraction names equal parts of one whole. Before you add, make sure both fractions count parts of the same size, then count how many of those parts there are together. Draw it if that helps: two bars of the same length, cut into the same number of parts.';
const IDEAS = ['Pizza slices', 'Measuring cups in a recipe, where a half cup and a third cup go into one bowl and the bowl shows how much there is', 'Clock minutes'].join('\n');

/** Each object the page draws for `ids`: how it is drawn, and whether its text shows whole. */
function shownNotes(ids: string[]) {
  return ids.map((id) => {
    const group = document.querySelector<SVGGElement>(`#scene g.object[data-object-id="${id}"]`);
    const text = group?.querySelector<HTMLElement>('.object-text');
    const box = text?.getBoundingClientRect();
    return {
      id,
      classes: group?.getAttribute('class') ?? null,
      text: text?.textContent ?? null,
      clipped: !text || text.scrollHeight > text.clientHeight + 1 || text.scrollWidth > text.clientWidth + 1,
      onScreen: !!box && box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth,
    };
  });
}

interface Placed {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width: number;
  height: number;
}

const overlap = (a: Placed, b: Placed) =>
  a.position.x < b.position.x + b.width && b.position.x < a.position.x + a.width && a.position.y < b.position.y + b.height && b.position.y < a.position.y + a.height;

describe('browser client: what agents write', () => {
  it("shows the tutor's feedback, hint, note, summary and ideas as notes with their whole text, side by side", async () => {
    const board = await createBoard(server, 'Fractions');
    const params = { expected: '3/4' };
    const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, {
      name: 'Tutor',
      persona: 'tutor',
      maxActionsPerMinute: 60,
      instructions: {
        triggers: [
          { event: 'object:created', condition: ANSWER, action: 'evaluate_answer', params },
          { event: 'object:created', condition: ANSWER, action: 'generate_hint', params: { ...params, topic: TOPIC } },
          { event: 'object:created', condition: ANSWER, action: 'create_object', params: { data: { text: OWN_NOTE } } },
          { event: 'object:created', condition: ANSWER, action: 'summarize', params: {} },
          { event: 'object:created', condition: ANSWER, action: 'generate_content', params: { prompt: IDEAS, style: 'grid', origin: { x: 760, y: 60 } } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agent = created.body as { id: string };
    const answer = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'I think it is 2/6', kind: 'answer' }, position: { x: 60, y: 60 } });
    expect(answer.status).toBe(201);

    const logPath = `/boards/${board.board_uuid}/agents/${agent.id}/actions`;
    await eventually(async () => {
      await server.app.agents.settled();
      return ((await expectOk(server, 'GET', logPath)) as unknown as unknown[]).length === 5;
    }, 15_000);
    const log = (await expectOk(server, 'GET', logPath)) as unknown as Array<{ actionType: string; success: boolean; errorMessage: string | null }>;
    expect(log.filter((entry) => !entry.success)).toEqual([]);
    const written = ((await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects as Placed[]).filter(
      (object) => (object as unknown as { created_by: string }).created_by === `agent:${agent.id}`,
    );
    // Feedback, hint, own note, summary and three ideas: the types the page draws as notes, sized by the agent.
    expect(written.map((object) => object.type).sort()).toEqual(['feedback', 'sticky', 'sticky', 'sticky', 'sticky', 'sticky', 'sticky']);
    const pairs = written.flatMap((a, i) => written.slice(i + 1).filter((b) => overlap(a, b)).map((b) => [a.data.text, b.data.text]));
    expect(pairs).toEqual([]);

    const { page } = await browsers.open(board.access_links.host);
    const ids = written.map((object) => object.id);
    await page.waitForFunction((wanted) => wanted.every((id) => document.querySelector(`#scene g.object[data-object-id="${id}"]`)), ids);
    await page.keyboard.press('1');
    await page.waitForFunction(shownNotes, ids).then(() => undefined);
    await eventually(async () => (await page.evaluate(shownNotes, ids)).every((note) => note.onScreen));
    const shown = await page.evaluate(shownNotes, ids);
    for (const object of written) {
      expect(shown.find((note) => note.id === object.id)).toEqual({
        id: object.id,
        classes: object.type === 'feedback' ? 'object sticky feedback' : 'object sticky',
        text: object.data.text,
        clipped: false,
        onScreen: true,
      });
    }
    await screenshot(page, 'client-agent-notes');
  });
});
