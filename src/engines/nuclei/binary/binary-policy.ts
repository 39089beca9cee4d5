/**
 * The deployment's template policy, held for the nuclei binary. The built-in engine's rules
 * (selection.ts): `dos` never; `intrusive`, `fuzz`, `bruteforce`, `default-login` only when the
 * scan names the tag or the template; `unsafe: true` only with RAMPART_NUCLEI_UNSAFE; code,
 * headless, javascript and file never; nothing outside the default set.
 *
 * nuclei's own filters cannot say this: `-tags dos` lifts `-etags dos`, `-id X` lifts `-eid X`,
 * `-ept` sees only a template's first protocol, and nothing leaves out `unsafe: true`. So with a
 * templates directory the driver loads the templates, judges each with the built-in selection
 * (`selectionVerdict`, the same options) and hands nuclei exactly the kept files (`-t <list>`):
 * a file we could not parse is not among them. Without one (nuclei's own installed templates) only
 * nuclei's flags apply: see binary-options.ts.
 */
import path from 'node:path';
import { EngineError } from '../../engine.js';
import type { AppliedNucleiOptions } from '../options.js';
import { selectionVerdict } from '../selection.js';
import { loadTemplatesCached } from '../templates/load-templates.js';
import type { BinaryOptions } from './binary-options.js';

/** The templates of a binary run: the absolute paths nuclei may load, and what was left out. */
export interface BinaryTemplateList {
  paths: string[];
  /** Template files in the directory (parsed or not). */
  total: number;
}

/** The scan's selection as the built-in engine reads it (the option names are the same). */
function selectionOf(options: BinaryOptions): AppliedNucleiOptions['selection'] {
  return {
    tags: options.tags,
    exclude_tags: options.exclude_tags,
    severities: options.severities as AppliedNucleiOptions['selection']['severities'],
    template_ids: options.template_ids,
    exclude_template_ids: options.exclude_template_ids,
  };
}

/** The template files of the directory the policy and the scan's options keep. */
export async function listPermittedTemplates(templatesDir: string, options: BinaryOptions, allowUnsafe: boolean): Promise<BinaryTemplateList> {
  let loaded;
  try {
    loaded = await loadTemplatesCached(templatesDir);
  } catch (error) {
    throw new EngineError('config', `The nuclei templates directory ${templatesDir} cannot be read (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
  }
  const judge = selectionVerdict(selectionOf(options), { allowUnsafe });
  const paths = loaded.templates.filter((t) => judge(t) === 'kept').map((t) => path.join(loaded.directory, ...t.path.split('/')));
  return { paths, total: loaded.templates.length + loaded.failures.length };
}
