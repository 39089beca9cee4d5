/**
 * One vulnerability: every field of the resource, its description, solution, evidence and
 * references, and the triage buttons. External links open without a referrer or opener.
 */
import type { ComponentChildren } from 'preact';
import type { User } from '../../db/schema.js';
import type { VulnerabilityResource } from '../../findings/findings.schema.js';
import { QOD } from '../../shared/finding.js';
import { CsrfField, PageHeader, ThreatBadge, Time } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { locationOf, triageActions } from './vulnerabilities.table.views.js';

/** What a quality of detection means, on the OpenVAS scale the findings use. */
export function qodMeaning(qod: number, minQod: number): string {
  const shown = qod >= minQod ? '' : ` Below this deployment's threshold (${minQod}): reports and the export leave it out unless asked.`;
  if (qod >= QOD.confirmed) return `Confirmed: a test proved it.${shown}`;
  if (qod >= QOD.version) return `Likely: inferred from the product's upstream version.${shown}`;
  if (qod >= 70) return `Probable: the tool is fairly sure.${shown}`;
  if (qod > QOD.packaged) return `Uncertain: the tool is not sure.${shown}`;
  return `Unsure: inferred from a version a distribution may have patched in place (the fix may be backported).${shown}`;
}

/** An external link (http or https only; anything else is shown as text). */
function External(props: { href: string; children?: ComponentChildren }) {
  if (!/^https?:\/\//i.test(props.href)) return <span>{props.children ?? props.href}</span>;
  return (
    <a href={props.href} rel="noreferrer noopener" target="_blank">
      {props.children ?? props.href}
      <span class="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

function Row(props: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

const none = <span class="muted">—</span>;

function cweHref(cwe: string): string | undefined {
  const n = /^CWE-(\d+)$/i.exec(cwe.trim())?.[1];
  return n ? `https://cwe.mitre.org/data/definitions/${n}.html` : undefined;
}

/** The triage buttons of one finding, each its own small form, returning to `back`. */
export function TriageForms(props: { v: VulnerabilityResource; csrfToken: string; back: string }) {
  return (
    <div class="actions">
      {triageActions(props.v.status).map((action) => (
        <form method="post" action={`/vulnerabilities/${props.v.id}/${action.path}`} class="inline">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="back" value={props.back} />
          <button type="submit" class={action.path === 'undo' ? 'secondary' : undefined}>
            {action.label === 'Undo' ? 'Undo (reset to unresolved)' : action.label === 'Accept' ? 'Accept the risk' : 'Mark false positive'}
          </button>
        </form>
      ))}
    </div>
  );
}

export interface VulnerabilityDetailProps {
  user: User;
  csrfToken: string;
  flash: Flash | null;
  v: VulnerabilityResource;
  minQod: number;
}

/** GET /vulnerabilities/:id */
export function VulnerabilityDetailPage(props: VulnerabilityDetailProps) {
  const { v } = props;
  const cwe = v.cwe ? cweHref(v.cwe) : undefined;
  return (
    <Layout title={v.name} user={props.user} csrfToken={props.csrfToken} section="vulnerabilities" flash={props.flash}>
      <p>
        <a href="/vulnerabilities">← All vulnerabilities</a>
      </p>
      <PageHeader title={v.name} subtitle={<><ThreatBadge threat={v.threat} /> {locationOf(v)} · {v.status}</>}>
        <TriageForms v={v} csrfToken={props.csrfToken} back={`/vulnerabilities/${v.id}`} />
      </PageHeader>
      <div class="grid detail-grid">
        <section class="card" aria-labelledby="h-risk">
          <h2 id="h-risk">Risk</h2>
          <dl class="details">
            <Row label="Threat"><ThreatBadge threat={v.threat} /></Row>
            <Row label="CVSS score">{v.cvss_base === null ? none : v.cvss_base.toFixed(1)}</Row>
            <Row label="CVSS vector">{v.cvss_vector ? <code>{v.cvss_vector}</code> : none}</Row>
            <Row label="CVE">
              {v.cve.length === 0
                ? none
                : v.cve.map((id, i) => (
                    <>
                      {i > 0 && ', '}
                      <External href={`https://nvd.nist.gov/vuln/detail/${encodeURIComponent(id)}`}>{id}</External>
                    </>
                  ))}
            </Row>
            <Row label="CWE">{v.cwe ? cwe ? <External href={cwe}>{v.cwe}</External> : v.cwe : none}</Row>
            <Row label="Known exploited (KEV)">{v.kev ? 'Yes: in CISA\'s Known Exploited Vulnerabilities catalog' : 'No'}</Row>
            <Row label="EPSS">{v.epss === null ? none : `${(v.epss * 100).toFixed(2)}% chance of exploitation in the next 30 days`}</Row>
            <Row label="Quality of detection">
              {v.qod} — {qodMeaning(v.qod, props.minQod)}
            </Row>
            <Row label="Status">{v.status}</Row>
            <Row label="Latest run">{v.lifecycle ? v.lifecycle.replace('_', ' ') : none}</Row>
          </dl>
        </section>
        <section class="card" aria-labelledby="h-where">
          <h2 id="h-where">Where</h2>
          <dl class="details">
            <Row label="Host">{v.hostname || none}</Row>
            <Row label="IP address">{v.host_ip || none}</Row>
            <Row label="Port">{v.port === null ? none : v.port}</Row>
            <Row label="Protocol">{v.protocol ?? none}</Row>
            <Row label="Service">{v.service ?? none}</Row>
            <Row label="URL">{v.url ? <span class="break">{v.url}</span> : none}</Row>
            <Row label="Method">{v.method ?? none}</Row>
            <Row label="Parameter">{v.parameter ?? none}</Row>
            <Row label="Scan">
              <a href={`/scans/${v.scan_uuid}`}>{v.scan_name}</a> ({v.scan_type}, run {v.run_index})
            </Row>
            <Row label="Engines">{v.engines.join(', ') || v.engine}</Row>
            <Row label="Rule">
              <code>{v.rule_id}</code>
            </Row>
            <Row label="First seen"><Time value={v.first_seen_at} /></Row>
            <Row label="Last seen"><Time value={v.last_seen_at} /></Row>
            {v.target_id !== null && <Row label="Target"><a href={`/targets/${v.target_id}`}>{v.hostname || v.host_ip}</a></Row>}
          </dl>
        </section>
      </div>
      <section class="card" aria-labelledby="h-description">
        <h2 id="h-description">Description</h2>
        <p class="prose">{v.description || <span class="muted">No description.</span>}</p>
      </section>
      <section class="card" aria-labelledby="h-solution">
        <h2 id="h-solution">Solution</h2>
        <p class="prose">{v.solution || <span class="muted">No solution given.</span>}</p>
      </section>
      <section class="card" aria-labelledby="h-evidence">
        <h2 id="h-evidence">Evidence</h2>
        {v.evidence ? (
          <pre class="evidence" tabIndex={0} aria-label="Evidence">
            {v.evidence}
          </pre>
        ) : (
          <p class="muted">No evidence recorded.</p>
        )}
      </section>
      <section class="card" aria-labelledby="h-references">
        <h2 id="h-references">References</h2>
        {v.references.length === 0 ? (
          <p class="muted">No references.</p>
        ) : (
          <ul class="references">
            {v.references.map((ref) => (
              <li>
                <External href={ref} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </Layout>
  );
}
