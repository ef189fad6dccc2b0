/** Builds the browser client into dist/client (client/build.mjs). */
export function buildClient(options?: { quiet?: boolean }): Promise<{ script: string; style: string; scriptBytes: number; scriptGzipBytes: number }>;
