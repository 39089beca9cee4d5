/**
 * The replies of the fake gvmd (fake-gvmd.ts), taken from the official protocol documentation:
 * the `<example>` blocks of gvmd's `src/schema_formats/XML/GMP.xml.in`, as kept in
 * ../shared/reference/gmp-doc-examples.xml.txt, each found by its `<summary>`; what the
 * documentation lacks comes from ../shared/reference/engines.md section 2 (named where used); the
 * report is a real gvmd report of ../shared/third_party/scan-samples/openvas (see its SOURCE.md).
 * Only ids, names and states are substituted, so the client reads the documented shapes.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SHARED_DIR } from './shared.js';

const EXAMPLES_FILE = path.join(SHARED_DIR, 'reference', 'gmp-doc-examples.xml.txt');
const REPORTS_DIR = path.join(SHARED_DIR, 'third_party', 'scan-samples', 'openvas');

/** Why the GMP tests skip, or false when the reference material is present. */
export const GMP_SKIP: string | false =
  existsSync(EXAMPLES_FILE) && existsSync(REPORTS_DIR) ? false : `GMP reference material absent (${EXAMPLES_FILE}, ${REPORTS_DIR}); set RAMPART_SHARED_DIR`;

let examples: Map<string, string> | undefined;

/** The `<response>` of the GMP.xml.in example with this summary. */
export function example(summary: string): string {
  if (!examples) {
    examples = new Map();
    const text = readFileSync(EXAMPLES_FILE, 'utf8');
    for (const block of text.split('<example>').slice(1)) {
      const name = /<summary>([\s\S]*?)<\/summary>/.exec(block)?.[1]?.trim();
      const response = /<response>([\s\S]*?)<\/response>/.exec(block)?.[1]?.trim();
      if (name && response) examples.set(name, response);
    }
  }
  const found = examples.get(summary);
  if (!found) throw new Error(`No GMP.xml.in example "${summary}" in ${EXAMPLES_FILE}`);
  return found;
}

/** Sets the `id` attribute of the root element. */
const withRootId = (xml: string, id: string) => xml.replace(/\bid="[^"]*"/, `id="${id}"`);

/** The feed ids gvmd installs (engines.md section 2, steps 3-5). */
export const FEED = {
  fullAndFast: 'daba56c8-73ec-11df-a475-002264764cea',
  allIanaTcp: '33d0cd82-57c6-11e1-8ed1-406186ea4fc5',
  openvasScanner: '08b69003-5fc2-4037-a479-93b440211c73',
};

export const replies = {
  /** GMP.xml.in "Get the version" (version substituted). */
  version: (version: string) => example('Get the version').replace('<version>1.0</version>', `<version>${version}</version>`),
  /** GMP.xml.in "Authenticate with a good password" / "... with a bad password". */
  authenticated: () => example('Authenticate with a good password'),
  authenticationFailed: () => example('Authenticate with a bad password'),
  /** GMP.xml.in "Get one or many configs": it holds "Full and fast"; another name finds nothing. */
  configs: (found: boolean) => (found ? example('Get one or many configs') : example('Get one or many configs').replace(/<config [\s\S]*<\/config>\s*<truncated>...<\/truncated>/, '')),
  /** GMP.xml.in "Export a port list", renamed to the feed's "All IANA assigned TCP" with its id (engines.md step 5). */
  portLists: (found: boolean) => {
    const xml = example('Export a port list').replace('<name>All TCP</name>', '<name>All IANA assigned TCP</name>').replace('b993b6f5-f9fb-4e6e-9c94-dd46c00e058d', FEED.allIanaTcp);
    return found ? xml : xml.replace(/<port_list [\s\S]*<\/port_list>/, '');
  },
  /** GMP.xml.in "Get full details of a single scanner", renamed to "OpenVAS Default" with its id (engines.md step 4). */
  scanners: () => example('Get full details of a single scanner').replace('<name>Default Scanner</name>', '<name>OpenVAS Default</name>').replace('c33864a9-d3fd-44b3-8717-972bfb01dfcf', FEED.openvasScanner),
  /** GMP.xml.in "Create a target, giving a host list" (new id). */
  targetCreated: (id: string) => withRootId(example('Create a target, giving a host list'), id),
  /** GMP.xml.in "Create a task, giving a host list" (new id). */
  taskCreated: (id: string) => withRootId(example('Create a task, giving a host list'), id),
  /** GMP.xml.in "Start a task", with the status gvmd's code really sends: 202 "OK, request submitted" (engines.md step 8). */
  taskStarted: (reportId: string) =>
    example('Start a task')
      .replace('status="200" status_text="OK"', 'status="202" status_text="OK, request submitted"')
      .replace(/<report_id>[^<]*<\/report_id>/, `<report_id>${reportId}</report_id>`),
  /** GMP.xml.in "Get one or many tasks": the first task becomes the run's, with its status, progress and report. */
  tasks: (task: { id: string; status: string; progress: number; reportId: string }) =>
    example('Get one or many tasks')
      .replace('254cd3ef-bbe1-4d58-859d-21b8d0c046c6', task.id)
      .replace('<status>Done</status>', `<status>${task.status}</status>`)
      .replace('<progress>-1</progress>', `<progress>${task.progress}</progress>`)
      .replace('f0fdf522-276d-4893-9274-fb8699dc2270', task.reportId),
  /** engines.md step 11: stop_task answers 200 "OK" (GMP.xml.in has no stop_task example). */
  taskStopped: () => '<stop_task_response status="200" status_text="OK"/>',
  /** GMP.xml.in "Delete a task" / "Delete a target". */
  taskDeleted: () => example('Delete a task'),
  targetDeleted: () => example('Delete a target'),
  /**
   * A real gvmd report (scan-samples/openvas), wrapped as get_reports answers it (engines.md
   * "Fixtures"); with `address`, its host 10.99.99.99 becomes that address everywhere.
   */
  report: (file: string, address?: string) => {
    const xml = readFileSync(path.join(REPORTS_DIR, file), 'utf8').replace(/^<\?xml[^>]*\?>/, '');
    return `<get_reports_response status="200" status_text="OK">${address ? xml.replaceAll('10.99.99.99', address) : xml}</get_reports_response>`;
  },
  /** gvmd's answer to anything but get_version before authenticate (engines.md "Framing", gmp.c ~l.5026). */
  onlyGetVersion: () => '<gmp_response status="400" status_text="Only command GET_VERSION is allowed before AUTHENTICATE"/>',
  /** Any status for a command: `<{command}_response status text/>`, the shape of every GMP answer. */
  status: (command: string, code: number, text: string) => `<${command}_response status="${code}" status_text="${text}"/>`,
};
