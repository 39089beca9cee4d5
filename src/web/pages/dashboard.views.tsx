/**
 * The dashboard home: open findings by threat, the newest findings, the known exploited ones, the
 * scans due next and the runs going now. Each box says what to do when it is empty, and says so
 * when it could not be read (the other boxes still show).
 */
import type { ComponentChildren } from 'preact';
import type { ThreatLevel } from '../../db/schema.js';
import type { FindingSummaryRow, KnownExploitedFindings } from '../../findings/findings-overview.service.js';
import type { CurrentRun, DueScan } from '../../scans/scans-overview.service.js';
import { AWAITING_AGENT } from '../../scans/runs.service.js';
import { Alert, EmptyState, PageHeader, ThreatBadge, Time } from '../components.js';
import { Layout } from '../layout.js';
import type { Frame } from './webhooks.views.js';

/** A box's content, or the fact that it could not be read. */
export type Box<T> = { ok: true; value: T } | { ok: false };

/** Everything the dashboard shows. */
export interface DashboardData {
  threats: Box<Record<ThreatLevel, number>>;
  newest: Box<FindingSummaryRow[]>;
  kev: Box<KnownExploitedFindings>;
  due: Box<DueScan[]>;
  running: Box<CurrentRun[]>;
}

/** How often the runs box refreshes while a run is queued or running (ms). */
const LIVE_EVERY_MS = 3000;

const THREATS: ThreatLevel[] = ['Critical', 'High', 'Medium', 'Low', 'Informational'];

function unresolvedLink(threat: ThreatLevel): string {
  return `/vulnerabilities?${new URLSearchParams({ severity: threat, status: 'Unresolved' }).toString()}`;
}

function Panel(props: { id: string; title: string; children: ComponentChildren; live?: number | undefined; wide?: boolean }) {
  return (
    <section id={props.id} class={`card dashboard-box${props.wide ? ' wide' : ''}`} aria-labelledby={`${props.id}-title`} data-live={props.live ? String(props.live) : undefined}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
    </section>
  );
}

function Unavailable() {
  return <Alert kind="error">This box could not be loaded. Reload the page to try again; if it keeps failing, the error is in the server's log.</Alert>;
}

function ThreatCounts(props: { counts: Record<ThreatLevel, number> }) {
  const total = THREATS.reduce((sum, threat) => sum + props.counts[threat], 0);
  if (total === 0) {
    return (
      <EmptyState title="No open findings">
        <p>
          Findings appear here when a scan run ends. <a href="/scans/new">Create a scan</a>, or upload a scanner's results to an Unmanaged scan.
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <p class="hint">
        {total} Unresolved {total === 1 ? 'finding' : 'findings'}. Select a level to see them.
      </p>
      <ul class="threat-counts">
        {THREATS.map((threat) => (
          <li>
            <a class={`stat threat-count count-${threat.toLowerCase()}`} href={unresolvedLink(threat)}>
              <span class="value">{props.counts[threat]}</span>
              <ThreatBadge threat={threat} />
              <span class="visually-hidden"> Unresolved findings</span>
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

function location(finding: FindingSummaryRow): string {
  const host = finding.hostname || finding.host_ip;
  return finding.port !== null ? `${host}:${finding.port}${finding.protocol ? `/${finding.protocol}` : ''}` : host;
}

function FindingList(props: { findings: FindingSummaryRow[]; label: string; showCves?: boolean }) {
  return (
    <ul class="plain-list finding-list" aria-label={props.label}>
      {props.findings.map((finding) => (
        <li>
          <ThreatBadge threat={finding.threat} /> <a href={`/vulnerabilities/${finding.id}`}>{finding.name}</a>
          <span class="hint">
            <span class="mono">{location(finding)}</span>
            {props.showCves && finding.cve.length > 0 && ` · ${finding.cve.join(', ')}`} · first seen <Time value={finding.created_at} />
          </span>
        </li>
      ))}
    </ul>
  );
}

function Newest(props: { findings: FindingSummaryRow[] }) {
  if (props.findings.length === 0) {
    return (
      <EmptyState title="Nothing new to look at">
        <p>
          The newest Unresolved findings show here. See <a href="/vulnerabilities">all vulnerabilities</a> or <a href="/scans">your scans</a>.
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <FindingList findings={props.findings} label="Newest Unresolved findings" />
      <p class="more">
        <a href="/vulnerabilities?status=Unresolved&sort=created_at&direction=desc">All Unresolved findings, newest first</a>
      </p>
    </>
  );
}

function KnownExploited(props: { kev: KnownExploitedFindings }) {
  if (props.kev.catalog === 'absent') {
    return (
      <EmptyState title="No vulnerability database loaded">
        <p>
          Load the vulnerability database with <code>rampart vulndb sync</code> to see which of your findings CISA lists as exploited in the wild.
        </p>
      </EmptyState>
    );
  }
  if (props.kev.findings.length === 0) {
    return (
      <EmptyState title="No known exploited findings">
        <p>None of your Unresolved findings names a CVE in the CISA Known Exploited Vulnerabilities catalog.</p>
      </EmptyState>
    );
  }
  return (
    <>
      <p class="hint">Unresolved findings whose CVEs are in the CISA Known Exploited Vulnerabilities catalog: fix these first.</p>
      <FindingList findings={props.kev.findings} label="Known exploited findings" showCves />
      {props.kev.more && <p class="more">Only the newest {props.kev.findings.length} are shown.</p>}
    </>
  );
}

function DueNext(props: { scans: DueScan[] }) {
  if (props.scans.length === 0) {
    return (
      <EmptyState title="No scan scheduled">
        <p>
          Scans with a schedule show here with their next run. <a href="/scans/new">Schedule a scan</a>.
        </p>
      </EmptyState>
    );
  }
  return (
    <ul class="plain-list">
      {props.scans.map((scan) => (
        <li>
          <a href={`/scans/${scan.uuid}`}>{scan.scan_name}</a> <span class="muted">({scan.scan_type}, {scan.scan_frequency})</span>
          <span class="hint">
            Next run <Time value={scan.next_run_at} /> · {scan.scan_target}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Running(props: { runs: CurrentRun[] }) {
  if (props.runs.length === 0) {
    return (
      <EmptyState title="No run in progress">
        <p>
          Runs show here while they are queued or running. Start one from <a href="/scans">your scans</a>.
        </p>
      </EmptyState>
    );
  }
  return (
    <ul class="plain-list">
      {props.runs.map((run) => (
        <li>
          <a href={`/scans/${run.uuid}`}>{run.scan_name}</a> <span class="muted">run {run.run_index}</span>
          <div class="progress">
            <span>{run.progress}</span>
            {run.progress.startsWith('Running') && <progress max={100} value={run.progress_percent} aria-label={`${run.scan_name}: ${run.progress}`} />}
          </div>
        </li>
      ))}
    </ul>
  );
}

/** A box's body, or the error state when it could not be read. */
function boxed<T>(box: Box<T>, render: (value: T) => ComponentChildren): ComponentChildren {
  return box.ok ? render(box.value) : <Unavailable />;
}

/** GET /: the dashboard home. */
export function DashboardPage(props: { frame: Frame; data: DashboardData }) {
  const { data } = props;
  // Live while a run is queued or running; a run awaiting its agent may wait for days, so it does not keep the page polling.
  const live = data.running.ok && data.running.value.some((run) => run.progress !== AWAITING_AGENT) ? LIVE_EVERY_MS : undefined;
  return (
    <Layout title="Dashboard" {...props.frame} section="dashboard">
      <PageHeader title="Dashboard" subtitle="What needs attention across your scans.">
        <a class="button" href="/scans/new">
          New scan
        </a>
      </PageHeader>
      <Panel id="open-findings" title="Open findings by threat" wide>
        {boxed(data.threats, (counts) => (
          <ThreatCounts counts={counts} />
        ))}
      </Panel>
      <div class="dashboard-grid">
        <Panel id="newest-findings" title="Newest findings">
          {boxed(data.newest, (findings) => (
            <Newest findings={findings} />
          ))}
        </Panel>
        <Panel id="known-exploited" title="Known exploited (CISA KEV)">
          {boxed(data.kev, (kev) => (
            <KnownExploited kev={kev} />
          ))}
        </Panel>
        <Panel id="scans-due" title="Scans due next">
          {boxed(data.due, (scans) => (
            <DueNext scans={scans} />
          ))}
        </Panel>
        <Panel id="runs-in-progress" title="Runs in progress" live={live}>
          {boxed(data.running, (runs) => (
            <Running runs={runs} />
          ))}
        </Panel>
      </div>
    </Layout>
  );
}
