import { it } from 'vitest';
import { startTestServer } from '../helpers/testServer.js';
it('probe', async () => {
  const s = await startTestServer();
  const r = await s.api('POST', '/boards', { title: 'p' });
  console.log(s.url, r.body.access_links);
  await s.close();
});
