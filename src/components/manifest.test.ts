import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES, parseManifest, propsSchema, type Manifest } from './manifest.js';

const MINIMAL = { name: 'my-widget', version: '1.0.0', title: 'My widget', description: 'A widget', entry: 'index.html' };

function parse(manifest: unknown) {
  return parseManifest(Buffer.from(JSON.stringify(manifest), 'utf8'));
}

/** The minimal manifest with `value` set at the dotted `path` (intermediate objects created). */
function withValue(path: string, value: unknown): Record<string, unknown> {
  const manifest: Record<string, unknown> = structuredClone(MINIMAL);
  const keys = path.split('.');
  let target = manifest;
  for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
  target[keys.at(-1)!] = value;
  return manifest;
}

function accepted(manifest: unknown): Manifest {
  const result = parse(manifest);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.details)}`);
  return result.manifest;
}

/** The fields named in the details, each once; [] when accepted. */
function fieldsOf(manifest: unknown): string[] {
  const result = parse(manifest);
  return result.ok ? [] : [...new Set(result.details.map((detail) => detail.field))];
}

describe('parseManifest defaults', () => {
  it('gives the minimal manifest every section with its defaults', () => {
    expect(accepted(MINIMAL)).toEqual({
      ...MINIMAL,
      dimensions: { width: 300, height: 200, minWidth: 200, minHeight: 150, resizable: true, aspectRatio: null },
      props: {},
      storage: { schema: {}, visibility: {} },
      settings: { mode: 'auto', width: 400, height: 500 },
      preview: { mode: 'auto', format: 'svg', staleIndicator: true, staleTimeout: 5000 },
      rendering: { lazyLoad: true, viewport: { margin: 200 }, priority: 'normal', keepAlive: false, keepAliveTimeout: 30000 },
      backend: { endpoints: [] },
      secrets: {},
      permissions: {
        storage: { host: ['read', 'write'], guest: ['read'] },
        props: { host: ['read', 'write'], guest: ['read'] },
        backend: { host: ['*'], guest: [] },
      },
      globalEvents: { emit: [], listen: [] },
      presence: { enabled: false, throttle: 50, showCursors: true },
      undoRedo: { enabled: false, maxHistory: 50, groupingTimeout: 1000 },
      debug: { remoteLogs: false, logLevel: 'error', retention: '24h' },
      webhooks: {},
      export: { formats: [], customFormats: [] },
      connectors: { enabled: false, ports: [] },
      accessibility: { keyboardNavigation: false, screenReaderSupport: false, highContrastSupport: false, reduceMotionSupport: false },
      i18n: { defaultLocale: 'en', supportedLocales: ['en'], translations: {}, dateFormat: 'auto' },
      offline: { enabled: false, persistence: 'indexeddb', maxPendingOperations: 1000, retryStrategy: 'exponential' },
      performance: {},
      runtimeAssets: { enabled: false, maxFileSize: 10485760, maxTotalStorage: 104857600 },
      transient: { enabled: false, maxUpdatesPerSecond: 60, maxKeys: 10, maxPayloadSize: 1024, persistOnDisconnect: false, persistOnUnload: false },
      marketplace: { tags: [], pricing: 'free', screenshots: [] },
      migrations: {},
    });
  });

  it('fills the fields a partly given section leaves out, and keeps what it gives', () => {
    const manifest = accepted({ ...MINIMAL, rendering: { priority: 'high' }, permissions: { storage: { guest: ['read', 'write'] } } });
    expect(manifest.rendering).toEqual({ lazyLoad: true, viewport: { margin: 200 }, priority: 'high', keepAlive: false, keepAliveTimeout: 30000 });
    expect(manifest.permissions.storage).toEqual({ host: ['read', 'write'], guest: ['read', 'write'] });
    expect(manifest.permissions.props).toEqual({ host: ['read', 'write'], guest: ['read'] });
  });

  it('fills the defaults of each secret and webhook source', () => {
    const manifest = accepted({ ...MINIMAL, secrets: { API_KEY: { description: 'key' } }, webhooks: { github: { endpoint: '/hooks' } } });
    expect(manifest.secrets).toEqual({ API_KEY: { description: 'key', required: false, scope: 'organization', rotatable: false } });
    expect(manifest.webhooks).toEqual({ github: { endpoint: '/hooks', events: [] } });
  });

  it('accepts a manifest that uses every section, keeping what it gives', () => {
    const full = {
      ...MINIMAL,
      author: 'Ada',
      license: 'MIT',
      repository: 'https://example.com/repo',
      keywords: ['poll', 'class'],
      styles: ['css/app.css'],
      dimensions: { width: 640, height: 360, minWidth: 320, minHeight: 180, maxWidth: 1280, maxHeight: 720, resizable: false, aspectRatio: '16:9' },
      props: { question: { type: 'string', default: 'Why?', description: 'Asked', ui: { label: 'Question', placeholder: '…', widget: 'textarea' } } },
      storage: { schema: { votes: { type: 'array', default: [], items: { type: 'string' }, maxItems: 500, description: 'All votes' } }, visibility: { votes: 'anonymous' } },
      settings: { mode: 'custom', entry: 'settings.html', width: 500, height: 600 },
      preview: { mode: 'manual', format: 'png', fallback: 'preview.png', staleIndicator: false, staleTimeout: 1000, generator: { selector: '#root', width: 200, height: 100, scale: 2 } },
      rendering: { lazyLoad: false, viewport: { margin: 0 }, priority: 'high', keepAlive: true, keepAliveTimeout: 60000 },
      backend: {
        endpoints: [
          {
            path: '/quotes',
            target: 'https://api.example.com/quotes',
            auth: { type: 'header', name: 'X-Key', value: '{{secrets.API_KEY}}' },
            rateLimit: { requests: 10, window: '1m' },
          },
        ],
      },
      secrets: { API_KEY: { description: 'Quote API key', required: true, scope: 'organization', rotatable: true } },
      permissions: { storage: { host: ['*'], guest: ['read', 'write'] }, props: { host: ['read', 'write'], guest: [] }, backend: { host: ['*'], guest: ['/quotes'] } },
      globalEvents: { emit: ['poll:closed'], listen: ['timer:*', '*'] },
      presence: { enabled: true, throttle: 100, showCursors: false },
      undoRedo: { enabled: true, maxHistory: 100, groupingTimeout: 500 },
      debug: { remoteLogs: true, logLevel: 'debug', retention: '7d' },
      webhooks: { github: { events: ['push'], filter: { branch: 'main' }, endpoint: '/hooks/github', secret: 'GITHUB_SECRET' } },
      export: { formats: ['csv', 'pdf'], customFormats: [{ id: 'ics', label: 'Calendar' }] },
      connectors: { enabled: true, ports: [{ id: 'in', position: 'left', offset: 0.5, type: 'input', accepts: ['number'] }], validation: { strict: true } },
      accessibility: { keyboardNavigation: true, screenReaderSupport: true, highContrastSupport: true, reduceMotionSupport: true, role: 'region', label: 'Poll' },
      i18n: { defaultLocale: 'en', supportedLocales: ['en', 'de-DE'], translations: { 'de-DE': { vote: 'Abstimmen' } }, dateFormat: 'locale', numberFormat: 'de-DE' },
      offline: { enabled: true, persistence: 'localstorage', maxPendingOperations: 10, retryStrategy: 'immediate' },
      performance: { rateLimit: { debounce: 100, throttle: 50, maxBurst: 5 }, batching: { enabled: true, maxBatchSize: 20, flushInterval: 100 } },
      runtimeAssets: { enabled: true, maxFileSize: 1024, maxTotalStorage: 4096, allowedTypes: ['image/png', 'image/*'], imageOptimization: true, thumbnails: { size: 64 } },
      transient: { enabled: true, maxUpdatesPerSecond: 30, maxKeys: 5, maxPayloadSize: 512, persistOnDisconnect: true, persistOnUnload: true },
      marketplace: { category: 'education', tags: ['poll'], pricing: 'freemium', screenshots: ['shots/1.png', 'https://example.com/2.png'] },
      migrations: { '<2.0.0': 'migrations/v1.js' },
    };
    expect(accepted(full)).toEqual(full);
  });

  it('keeps unknown top-level keys as sent', () => {
    expect(accepted({ ...MINIMAL, futureSection: { anything: [1, 'two'] } })).toMatchObject({ futureSection: { anything: [1, 'two'] } });
  });

  it('makes every storage key shared unless declared otherwise', () => {
    const manifest = accepted({ ...MINIMAL, storage: { schema: { votes: { type: 'object' }, notes: { type: 'string' } }, visibility: { notes: 'private' } } });
    expect(manifest.storage.visibility).toEqual({ votes: 'shared', notes: 'private' });
  });

  it('lets default sizes give way to the sizes given', () => {
    expect(accepted({ ...MINIMAL, dimensions: { maxWidth: 250 } }).dimensions).toMatchObject({ width: 250, minWidth: 200, maxWidth: 250 });
    expect(accepted({ ...MINIMAL, dimensions: { height: 100 } }).dimensions).toMatchObject({ height: 100, minHeight: 100 });
    expect(accepted({ ...MINIMAL, dimensions: { minWidth: 500 } }).dimensions).toMatchObject({ width: 500, minWidth: 500 });
  });

  it('defaults supportedLocales to the default locale', () => {
    expect(accepted({ ...MINIMAL, i18n: { defaultLocale: 'fr-CA' } }).i18n.supportedLocales).toEqual(['fr-CA']);
  });
});

describe('parseManifest sections', () => {
  // Each row: a path, a value refused there, and a value accepted there (so the refusal is about this value).
  const cases: [path: string, bad: unknown, good: unknown][] = [
    ['dimensions.width', 0, 1],
    ['dimensions.width', 10_001, 10_000],
    ['dimensions.height', 1.5, 2],
    ['dimensions.minHeight', -1, 10],
    ['dimensions.maxWidth', 'wide', 400],
    ['dimensions.aspectRatio', '1:1', '16:9'],
    ['dimensions.resizable', 'yes', false],
    ['dimensions.widht', 400, undefined],
    ['settings.mode', 'manual', 'auto'],
    ['settings.width', -5, 600],
    ['settings.entry', '../settings.html', 'settings.html'],
    ['preview.mode', 'sometimes', 'disabled'],
    ['preview.format', 'gif', 'webp'],
    ['preview.staleTimeout', -1, 0],
    ['preview.generator.scale', 10, 2],
    ['rendering.priority', 'urgent', 'low'],
    ['rendering.viewport.margin', -1, 0],
    ['rendering.keepAliveTimeout', 3_600_001, 3_600_000],
    ['backend.endpoints.0', { path: '/quotes', target: 'ftp://x' }, { path: '/quotes', target: 'https://api.example.com/q' }],
    ['secrets.API_KEY.scope', 'global', 'board'],
    ['permissions.storage.guest.0', 'delete', 'write'],
    ['permissions.props.host', 'read', ['read']],
    ['permissions.backend.guest.0', 'no-slash', '*'],
    ['globalEvents.emit.0', 'Timer Start', 'timer:start'],
    ['globalEvents.listen.0', 'timer*x', 'timer:*'],
    ['globalEvents.listen.0', `e${'x'.repeat(100)}`, `e${'x'.repeat(99)}`],
    ['globalEvents.emit', Array.from({ length: 51 }, (_, i) => `e${i}`), Array.from({ length: 50 }, (_, i) => `e${i}`)],
    ['presence.throttle', -1, 0],
    ['undoRedo.maxHistory', 0, 1_000],
    ['debug.logLevel', 'trace', 'debug'],
    ['debug.retention', '1y', '7d'],
    ['debug.retention', '31d', '30d'],
    ['webhooks.github.events.0', 7, 'push'],
    ['export.formats.0', 'docx', 'xlsx'],
    ['connectors.ports.0', { id: 'in', offset: 1e6 }, { id: 'in', offset: 10 }],
    ['connectors.ports.0', { offset: 10 }, { id: 'out' }],
    ['accessibility.keyboardNavigation', 'yes', true],
    ['i18n.dateFormat', 'iso', 'ISO'],
    ['i18n.defaultLocale', 'english!', 'en'],
    ['offline.persistence', 'sessionstorage', 'none'],
    ['offline.retryStrategy', 'random', 'linear'],
    ['offline.maxPendingOperations', 0, 1],
    ['performance.batching.maxBatchSize', 0, 10],
    ['runtimeAssets.maxFileSize', 50 * 1024 * 1024 + 1, 1024],
    ['runtimeAssets.allowedTypes.0', 'image', 'image/*'],
    ['transient.maxKeys', 101, 100],
    ['transient.maxUpdatesPerSecond', 0, 120],
    ['marketplace.pricing', 'cheap', 'freemium'],
    ['marketplace.screenshots.0', '../shot.png', 'https://example.com/shot.png'],
  ];

  it.each(cases)('refuses a bad %s and names it', (path, bad, good) => {
    const field = `manifest.${path}`;
    const manifest = withValue(path.replace(/\.0$/, ''), /\.0$/.test(path) ? [bad] : bad);
    expect(fieldsOf(manifest).filter((named) => named === field || named.startsWith(`${field}.`))).not.toEqual([]);
    if (good !== undefined) accepted(withValue(path.replace(/\.0$/, ''), /\.0$/.test(path) ? [good] : good));
  });

  it('refuses more props and storage keys than allowed', () => {
    const many = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'number', default: 0 }]));
    expect(fieldsOf({ ...MINIMAL, props: many(101) })).toContain('manifest.props');
    expect(fieldsOf({ ...MINIMAL, storage: { schema: many(101) } })).toContain('manifest.storage.schema');
    accepted({ ...MINIMAL, props: many(100), storage: { schema: many(100) } });
  });

  it('refuses prop names that are not plain identifiers, Object.prototype names included', () => {
    const prop = { type: 'string', default: '' };
    expect(fieldsOf({ ...MINIMAL, props: { 'bad key': prop } })).toContain('manifest.props.bad key');
    expect(fieldsOf({ ...MINIMAL, props: { constructor: prop } })).toContain('manifest.props.constructor');
    expect(fieldsOf({ ...MINIMAL, storage: { schema: { toString: prop } } })).toContain('manifest.storage.schema.toString');
  });

  it('refuses a ui widget not in the list', () => {
    expect(fieldsOf({ ...MINIMAL, props: { size: { type: 'number', default: 1, ui: { widget: 'dial' } } } })).toContain('manifest.props.size.ui.widget');
    accepted({ ...MINIMAL, props: { size: { type: 'number', default: 1, ui: { widget: 'color-array' } } } });
  });

  it('refuses visibility values other than shared, private, anonymous, and keys missing from storage.schema', () => {
    const schema = { notes: { type: 'string' } };
    expect(fieldsOf({ ...MINIMAL, storage: { schema, visibility: { notes: 'public' } } })).toContain('manifest.storage.visibility.notes');
    expect(fieldsOf({ ...MINIMAL, storage: { schema, visibility: { other: 'private' } } })).toEqual(['manifest.storage.visibility.other']);
    accepted({ ...MINIMAL, storage: { schema, visibility: { notes: 'anonymous' } } });
  });

  it('refuses sizes out of order', () => {
    expect(fieldsOf({ ...MINIMAL, dimensions: { width: 300, minWidth: 400 } })).toEqual(['manifest.dimensions.minWidth']);
    expect(fieldsOf({ ...MINIMAL, dimensions: { height: 300, maxHeight: 250 } })).toEqual(['manifest.dimensions.maxHeight']);
    accepted({ ...MINIMAL, dimensions: { width: 300, minWidth: 300, maxWidth: 300 } });
  });

  it('refuses migrations keyed by anything but a semver range, or pointing outside the package', () => {
    expect(fieldsOf({ ...MINIMAL, migrations: { '<2.0.0': '/migrate.js' } })).toEqual(['manifest.migrations.<2.0.0']);
    expect(fieldsOf({ ...MINIMAL, migrations: { 'not a range!': 'migrate.js' } })).toEqual(['manifest.migrations.not a range!']);
    accepted({ ...MINIMAL, migrations: { '>=1.0.0 <2.0.0': 'migrations/v1.js' } });
  });

  it('needs a settings entry in custom mode and declared endpoints in backend permissions', () => {
    expect(fieldsOf({ ...MINIMAL, settings: { mode: 'custom' } })).toEqual(['manifest.settings.entry']);
    expect(fieldsOf({ ...MINIMAL, permissions: { backend: { guest: ['/quotes'] } } })).toEqual(['manifest.permissions.backend.guest.0']);
    accepted({
      ...MINIMAL,
      backend: { endpoints: [{ path: '/quotes', target: 'https://api.example.com/q', rateLimit: { requests: 10, window: '1m' } }] },
      permissions: { backend: { guest: ['/quotes'] } },
    });
  });

  it('caps the details it lists', () => {
    const props = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: 'number', description: 5, ui: { widget: 'dial' } }]));
    const result = parse({ ...MINIMAL, props });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.details).toHaveLength(101);
  });
});

describe('parseManifest name, version and entry', () => {
  it.each(['Latest', 'latest', '../x', 'my_widget', '-widget', 'my--widget', 'widget-', '', 'a'.repeat(65)])('refuses the name %j', (name) => {
    expect(fieldsOf({ ...MINIMAL, name })).toEqual(['manifest.name']);
  });

  it('accepts lowercase names with single hyphens up to 64 characters', () => {
    expect(accepted({ ...MINIMAL, name: 'poll-2' }).name).toBe('poll-2');
    accepted({ ...MINIMAL, name: 'a'.repeat(64) });
  });

  it.each(['1.0', '01.0.0', 'v1.0.0', '1.0.0+build.1', ' 1.0.0', '1.0.0-01', `1.0.0-${'a'.repeat(60)}`, ''])('refuses the version %j', (version) => {
    expect(fieldsOf({ ...MINIMAL, version })).toEqual(['manifest.version']);
  });

  it('says why a version or a name is refused', () => {
    expect(parse({ ...MINIMAL, version: '1.0' })).toEqual({ ok: false, details: [{ field: 'manifest.version', message: expect.stringContaining('semantic version') }] });
    expect(parse({ ...MINIMAL, name: 'latest' })).toEqual({ ok: false, details: [{ field: 'manifest.name', message: expect.stringContaining('reserved') }] });
  });

  it('accepts releases and prereleases', () => {
    expect(accepted({ ...MINIMAL, version: '1.0.0-beta.1' }).version).toBe('1.0.0-beta.1');
    expect(accepted({ ...MINIMAL, version: '12.3.45' }).version).toBe('12.3.45');
  });

  it.each(['../x', '../../evil.js', '/index.html', 'dist\\index.html', 'a/../b.html', './index.html', 'a//b.html', 'C:/x.html', '', 'a\u0001.html', `${'a'.repeat(251)}.html`])(
    'refuses the entry %j',
    (entry) => {
      expect(fieldsOf({ ...MINIMAL, entry })).toEqual(['manifest.entry']);
    },
  );

  it('accepts a relative entry in a folder, NFC-normalised as package paths are', () => {
    expect(accepted({ ...MINIMAL, entry: 'dist/index.html' }).entry).toBe('dist/index.html');
    expect(accepted({ ...MINIMAL, entry: 'cafe\u0301.html' }).entry).toBe('caf\u00e9.html');
  });

  it('names every missing required field', () => {
    expect(fieldsOf({}).sort()).toEqual(['manifest.description', 'manifest.entry', 'manifest.name', 'manifest.title', 'manifest.version']);
  });

  it('bounds title and description', () => {
    expect(fieldsOf({ ...MINIMAL, title: 't'.repeat(201), description: 'd'.repeat(2001) })).toEqual(['manifest.title', 'manifest.description']);
    accepted({ ...MINIMAL, title: 't'.repeat(200), description: 'd'.repeat(2000) });
  });
});

describe('parseManifest bytes', () => {
  const snapshot = () => Object.getOwnPropertyNames(Object.prototype).sort();

  it.each([
    ['__proto__ at the top', `{"__proto__":{"admin":true},"name":"x"}`],
    ['__proto__ nested', `{"props":{"a":{"__proto__":{"admin":true}}}}`],
    ['an escaped __proto__', `{"\\u005f_proto__":{"admin":true}}`],
    ['constructor.prototype', `{"constructor":{"prototype":{"admin":true}}}`],
  ])('refuses %s and leaves Object.prototype unchanged', (_label, text) => {
    const before = snapshot();
    const result = parseManifest(Buffer.from(text));
    expect(result).toEqual({ ok: false, details: [{ field: 'manifest.json', message: expect.stringContaining('__proto__') }] });
    expect(snapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses invalid JSON, a non-object and invalid UTF-8 on manifest.json', () => {
    for (const bytes of [Buffer.from('{"name":'), Buffer.from('[1]'), Buffer.from('null')]) {
      const result = parseManifest(bytes);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.details.map((detail) => detail.field)).toEqual(['manifest.json']);
    }
  });

  it('refuses bytes that are not UTF-8 rather than replacing them', () => {
    const text = JSON.stringify({ ...MINIMAL, title: 'caf#' });
    const bytes = Buffer.from(text);
    bytes[text.indexOf('#')] = 0xe9; // Latin-1 é: not UTF-8
    expect(parseManifest(bytes)).toEqual({ ok: false, details: [{ field: 'manifest.json', message: 'is not valid UTF-8' }] });
  });

  it('accepts a UTF-8 byte order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(MINIMAL))]);
    const result = parseManifest(bytes);
    expect(result.ok && result.manifest.name).toBe('my-widget');
  });

  it('refuses a manifest over 256 KiB and accepts one of exactly 256 KiB', () => {
    // Padding in strings of at most 50,000 characters: longer strings are refused on their own.
    const sized = (bytes: number) => {
      const padding: string[] = [];
      const text = () => JSON.stringify({ ...MINIMAL, padding });
      while (text().length + 50_003 < bytes) padding.push('x'.repeat(50_000));
      padding.push('');
      padding[padding.length - 1] = 'x'.repeat(bytes - text().length);
      return Buffer.from(text());
    };
    expect(sized(MAX_MANIFEST_BYTES)).toHaveLength(256 * 1024);
    expect(parseManifest(sized(MAX_MANIFEST_BYTES)).ok).toBe(true);
    const result = parseManifest(sized(MAX_MANIFEST_BYTES + 1));
    expect(result).toEqual({ ok: false, details: [{ field: 'manifest.json', message: expect.stringContaining('262144') }] });
  });

  it('refuses text no database stores, even in unknown sections', () => {
    expect(fieldsOf({ ...MINIMAL, title: 'a\u0000b' })).toEqual(['manifest.title']);
    expect(fieldsOf({ ...MINIMAL, extra: { note: '\ud800' } })).toEqual(['manifest.extra.note']);
  });
});

describe('prop defaults', () => {
  it.each([
    ['a type mismatch', { type: 'number', default: '5' }, 'manifest.props.p.default'],
    ['a value outside the enum', { type: 'string', default: 'c', enum: ['a', 'b'] }, 'manifest.props.p.default'],
    ['a value below minimum', { type: 'number', default: -1, minimum: 0 }, 'manifest.props.p.default'],
    ['a value above maximum', { type: 'number', default: 11, maximum: 10 }, 'manifest.props.p.default'],
    ['an item of the wrong type', { type: 'array', default: ['#fff', 3], items: { type: 'string' } }, 'manifest.props.p.default.1'],
    ['an object for an array', { type: 'array', default: {} }, 'manifest.props.p.default'],
    ['null for a string', { type: 'string', default: null }, 'manifest.props.p.default'],
    ['an enum on a boolean', { type: 'boolean', default: true, enum: ['x'] }, 'manifest.props.p.enum'],
    ['an enum of the wrong type', { type: 'number', default: 1, enum: [1, 'two'] }, 'manifest.props.p.enum'],
    ['bounds on a string', { type: 'string', default: 'a', minimum: 1 }, 'manifest.props.p.minimum'],
    ['minimum above maximum', { type: 'number', default: 1, minimum: 5, maximum: 0 }, 'manifest.props.p.minimum'],
    ['items on an object', { type: 'object', default: {}, items: { type: 'string' } }, 'manifest.props.p.items'],
    ['a missing default', { type: 'string' }, 'manifest.props.p.default'],
  ])('refuses %s', (_label, spec, field) => {
    expect(fieldsOf({ ...MINIMAL, props: { p: spec } })).toEqual([field]);
  });

  it('accepts defaults that fit', () => {
    accepted({
      ...MINIMAL,
      props: {
        size: { type: 'number', default: 5, minimum: 0, maximum: 10, ui: { widget: 'slider', label: 'Size' } },
        mode: { type: 'string', default: 'a', enum: ['a', 'b'] },
        colors: { type: 'array', default: ['#fff'], items: { type: 'string' } },
        config: { type: 'object', default: { nested: [1] } },
      },
    });
  });

  it('checks storage defaults, maxItems included', () => {
    expect(fieldsOf({ ...MINIMAL, storage: { schema: { votes: { type: 'array', maxItems: 1, default: [1, 2] } } } })).toEqual(['manifest.storage.schema.votes.default']);
    expect(fieldsOf({ ...MINIMAL, storage: { schema: { votes: { type: 'string', maxItems: 1 } } } })).toEqual(['manifest.storage.schema.votes.maxItems']);
    expect(fieldsOf({ ...MINIMAL, storage: { schema: { votes: { default: 1 } } } })).toEqual(['manifest.storage.schema.votes.type']);
  });
});

describe('propsSchema', () => {
  const manifest = accepted({
    ...MINIMAL,
    props: {
      size: { type: 'number', default: 5, minimum: 0, maximum: 10 },
      mode: { type: 'string', default: 'a', enum: ['a', 'b'] },
      colors: { type: 'array', default: ['#fff'], items: { type: 'string' } },
      config: { type: 'object', default: { nested: true } },
    },
  });
  const validate = new Ajv({ strict: true, useDefaults: true, allErrors: true }).compile(propsSchema(manifest));

  it('fills missing props with their defaults, as copies', () => {
    const props: Record<string, any> = {};
    expect(validate(props)).toBe(true);
    expect(props).toEqual({ size: 5, mode: 'a', colors: ['#fff'], config: { nested: true } });
    props.colors.push('#000');
    expect(manifest.props.colors!.default).toEqual(['#fff']);
  });

  it('refuses values outside type, enum, bounds and items', () => {
    expect(validate({ size: 11, mode: 'c', colors: [1], config: [] })).toBe(false);
    expect(validate.errors!.map((error) => error.instancePath).sort()).toEqual(['/colors/0', '/config', '/mode', '/size']);
    expect(validate({ size: 10, mode: 'b', colors: [], config: {} })).toBe(true);
  });

  it('leaves props the manifest does not declare alone', () => {
    expect(validate({ other: 1 })).toBe(true);
  });
});
