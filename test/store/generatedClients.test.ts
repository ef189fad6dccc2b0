import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository, without types
import { loadCompilerFromWasmFile } from '../../scripts/prisma-generate.mjs';

const root = join(import.meta.dirname, '../..');
const base64Require = "require('./query_compiler_fast_bg.wasm-base64.js')";

describe('generated Prisma clients', () => {
  const scratch: string[] = [];
  afterEach(() => scratch.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

  it.each(['sqlite', 'postgres'])('the %s client compiles its query compiler from the .wasm file, not from base64 text', (flavour) => {
    const directory = join(root, 'generated', flavour);
    const index = readFileSync(join(directory, 'index.js'), 'utf8');
    expect(index).not.toContain(base64Require);
    expect(index).toContain("join(__dirname, 'query_compiler_fast_bg.wasm')");
    expect(() => new WebAssembly.Module(readFileSync(join(directory, 'query_compiler_fast_bg.wasm')))).not.toThrow();
  });

  it('rewrites the loader Prisma generates, once, and refuses a layout it does not know', () => {
    const directory = mkdtempSync(join(tmpdir(), 'wb-generated-'));
    scratch.push(directory);
    const generated = [
      'config.compilerWasm = {',
      '      getQueryCompilerWasmModule: async () => {',
      "        const { Buffer } = require('node:buffer')",
      `        const { wasm } = ${base64Require}`,
      "        const queryCompilerWasmFileBytes = Buffer.from(wasm, 'base64')",
      '',
      '        return new WebAssembly.Module(queryCompilerWasmFileBytes)',
      '      },',
      '    }',
      '',
    ].join('\n');
    writeFileSync(join(directory, 'index.js'), generated);

    loadCompilerFromWasmFile(directory);
    const rewritten = readFileSync(join(directory, 'index.js'), 'utf8');
    expect(rewritten).not.toContain(base64Require);
    expect(rewritten).toContain("readFileSync(require('node:path').join(__dirname, 'query_compiler_fast_bg.wasm'))");
    expect(rewritten).toContain('return new WebAssembly.Module(queryCompilerWasmFileBytes)');
    loadCompilerFromWasmFile(directory);
    expect(readFileSync(join(directory, 'index.js'), 'utf8')).toBe(rewritten);

    writeFileSync(join(directory, 'index.js'), generated.replace("Buffer.from(wasm, 'base64')", 'decode(wasm)'));
    expect(() => loadCompilerFromWasmFile(directory)).toThrow(/not loaded as this script expects/);
  });
});
