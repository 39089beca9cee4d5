/**
 * The GMP commands of one OpenVAS run, in the order of ../shared/reference/engines.md section 2:
 * the scan config, port list and scanner found by name (or taken as given when a UUID), a target
 * and a task of the run's own, the task started and polled, its report read, and both removed.
 */
import { randomUUID } from 'node:crypto';
import { EngineError } from '../engine.js';
import { child, childrenNamed, childText, type XmlNode } from '../importers/safe-xml-reader.js';
import type { GmpConnection } from './gmp-connection.js';
import { gmpCommand } from './gmp-xml.js';

/** The scanner every gvmd installs (`OpenVAS Default`, type 2). */
export const OPENVAS_SCANNER_NAME = 'OpenVAS Default';
/** gvmd's XML report format (`src/manage_report_formats.h`). */
const XML_REPORT_FORMAT = 'a994b278-1f62-11e1-96ac-406186ea4fc5';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the run created in gvmd, for the cleanup. */
export interface Created {
  targetId?: string;
  taskId?: string;
  reportId?: string;
  /** The task was started and has not reached an end yet. */
  running: boolean;
}

/** A task's state as `get_tasks` reports it. */
export interface TaskState {
  status: string;
  /** 0-100; gvmd's -1 (not running) reads as 0. */
  progress: number;
  reportId?: string;
}

/** The statuses after which a task does no more (`run_status_name`, gvmd src/manage.c). */
export const TERMINAL_STATUSES = new Set(['Done', 'Stopped', 'Interrupted']);

/** Quotes a value for a gvmd filter (`name="Full and fast"`). */
function filterValue(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/**
 * The id of the resource named `wanted` (its UUID as given, or found by exact name). Missing is a
 * `config` error naming the setting to change.
 */
async function findByName(conn: GmpConnection, kind: { command: string; element: string; what: string; setting: string; extra?: Record<string, string> }, wanted: string): Promise<string> {
  if (UUID.test(wanted)) return wanted;
  const reply = await conn.request(gmpCommand(kind.command, { ...kind.extra, filter: `name=${filterValue(wanted)} rows=-1` }));
  const found = childrenNamed(reply, kind.element).find((node) => childText(node, 'name') === wanted);
  const id = found?.attrs.id;
  if (!id) throw new EngineError('config', `gvmd at ${conn.label} has no ${kind.what} named "${wanted}"${kind.setting ? `: set ${kind.setting} to one it has (a name or a UUID)` : ''}.`);
  return id;
}

/** The scan config, port list and scanner of the run. */
export async function lookUpResources(conn: GmpConnection, names: { scanConfig: string; portList: string }) {
  const config = await findByName(conn, { command: 'get_configs', element: 'config', what: 'scan config', setting: 'RAMPART_GVMD_SCAN_CONFIG', extra: { usage_type: 'scan' } }, names.scanConfig);
  const portList = await findByName(conn, { command: 'get_port_lists', element: 'port_list', what: 'port list', setting: 'RAMPART_GVMD_PORT_LIST' }, names.portList);
  const scanner = await findByName(conn, { command: 'get_scanners', element: 'scanner', what: 'scanner', setting: '' }, OPENVAS_SCANNER_NAME);
  return { config, portList, scanner };
}

function createdId(reply: XmlNode, command: string): string {
  const id = reply.attrs.id;
  if (!id) throw new EngineError('internal', `gvmd answered ${command} without the new resource's id.`);
  return id;
}

/** Creates the run's target and task (named `rampart-<uuid>`, so that concurrent runs never collide). */
export async function createTask(conn: GmpConnection, hosts: string, ids: { config: string; portList: string; scanner: string }, created: Created): Promise<void> {
  const name = `rampart-${randomUUID()}`;
  const target = await conn.request(
    gmpCommand('create_target', {}, [
      { name: 'name', content: name },
      { name: 'comment', content: 'Made by Rampart for one run; removed when the run ends.' },
      { name: 'hosts', content: hosts },
      { name: 'port_list', attrs: { id: ids.portList } },
    ]),
  );
  created.targetId = createdId(target, 'create_target');
  const task = await conn.request(
    gmpCommand('create_task', {}, [
      { name: 'name', content: name },
      { name: 'comment', content: 'Made by Rampart for one run; removed when the run ends.' },
      { name: 'usage_type', content: 'scan' },
      { name: 'config', attrs: { id: ids.config } },
      { name: 'target', attrs: { id: created.targetId } },
      { name: 'scanner', attrs: { id: ids.scanner } },
    ]),
  );
  created.taskId = createdId(task, 'create_task');
}

/** Starts the task (gvmd answers 202 with the new report's id; its documentation shows 200). */
export async function startTask(conn: GmpConnection, created: Created): Promise<void> {
  const reply = await conn.request(gmpCommand('start_task', { task_id: created.taskId! }));
  created.running = true;
  const reportId = childText(reply, 'report_id');
  if (reportId) created.reportId = reportId;
}

/** The task's status, progress and latest report. */
export async function taskState(conn: GmpConnection, taskId: string): Promise<TaskState> {
  const reply = await conn.request(gmpCommand('get_tasks', { task_id: taskId }));
  const task = childrenNamed(reply, 'task').find((node) => node.attrs.id === taskId);
  if (!task) throw new EngineError('internal', `gvmd's get_tasks answer does not hold the run's task ${taskId} (was it deleted outside Rampart?).`);
  const progress = Number(childText(task, 'progress'));
  const reportId = child(child(task, 'current_report'), 'report')?.attrs.id ?? child(child(task, 'last_report'), 'report')?.attrs.id;
  return {
    status: childText(task, 'status'),
    progress: Number.isFinite(progress) ? Math.max(0, Math.min(100, Math.floor(progress))) : 0,
    ...(reportId ? { reportId } : {}),
  };
}

/**
 * The report with every result and its details. `min_qod=0`: Rampart keeps each result's quality
 * of detection and hides low ones in its own reports (RAMPART_MIN_QOD), so gvmd filters nothing.
 */
export function reportCommand(reportId: string) {
  return gmpCommand('get_reports', {
    report_id: reportId,
    format_id: XML_REPORT_FORMAT,
    filter: 'apply_overrides=0 min_qod=0 rows=-1 first=1 levels=chmlg',
    details: '1',
    ignore_pagination: '1',
  });
}
