/**
 * The HTML report: one self-contained page (inline CSS and SVG, no script, no external resource,
 * a Content-Security-Policy that forbids loading anything) rendered from the run record.
 *
 * The page is streamed: the head, summary and tables come first, then each finding's article as
 * the record reads it, so a run of tens of thousands of findings never sits in memory as one text.
 * Findings arrive in report order (threat first), which lets us open a section per threat as the
 * threat changes instead of grouping them ourselves.
 */
import { Readable } from 'node:stream';
import type { Narrative, NarrativeClaim, ReportFinding, ReportRecord, ReportService, Threat } from './report.js';
import { engineLine, qualityLine, THREAT_ORDER, webLocation } from './report.js';
import { escapeHtml as esc, safeHref } from './html-escape.js';
import { HTML_STYLE, THREAT_COLORS } from './html-style.js';

const LIFECYCLE_LABELS = { new: 'New', still_open: 'Still open', fixed: 'Fixed', regressed: 'Regressed' } as const;

// Chunks of about this many characters: small enough to keep memory flat, large enough that the
// stream does not pay its per-chunk cost for every one of 10,000 articles.
const BATCH_CHARS = 32 * 1024;

/** Renders the run record as a UTF-8 HTML document; the stream errors if reading findings fails. */
export function renderHtml(record: ReportRecord): Readable {
  return Readable.from(batch(documentParts(record)), { objectMode: false });
}

async function* documentParts(r: ReportRecord): AsyncGenerator<string> {
  yield head(r) + header(r) + contents(r) + summary(r) + narrativeSummary(r.narrative) + servicesTable(r.services);
  yield* findingSections(r);
  yield* fixedSection(r);
  yield attackNarrative(r.narrative) + footer(r);
}

async function* batch(parts: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const part of parts) {
    buffer += part;
    if (buffer.length >= BATCH_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}

function head(r: ReportRecord): string {
  const title = `${r.scan.name} — run ${r.run.index} — Rampart report`;
  return `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${HTML_STYLE}</style>
</head><body><main>
`;
}

function header(r: ReportRecord): string {
  const { scan, run } = r;
  const outcome = run.outcome ?? (run.status === 'current' ? 'in progress' : 'unknown');
  const engine = engineLine(run) ?? '—';
  return `<header class="report-header"><p class="eyebrow">Rampart security report</p><h1>${esc(scan.name)}</h1><dl class="facts">
${fact('Scan type', esc(scan.type))}${fact('Run', `#${esc(run.index)} <span class="muted">(${esc(run.trigger)})</span>`)}
${fact('Outcome', `<span class="outcome outcome-${esc(outcome.replace(' ', '-'))}">${esc(outcome)}</span>`)}
${fact('Started', formatDate(run.startedAt))}${fact('Completed', formatDate(run.completedAt) + duration(run.startedAt, run.completedAt))}
${fact('Engine', esc(engine))}${fact('Vulnerability database', r.vulnDbSyncedAt ? `synced ${formatDate(r.vulnDbSyncedAt)}` : 'never synced')}
${fact('Generated', formatDate(r.generatedAt))}${fact('Quality of detection', esc(qualityLine(r.quality)), 'full')}${fact('Targets', scan.targets.map((t) => `<code>${esc(t)}</code>`).join(', ') || '—', 'full')}
</dl></header>
`;
}

function contents(r: ReportRecord): string {
  const threats = THREAT_ORDER.filter((t) => r.counts[t] > 0)
    .map((t) => `<li><a href="#threat-${t.toLowerCase()}">${t} (${count(r.counts[t])})</a></li>`)
    .join('');
  const items = [
    '<li><a href="#summary">Executive summary</a></li>',
    r.narrative ? '<li><a href="#narrative-summary">Narrative summary</a></li>' : '',
    '<li><a href="#services">Hosts and services</a></li>',
    `<li><a href="#findings">Findings</a>${threats ? `<ol>${threats}</ol>` : ''}</li>`,
    '<li><a href="#fixed">Fixed since the previous run</a></li>',
    r.narrative ? '<li><a href="#narrative">Attack narrative</a></li>' : '',
  ];
  return `<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>${items.join('')}</ol></nav>\n`;
}

function summary(r: ReportRecord): string {
  const lc = r.lifecycle;
  const notes = r.run.notes.length
    ? `<div class="card wide"><h3>Notes: what the run could not check</h3><ul>${r.run.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul></div>`
    : '';
  const error = r.run.error ? `<div class="card wide error"><h3>Error</h3><p class="text">${esc(r.run.error)}</p></div>` : '';
  return `<section id="summary"><h2>Executive summary</h2><div class="cards">
<div class="card"><h3>Present findings by threat</h3><p class="stat">${count(r.total)} <span>present findings</span></p>${threatChart(r.counts)}</div>
<div class="card"><h3>Since the previous run</h3><dl class="counts">${pair('New', lc.new)}${pair('Still open', lc.still_open)}${pair('Regressed', lc.regressed)}${pair('Fixed', lc.fixed)}</dl></div>
<div class="card"><h3>Hosts</h3><dl class="counts">${pair('Up', r.run.hostsUp)}${pair('Down', r.run.hostsDown)}</dl></div>
${error}${notes}</div></section>
`;
}

/** Horizontal bars, one per threat, labelled with the threat and its count so they read in grey print. */
function threatChart(counts: Record<Threat, number>): string {
  const max = Math.max(1, ...THREAT_ORDER.map((t) => finite(counts[t])));
  const rows = THREAT_ORDER.map((t, i) => {
    const n = finite(counts[t]);
    const y = i * 30;
    const width = n > 0 ? Math.max(2, Math.round((n / max) * 300)) : 0;
    return `<text x="0" y="${y + 18}" class="label">${t}</text>`
      + `<rect x="110" y="${y + 4}" width="300" height="20" rx="2" fill="#eef1f5"/>`
      + `<rect x="110" y="${y + 4}" width="${width}" height="20" rx="2" fill="${THREAT_COLORS[t]}"/>`
      + `<text x="${110 + width + 8}" y="${y + 19}" class="value">${count(n)}</text>`;
  });
  const description = THREAT_ORDER.map((t) => `${t} ${finite(counts[t])}`).join(', ');
  return `<svg class="chart" viewBox="0 0 470 150" role="img" aria-labelledby="chart-title"><title id="chart-title">Present findings by threat: ${description}</title>${rows.join('')}</svg>`;
}

function narrativeSummary(n: Narrative | null): string {
  if (!n) return '';
  return `<section id="narrative-summary"><h2>Narrative summary</h2><div class="lead">${n.summary.map((c) => `<p>${claim(c)}</p>`).join('')}</div>
<p class="muted">${provenance(n)} The <a href="#narrative">attack narrative</a> follows the findings.</p></section>
`;
}

function servicesTable(services: ReportService[]): string {
  if (services.length === 0) return '<section id="services"><h2>Hosts and services</h2><p class="muted">The run recorded no open port or service.</p></section>\n';
  const rows = services.map((s) => `<tr><td>${esc(s.hostname || '—')}</td><td><code>${esc(s.hostIp)}</code></td><td class="num">${s.port === null ? '—' : esc(s.port)}</td><td>${esc(s.protocol ?? '—')}</td><td>${esc(s.service ?? '—')}</td><td class="num">${count(s.findings)}</td><td>${s.worstThreat ? badge(s.worstThreat) : '—'}</td></tr>`);
  return `<section id="services"><h2>Hosts and services</h2><table><thead><tr><th>Host</th><th>Address</th><th class="num">Port</th><th>Protocol</th><th>Service</th><th class="num">Findings</th><th>Worst threat</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></section>
`;
}

async function* findingSections(r: ReportRecord): AsyncGenerator<string> {
  yield `<section id="findings"><h2>Findings</h2>${r.total > 0 ? '' : '<p class="muted">This run has no present findings.</p>'}`;
  let current = -1;
  for await (const f of r.findings()) {
    const index = THREAT_ORDER.indexOf(f.threat);
    if (index > current) {
      yield threatSections(r, current, index);
      current = index;
    }
    yield finding(f);
  }
  yield `${threatSections(r, current, THREAT_ORDER.length)}</section>\n`;
}

/**
 * Closes the open threat section and opens the one at `next`. A threat between them that the counts
 * promise but the findings skipped still gets its (empty) section, so the contents never link to
 * nothing; each section is opened once, so its id stays unique.
 */
function threatSections(r: ReportRecord, current: number, next: number): string {
  let html = current >= 0 ? '</section>\n' : '';
  for (let i = current + 1; i <= next && i < THREAT_ORDER.length; i++) {
    const t = THREAT_ORDER[i]!;
    if (i < next && !(r.counts[t] > 0)) continue;
    html += `<section id="threat-${t.toLowerCase()}" class="threat"><h3>${badge(t)} ${count(r.counts[t])} ${r.counts[t] === 1 ? 'finding' : 'findings'}</h3>`;
    if (i < next) html += '<p class="muted">None were listed.</p></section>\n';
  }
  return html;
}

function finding(f: ReportFinding): string {
  const cvss = f.cvssBase === null ? '—' : `<strong>${esc(f.cvssBase.toFixed(1))}</strong>${f.cvssVector ? ` <code>${esc(f.cvssVector)}</code>` : ''}`;
  const web = webLocation(f);
  const refs = f.references.length ? `<h5>References</h5><ul class="refs">${f.references.map(reference).join('')}</ul>` : '';
  return `<article id="finding-${esc(f.id)}" class="finding ${threatClass(f.threat)}">
<header><h4>${esc(f.name)}</h4>${badge(f.threat)}<span class="tag">${LIFECYCLE_LABELS[f.lifecycle] ?? esc(f.lifecycle)}</span>${f.kev ? '<span class="tag kev">Known exploited</span>' : ''}</header>
<dl class="meta">${fact('CVSS', cvss, 'wide')}${fact('Host', hostPort(f))}${fact('Service', esc(f.service ?? '—'))}${web ? fact('URL', `<code>${esc(web)}</code>`, 'wide') : ''}
${fact('CVE', f.cve.length ? f.cve.map((c) => esc(c)).join(', ') : '—')}${fact('CWE', esc(f.cwe ?? '—'))}
${fact('CISA KEV', f.kev ? 'Yes' : 'No')}${fact('EPSS', f.epss === null ? '—' : `${esc((f.epss * 100).toFixed(1))} %`)}
${fact('QoD', esc(f.qod))}${fact('Engines', esc(f.engines.join(', ') || '—'))}${fact('Rule', `<code>${esc(f.ruleId)}</code>`)}${fact('Triage', esc(f.status))}
${fact('ID', `#${esc(f.id)}`)}${fact('First seen', formatDate(f.firstSeenAt))}${fact('Last seen', formatDate(f.lastSeenAt))}</dl>
<h5>Description</h5><p class="text">${esc(f.description)}</p>
<h5>Evidence</h5><pre>${esc(f.evidence)}</pre>
<h5>Solution</h5><p class="text">${esc(f.solution)}</p>${refs}
</article>
`;
}

async function* fixedSection(r: ReportRecord): AsyncGenerator<string> {
  yield '<section id="fixed"><h2>Fixed since the previous run</h2>';
  let listed = 0;
  for await (const f of r.fixed()) {
    if (listed++ === 0) yield '<ul class="fixed">';
    const web = webLocation(f);
    yield `<li>${badge(f.threat)} <strong>${esc(f.name)}</strong> <span class="muted">on ${hostPort(f)}${web ? ` at <code>${esc(web)}</code>` : ''} · #${esc(f.id)}</span></li>\n`;
  }
  yield listed ? '</ul></section>\n' : '<p class="muted">Nothing was fixed since the previous run.</p></section>\n';
}

function attackNarrative(n: Narrative | null): string {
  if (!n) return '';
  const part = (title: string, claims: NarrativeClaim[], list: 'ul' | 'ol') =>
    `<h3>${title}</h3>${claims.length ? `<${list}>${claims.map((c) => `<li>${claim(c)}</li>`).join('')}</${list}>` : '<p class="muted">None.</p>'}`;
  const fallback = n.fallbackReason ? `<p class="notice">The configured LLM's answer was not used: ${esc(n.fallbackReason)}</p>` : '';
  return `<section id="narrative"><h2>Attack narrative</h2><p class="muted">${provenance(n)} Each statement cites the findings it rests on.</p>${fallback}
${part('Entry points', n.entryPoints, 'ul')}${part('Attack chains', n.chains, 'ul')}${part('Fixes, in order of effect', n.fixes, 'ol')}</section>
`;
}

function provenance(n: Narrative): string {
  return n.producedBy === 'llm'
    ? `Written by an LLM (model <code>${esc(n.model ?? 'unknown')}</code>); check it against the cited findings.`
    : 'Written by Rampart’s built-in deterministic narrative builder.';
}

function claim(c: NarrativeClaim): string {
  const cites = c.findingIds.map((id) => `<a href="#finding-${esc(id)}">#${esc(id)}</a>`).join(', ');
  return `${esc(c.text)}${cites ? ` <span class="cites">[${cites}]</span>` : ''}`;
}

function footer(r: ReportRecord): string {
  return `<footer>Generated by Rampart on ${formatDate(r.generatedAt)} · scan <code>${esc(r.scan.uuid)}</code> · run #${esc(r.run.index)} · ${esc(r.baseUrl)}</footer>
</main></body></html>
`;
}

function reference(url: string): string {
  const href = safeHref(url);
  return href ? `<li><a href="${href}" rel="noreferrer noopener">${esc(url)}</a></li>` : `<li>${esc(url)}</li>`;
}

function hostPort(f: Pick<ReportFinding, 'hostname' | 'hostIp' | 'port' | 'protocol'>): string {
  const name = f.hostname || f.hostIp;
  const where = `${name}${f.port === null ? '' : `:${f.port}`}${f.protocol ? `/${f.protocol}` : ''}`;
  return `${esc(where)}${f.hostname && f.hostIp && f.hostname !== f.hostIp ? ` <span class="muted">(${esc(f.hostIp)})</span>` : ''}`;
}

function fact(label: string, valueHtml: string, className = ''): string {
  return `<div${className ? ` class="${className}"` : ''}><dt>${label}</dt><dd>${valueHtml}</dd></div>`;
}

function pair(label: string, n: number): string {
  return `<div><dt>${label}</dt><dd>${count(n)}</dd></div>`;
}

function badge(t: Threat): string {
  return `<span class="badge ${threatClass(t)}">${esc(t)}</span>`;
}

// A threat outside the known five (a loader bug) still renders, just without a threat colour.
function threatClass(t: Threat): string {
  return THREAT_ORDER.includes(t) ? `t-${t.toLowerCase()}` : 't-unknown';
}

function formatDate(d: Date | null): string {
  if (!d || Number.isNaN(d.getTime())) return '—';
  return `<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 19).replace('T', ' ')} UTC</time>`;
}

function duration(from: Date | null, to: Date | null): string {
  if (!from || !to) return '';
  const seconds = Math.round((to.getTime() - from.getTime()) / 1000);
  if (!(seconds >= 0)) return '';
  const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
  return ` <span class="muted">(${h ? `${h} h ` : ''}${h || m ? `${m} min ` : ''}${s} s)</span>`;
}

function finite(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function count(n: number): string {
  return esc(finite(n).toLocaleString('en-US'));
}
