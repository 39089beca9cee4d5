/**
 * GET /scans/:uuid: the scan with every field, its schedule, and its runs (progress, outcome,
 * lifecycle counts, errors and notes, reports in the five formats). The runs are a live region
 * while a run is queued or running. An Unmanaged scan offers the results upload instead.
 */
import type { User } from '../../db/schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { REPORT_FORMATS } from '../../shared/report-formats.js';
import type { RunResource, ScanResource } from '../../scans/scans.schema.js';
import { Alert, EmptyState, PageHeader, Time } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { isMoving, LIVE_EVERY_MS, Progress } from './scans-list.views.js';
import { ResultsUpload } from './scan-results.views.js';

export interface ScanPageProps {
  user: User;
  csrfToken: string;
  flash: Flash | null;
  scan: ScanResource;
  runs: RunResource[];
  schedule: { upcoming: { at: string; local: string }[] };
  baseUrl: string;
  /** Days a downloaded agent's credential lasts (RAMPART_AGENT_CREDENTIAL_DAYS). */
  agentCredentialDays: number;
  /** Errors of a results upload that came back. */
  uploadErrors?: FieldErrors | undefined;
}

export function ScanPage(props: ScanPageProps) {
  const { scan, runs } = props;
  const unmanaged = scan.scan_frequency === 'Unmanaged';
  return (
    <Layout title={scan.scan_name} user={props.user} csrfToken={props.csrfToken} section="scans" flash={props.flash}>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/scans">Scans</a> / <span aria-current="page">{scan.scan_name}</span>
      </nav>
      <PageHeader title={scan.scan_name} subtitle={`${scan.scan_type} scan · ${scan.scan_frequency}`}>
        <form method="post" action={`/scans/${scan.uuid}/rerun`} class="inline">
          <input type="hidden" name="_csrf" value={props.csrfToken} />
          <button type="submit">{unmanaged ? 'Queue a run for the agent' : 'Run now'}</button>
        </form>
        <a class="button secondary" href={`/scans/${scan.uuid}/edit`}>
          Edit
        </a>
        <a class="button danger" href={`/scans/${scan.uuid}/delete`}>
          Delete
        </a>
      </PageHeader>
      <div class="scan-layout">
        <section class="card" aria-labelledby="scan-details">
          <h2 id="scan-details">Details</h2>
          <ScanDetails scan={scan} />
        </section>
        <section class="card" aria-labelledby="scan-schedule">
          <h2 id="scan-schedule">Schedule</h2>
          {unmanaged && props.schedule.upcoming.length === 0 ? (
            <p>Unmanaged: this scan runs when your local agent takes its run, or when results from your own network are uploaded.</p>
          ) : props.schedule.upcoming.length === 0 ? (
            <p>No run is scheduled. Use “Run now” to run it again.</p>
          ) : (
            <ol class="upcoming">
              {props.schedule.upcoming.map((run) => (
                <li>
                  <span title={`${run.at} (UTC)`}>{run.local}</span>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
      {unmanaged && <ResultsUpload scan={scan} csrfToken={props.csrfToken} baseUrl={props.baseUrl} credentialDays={props.agentCredentialDays} errors={props.uploadErrors} />}
      <Runs scan={scan} runs={runs} />
    </Layout>
  );
}

function ScanDetails(props: { scan: ScanResource }) {
  const { scan } = props;
  const options = Object.keys(scan.engine_options).length > 0 ? JSON.stringify(scan.engine_options) : 'Defaults';
  return (
    <dl class="details">
      <dt>Type</dt>
      <dd>{scan.scan_type}</dd>
      <dt>Targets</dt>
      <dd class="mono">{scan.scan_target}</dd>
      <dt>Frequency</dt>
      <dd>{scan.agent_frequency ? `Unmanaged, agent runs ${scan.agent_frequency}` : scan.scan_frequency}</dd>
      <dt>Start</dt>
      <dd>{[scan.scan_start_date, scan.scan_start_time].filter(Boolean).join(' ') || 'When created'}</dd>
      <dt>Time zone</dt>
      <dd>{scan.scan_time_zone}</dd>
      <dt>Next run</dt>
      <dd>
        <Time value={scan.next_run_at} empty="None scheduled" />
      </dd>
      <dt>Report email</dt>
      <dd>{scan.scan_email}</dd>
      {scan.scan_type === 'ZAP' && (
        <>
          <dt>Authenticated</dt>
          <dd>{scan.zap_authenticated ? `Yes (login script ${scan.zap_login_script ? 'stored' : 'missing'})` : 'No'}</dd>
        </>
      )}
      <dt>Attack narrative</dt>
      <dd>{scan.include_attack_narrative ? 'Yes' : 'No'}</dd>
      <dt>Engine options</dt>
      <dd class="mono">{options}</dd>
      <dt>Created</dt>
      <dd>
        <Time value={scan.created_at} />
      </dd>
      <dt>UUID</dt>
      <dd class="mono">{scan.uuid}</dd>
    </dl>
  );
}

/** The runs, newest first; a live region while one moves. */
export function Runs(props: { scan: ScanResource; runs: RunResource[] }) {
  const live = props.runs.some((run) => run.status === 'current' && isMoving(run.scan_progress));
  const runs = [...props.runs].reverse();
  return (
    <section id="runs" aria-labelledby="runs-title" data-live={live ? LIVE_EVERY_MS : undefined} data-live-src={`/scans/${props.scan.uuid}`}>
      <h2 id="runs-title">Runs</h2>
      {runs.length === 0 ? (
        <EmptyState title="No runs yet">
          <p>{props.scan.scan_frequency === 'Unmanaged' ? 'Run the agent or upload results above to record the first run.' : props.scan.next_run_at ? 'The first run starts at the scheduled time.' : 'Use “Run now” to start one.'}</p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Runs of {props.scan.scan_name}{live ? ' (updating)' : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Completed</th>
                <th scope="col" class="num">Findings</th>
                <th scope="col">New / still open / fixed / regressed</th>
                <th scope="col">Reports</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <RunRow scan={props.scan} run={run} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function RunRow(props: { scan: ScanResource; run: RunResource }) {
  const { run, scan } = props;
  const lifecycle = run.lifecycle;
  return (
    <tr>
      <td>
        <strong>#{run.run_index}</strong>
        <div class="muted small">{run.trigger}</div>
      </td>
      <td>
        <Progress progress={run.scan_progress} />
        {run.outcome && run.outcome !== 'succeeded' && <div class={`status-${run.outcome}`}>Outcome: {run.outcome}</div>}
        {run.engine && (
          <div class="muted small">
            {run.engine} {run.engine_version ?? ''}
            {run.engine_detail ? ` (${run.engine_detail})` : ''}
          </div>
        )}
        {run.error && <Alert kind="error">{run.error}</Alert>}
        {run.notes.length > 0 && (
          <details>
            <summary>Notes ({run.notes.length})</summary>
            <ul>
              {run.notes.map((note) => (
                <li>{note}</li>
              ))}
            </ul>
          </details>
        )}
      </td>
      <td>
        <Time value={run.started_at} empty="Not yet" />
      </td>
      <td>
        <Time value={run.completed_at} empty="—" />
      </td>
      <td class="num">{run.findings_count}</td>
      <td>
        {run.status === 'completed' && run.outcome === 'succeeded' ? (
          <span class="lifecycle">
            {lifecycle.new} new · {lifecycle.still_open} still open · {lifecycle.fixed} fixed · {lifecycle.regressed} regressed
          </span>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        {run.available_formats.length === 0 ? (
          <span class="muted">When the run completes</span>
        ) : (
          <ul class="report-links" aria-label={`Reports of run ${run.run_index}`}>
            {REPORT_FORMATS.filter((f) => run.available_formats.includes(f)).map((format) => (
              <li>
                <a href={`/scans/${scan.uuid}/report.${format}?run_index=${run.run_index}`} download="">
                  {format.toUpperCase()}
                  <span class="visually-hidden"> report of run {run.run_index}</span>
                </a>
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}
