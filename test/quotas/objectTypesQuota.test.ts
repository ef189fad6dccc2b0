import { describe, expect, it } from 'vitest';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';

const { server } = serverForSuite();

const registration = (typeName: string) => ({
  typeName,
  displayName: `Type ${typeName}`,
  category: 'quiz',
  schema: { type: 'object', properties: { title: { type: 'string', maxLength: 100 } }, required: ['title'] },
});

async function starter() {
  const { api } = await organizationCaller(server, 'starter');
  return { api };
}

describe('the object_types quota', () => {
  it('registers the plan’s 5 types on starter, refuses the 6th with 402 and stores nothing', async () => {
    const org = await starter();
    for (let index = 0; index < 5; index += 1) expect((await org.api('POST', '/object-types', registration(`type-${index}`))).status).toBe(201);

    const refused = await org.api('POST', '/object-types', registration('type-5'));
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ statusCode: 402, error: 'Payment Required', quotaType: 'object_types', current: 5, limit: 5 });
    expect(typeof refused.body.upgradeUrl).toBe('string');
    expect((await org.api('GET', '/object-types/type-5')).status).toBe(404);
    expect((await org.api('GET', '/quota/object_types')).body).toMatchObject({ allowed: false, current: 5, limit: 5, remaining: 0 });
  });

  it('lets exactly the remaining registrations through when 20 arrive at once', async () => {
    const org = await starter();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => org.api('POST', '/object-types', registration(`parallel-${index}`))));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 402)).toHaveLength(15);
    expect(((await org.api('GET', '/object-types')).body as unknown[]).length).toBe(5);
  });

  it('does not count another organization’s types', async () => {
    const first = await starter();
    const second = await starter();
    for (let index = 0; index < 5; index += 1) await first.api('POST', '/object-types', registration(`mine-${index}`));
    expect((await second.api('POST', '/object-types', registration('mine-0'))).status).toBe(201);
    expect((await second.api('GET', '/quota/object_types')).body).toMatchObject({ current: 1, limit: 5 });
  });
});
