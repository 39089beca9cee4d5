/**
 * GET /scans: the account's scans with their status and progress. While any run is queued or
 * running, the table is a live region (data-live): the script re-fetches the page and swaps it,
 * and the attribute is dropped once nothing is moving, which stops the refreshing.
 */
import type { User } from '../../db/schema.js';
import type { ScanOverview } from '../../scans/scans.service.js';
import { EmptyState, PageHeader, Time } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';

/** How often a live region refreshes while a run moves (ms). */
export const LIVE_EVERY_MS = '2000';

/** Whether a progress text is a run that moves by itself (not one waiting for uploaded results). */
export function isMoving(progress: string | null | undefined): boolean {
  return progress === 'Queued' || (progress ?? '').startsWith('Running');
}

/** A run's progress as text and, while running, a progress bar (the text is always there). */
export function Progress(props: { progress: string | null | undefined; idle?: string }) {
  const progress = props.progress ?? props.idle ?? 'Not started';
  const percent = /^Running (\d+)%$/.exec(progress)?.[1];
  const kind = progress === 'Completed' ? 'completed' : progress === 'Failed' ? 'failed' : isMoving(progress) ? 'running' : 'idle';
  return (
    <div class="progress">
      <span class={`status-${kind}`}>{progress}</span>
      {percent !== undefined && <progress max={100} value={Number(percent)} aria-label={`Progress ${percent}%`} />}
    </div>
  );
}

export function ScansListPage(props: { user: User; csrfToken: string; flash: Flash | null; scans: ScanOverview[] }) {
  const live = props.scans.some((s) => isMoving(s.scan.current_progress));
  return (
    <Layout title="Scans" user={props.user} csrfToken={props.csrfToken} section="scans" flash={props.flash}>
      <PageHeader title="Scans" subtitle="What Rampart scans for you, and when.">
        {props.scans.length > 0 && (
          <a class="button" href="/scans/new">
            New scan
          </a>
        )}
      </PageHeader>
      {props.scans.length === 0 ? (
        <EmptyState title="No scans yet">
          <p>Create a scan to find what is exposed on your hosts and web applications.</p>
          <a class="button" href="/scans/new">
            New scan
          </a>
        </EmptyState>
      ) : (
        <div id="scans-table" class="table-wrap" data-live={live ? LIVE_EVERY_MS : undefined}>
          <table>
            <caption class="visually-hidden">Your scans{live ? ' (updating while runs are in progress)' : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Targets</th>
                <th scope="col">Frequency</th>
                <th scope="col">Status</th>
                <th scope="col">Last run</th>
                <th scope="col">Next run</th>
              </tr>
            </thead>
            <tbody>
              {props.scans.map(({ scan, lastRunAt }) => (
                <tr>
                  <td>
                    <a href={`/scans/${scan.uuid}`}>{scan.scan_name}</a>
                  </td>
                  <td>{scan.scan_type}</td>
                  <td class="targets-cell">{scan.scan_target}</td>
                  <td>{scan.scan_frequency}</td>
                  <td>
                    <Progress progress={scan.current_progress} idle={scan.next_run_at ? 'Scheduled' : 'Not started'} />
                  </td>
                  <td>
                    <Time value={lastRunAt} empty="Never" />
                  </td>
                  <td>
                    <Time value={scan.next_run_at} empty={scan.scan_frequency === 'Unmanaged' ? 'On upload' : 'None'} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
