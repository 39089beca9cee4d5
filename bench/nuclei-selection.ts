/**
 * bench/nuclei-selection: what the nuclei engine would run of the shared corpus: the default set,
 * the templates it refuses, the ones the default tag exclusions leave out, the executable share
 * with every tag opted in, and what blocks the rest, with the engine's own supported features.
 *
 *   npm run bench:nuclei-selection
 *   npm run bench:nuclei-selection -- --dir /path/to/nuclei-templates
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NUCLEI_EXECUTORS } from '../src/engines/nuclei/executors.js';
import { SUPPORTED_FEATURES } from '../src/engines/nuclei/supported-features.js';
import { selectTemplates, type ProtocolFamily } from '../src/engines/nuclei/selection.js';
import { loadTemplates } from '../src/engines/nuclei/templates/load-templates.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const { values } = parseArgs({ options: { dir: { type: 'string', default: path.join(SHARED_DIR, 'third_party', 'nuclei-templates') } } });
const loaded = await loadTemplates(values.dir as string);
const settings = { allowUnsafe: false, supported: SUPPORTED_FEATURES, families: new Set(Object.keys(NUCLEI_EXECUTORS) as ProtocolFamily[]) };
const byDefault = selectTemplates(loaded.templates, {}, settings);
const everyTag = selectTemplates(loaded.templates, { template_ids: ['*'] }, settings);
const share = (n: number) => `${((100 * n) / byDefault.defaultSet).toFixed(1)}%`;
console.log(`templates loaded ${loaded.templates.length}, failures ${loaded.failures.length}, default set ${byDefault.defaultSet}`);
console.log(`refused (never-run protocols, unsafe) ${byDefault.refused}`);
console.log(`by default: left out by tags ${byDefault.filtered}, not executable ${byDefault.notExecutable}, run ${byDefault.selected.length} (${share(byDefault.selected.length)} of the default set)`);
console.log(`every tag opted in (dos still out): executable ${everyTag.selected.length} (${share(everyTag.selected.length)} of the default set)`);
console.log(`blockers: ${everyTag.blockers.slice(0, 12).map(([feature, n]) => `${feature} ${n}`).join(', ')}`);
