// Builds the browser client into dist/client: the board page's script and style under hashed
// names (served for a year), the page that names them, and the service worker that keeps them.
// `npm run build` runs it; the test suite's global setup runs it too.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const clientDir = dirname(fileURLToPath(import.meta.url));
const finalDir = join(clientDir, '..', 'dist', 'client');
const ASSETS_URL = '/app/assets';

export async function buildClient({ quiet = false } = {}) {
  // Built beside the served copy and swapped in whole, so a server running from the previous
  // build (another test run, a running instance) never finds half a build.
  const outDir = `${finalDir}.building-${process.pid}`;
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  const board = await esbuild.build({
    entryPoints: { board: join(clientDir, 'src', 'main.ts') },
    bundle: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    sourcemap: false,
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(board.metafile.outputs).map((path) => relative(join(outDir, 'assets'), path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`the client build made no script or style: ${outputs.join(', ')}`);
  assertOneYjs(board.metafile);

  const page = readFileSync(join(clientDir, 'src', 'board.html'), 'utf8')
    .replace('%STYLE%', `${ASSETS_URL}/${style}`)
    .replace('%SCRIPT%', `${ASSETS_URL}/${script}`);
  writeFileSync(join(outDir, 'board.html'), page);

  // The service worker keeps exactly this build: its list (and so its own bytes) change with every build.
  const precache = [
    { url: '/app/board.html', revision: hash(page) },
    { url: `${ASSETS_URL}/${script}`, revision: null },
    { url: `${ASSETS_URL}/${style}`, revision: null },
  ];
  await esbuild.build({
    entryPoints: [join(clientDir, 'sw', 'serviceWorker.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    minify: true,
    outfile: join(outDir, 'sw.js'),
    define: { __PRECACHE__: JSON.stringify(precache) },
    legalComments: 'none',
    logLevel: 'warning',
  });

  const scriptBytes = readFileSync(join(outDir, 'assets', script));
  const sizes = { script, style, scriptBytes: scriptBytes.length, scriptGzipBytes: gzipSync(scriptBytes, { level: 9 }).length };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify({ ...sizes, precache }, null, 2));
  const retired = `${finalDir}.retired-${process.pid}`;
  try {
    renameSync(finalDir, retired);
  } catch {
    // no earlier build
  }
  renameSync(outDir, finalDir);
  rmSync(retired, { recursive: true, force: true });
  if (!quiet) console.log(`client built: ${script} ${(sizes.scriptGzipBytes / 1024).toFixed(1)} KB gzipped, ${style}`);
  return sizes;
}

/** Two copies of Yjs in one page break its type checks ("Yjs was already imported"). */
function assertOneYjs(metafile) {
  const copies = new Set(Object.keys(metafile.inputs).filter((path) => /node_modules\/yjs\/dist\//.test(path)).map((path) => path.split('/dist/')[0]));
  if (copies.size > 1) throw new Error(`the client bundle holds ${copies.size} copies of Yjs: ${[...copies].join(', ')}`);
}

function hash(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildClient();
}
