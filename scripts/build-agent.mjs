// Bundles the local agent (src/agent/main.ts) into one CommonJS file, dist/agent/agent.cjs, that
// runs with `node agent.js` on a machine without node_modules. Run by `npm run build`. The package
// version is baked in (the bundle has no package.json to read), and the build fails if a server-side
// package (fastify, kysely, pg, pino) slips in, as that would mean the agent imports the service.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const outfile = path.join(root, 'dist/agent/agent.cjs');

const result = await build({
  entryPoints: [path.join(root, 'src/agent/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // `chmod +x agent.js && ./agent.js` works too; the download keeps this line first.
  banner: { js: '#!/usr/bin/env node' },
  define: { RAMPART_AGENT_VERSION: JSON.stringify(version) },
  metafile: true,
  logLevel: 'warning',
});

const inputs = Object.keys(result.metafile.inputs);
const forbidden = inputs.filter((input) => /node_modules\/(fastify|@fastify|kysely|pg|pg-[a-z-]+|@electric-sql|pino)\//.test(input));
if (forbidden.length > 0) {
  console.error(`The agent bundle pulled in server-side packages: ${forbidden.join(', ')}`);
  process.exit(1);
}
const bytes = result.metafile.outputs[path.relative(process.cwd(), outfile)]?.bytes ?? Object.values(result.metafile.outputs)[0].bytes;
console.log(`agent bundle: ${path.relative(root, outfile)}, ${(bytes / 1024).toFixed(0)} KiB from ${inputs.length} modules`);
