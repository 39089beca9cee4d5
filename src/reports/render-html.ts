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
import { THREAT_ORDER } from './report.js';
import { escapeHtml as esc, safeHref } from './html-escape.js';

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
  const engine = run.engine ? `${run.engine}${run.engineVersion ? ` ${run.engineVersion}` : ''}` : '—';
  return `<header class="report-header"><p class="eyebrow">Rampart security report</p><h1>${esc(scan.name)}</h1><dl class="facts">
${fact('Scan type', esc(scan.type))}${fact('Run', `#${esc(run.index)} <span class="muted">(${esc(run.trigger)})</span>`)}
${fact('Outcome', `<span class="outcome outcome-${esc(outcome.replace(' ', '-'))}">${esc(outcome)}</span>`)}
${fact('Started', formatDate(run.startedAt))}${fact('Completed', formatDate(run.completedAt) + duration(run.startedAt, run.completedAt))}
${fact('Engine', esc(engine))}${fact('Vulnerability database', r.vulnDbSyncedAt ? `synced ${formatDate(r.vulnDbSyncedAt)}` : 'never synced')}
${fact('Generated', formatDate(r.generatedAt))}${fact('Targets', scan.targets.map((t) => `<code>${esc(t)}</code>`).join(', ') || '—', 'full')}
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
  const refs = f.references.length ? `<h5>References</h5><ul class="refs">${f.references.map(reference).join('')}</ul>` : '';
  return `<article id="finding-${esc(f.id)}" class="finding ${threatClass(f.threat)}">
<header><h4>${esc(f.name)}</h4>${badge(f.threat)}<span class="tag">${LIFECYCLE_LABELS[f.lifecycle] ?? esc(f.lifecycle)}</span>${f.kev ? '<span class="tag kev">Known exploited</span>' : ''}</header>
<dl class="meta">${fact('CVSS', cvss, 'wide')}${fact('Host', hostPort(f))}${fact('Service', esc(f.service ?? '—'))}
${fact('CVE', f.cve.length ? f.cve.map((c) => esc(c)).join(', ') : '—')}${fact('CWE', esc(f.cwe ?? '—'))}
${fact('CISA KEV', f.kev ? 'Yes' : 'No')}${fact('EPSS', f.epss === null ? '—' : `${esc((f.epss * 100).toFixed(1))} %`)}
${fact('Engines', esc(f.engines.join(', ') || '—'))}${fact('Rule', `<code>${esc(f.ruleId)}</code>`)}${fact('Triage', esc(f.status))}
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
    yield `<li>${badge(f.threat)} <strong>${esc(f.name)}</strong> <span class="muted">on ${hostPort(f)} · #${esc(f.id)}</span></li>\n`;
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

/** One colour per threat, shared by the chart, the badges and the findings' edges. */
const THREAT_COLORS: Record<Threat, string> = { Critical: '#7b1fa2', High: '#d32f2f', Medium: '#f57c00', Low: '#fbc02d', Informational: '#1976d2' };

// No url(), @import or @font-face: the page must load nothing, and its CSP would block it anyway.
const HTML_STYLE = `
:root{--ink:#1f2933;--muted:#5f6b7a;--line:#d9dee5;--panel:#f5f7fa;--accent:#1f4e79;
--critical:${THREAT_COLORS.Critical};--high:${THREAT_COLORS.High};--medium:${THREAT_COLORS.Medium};--low:${THREAT_COLORS.Low};--informational:${THREAT_COLORS.Informational}}
*{box-sizing:border-box}
html{color-scheme:light}
body{margin:0;background:#e9edf2;color:var(--ink);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:36px 48px 40px;background:#fff;min-height:100vh}
h1{font-size:28px;line-height:1.25;margin:2px 0 18px;overflow-wrap:anywhere}
h2{font-size:21px;margin:40px 0 14px;padding-bottom:6px;border-bottom:2px solid var(--ink)}
h3{font-size:16px;margin:26px 0 10px}
h4{font-size:16px;margin:0;flex:1 1 320px;overflow-wrap:anywhere}
h5{font-size:11.5px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:14px 0 4px}
p,li,dd,td{overflow-wrap:anywhere}
a{color:var(--accent)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:13px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;padding:10px 12px;background:var(--panel);border:1px solid var(--line);border-radius:4px}
dl{margin:0}
dt{font-size:11.5px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
dd{margin:0}
.eyebrow{margin:0;font-size:12px;text-transform:uppercase;letter-spacing:.1em;color:var(--muted)}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:12px 28px;padding:16px 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line)}
.facts>div,.meta>div{min-width:0}
.full{grid-column:1/-1}
.muted{color:var(--muted)}
.outcome{font-weight:600;text-transform:capitalize}
.outcome-succeeded{color:#2e7d32}.outcome-failed{color:var(--high)}.outcome-cancelled,.outcome-unknown{color:var(--muted)}
.toc{margin:24px 0;padding:12px 20px;background:var(--panel);border:1px solid var(--line);border-radius:6px}
.toc h2{margin:0 0 4px;padding:0;border:0;font-size:15px}
.toc ol{margin:0;padding-left:22px}
.toc ol ol{display:flex;flex-wrap:wrap;gap:2px 18px;padding:0;list-style:none}
.cards{display:grid;grid-template-columns:2fr 1fr 1fr;gap:16px}
.cards .wide{grid-column:1/-1}
.card{padding:14px 18px;border:1px solid var(--line);border-radius:6px}
.card h3{margin:0 0 10px;font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.card ul{margin:0;padding-left:20px}
.stat{margin:0 0 10px;font-size:30px;font-weight:700;line-height:1.1}
.stat span{font-size:15px;font-weight:400;color:var(--muted)}
.chart{display:block;width:100%;max-width:520px;height:auto}
.chart .label{font-size:13px;fill:var(--ink)}
.chart .value{font-size:13px;font-weight:700;fill:var(--ink)}
time{white-space:nowrap}
.counts{display:grid;grid-template-columns:repeat(2,1fr);gap:10px}
.counts dd{font-size:22px;font-weight:700}
.error{border-left:4px solid var(--high);background:#fdecea}
.notice{padding:8px 12px;border-left:4px solid var(--medium);background:#fff4e5}
.lead p{margin:0 0 8px;font-size:16.5px}
.cites{white-space:nowrap;font-size:13px}
table{width:100%;border-collapse:collapse;font-size:14px}
th,td{padding:7px 10px;text-align:left;vertical-align:top;border-bottom:1px solid var(--line)}
th{background:var(--panel);font-size:11.5px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafbfc}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;background:#607080;color:#fff;font-size:12px;font-weight:600;line-height:1.6;white-space:nowrap;vertical-align:middle}
.badge.t-critical{background:var(--critical)}.badge.t-high{background:var(--high)}.badge.t-medium{background:var(--medium)}
.badge.t-low{background:var(--low);color:#3b2f00}.badge.t-informational{background:var(--informational)}
.tag{display:inline-block;padding:0 8px;border:1px solid var(--line);border-radius:10px;background:var(--panel);font-size:12px;line-height:1.7;white-space:nowrap}
.tag.kev{border-color:var(--high);color:var(--high);font-weight:600}
.threat h3{display:flex;align-items:center;gap:10px}
.finding{margin:14px 0;padding:14px 18px;border:1px solid var(--line);border-left:5px solid #607080;border-radius:4px}
.finding.t-critical{border-left-color:var(--critical)}.finding.t-high{border-left-color:var(--high)}.finding.t-medium{border-left-color:var(--medium)}
.finding.t-low{border-left-color:var(--low)}.finding.t-informational{border-left-color:var(--informational)}
.finding>header{display:flex;flex-wrap:wrap;align-items:center;gap:6px 8px}
.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px 20px;margin-top:12px;padding:10px 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line);font-size:14px}
.meta .wide{grid-column:span 2}
.text{margin:0;white-space:pre-line}
.refs{margin:0;padding-left:20px;font-size:14px}
.fixed{padding-left:0;list-style:none}.fixed li{padding:6px 0;border-bottom:1px solid var(--line)}
footer{margin-top:48px;padding-top:12px;border-top:1px solid var(--line);font-size:13px;color:var(--muted)}
@media (max-width:720px){main{padding:18px}.cards{grid-template-columns:1fr}.meta .wide{grid-column:1/-1}}
@page{margin:16mm 14mm}
@media print{
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{background:#fff;font-size:10.5pt}
main{max-width:none;min-height:0;padding:0}
a{color:inherit;text-decoration:none}
h2,h3,h5{break-after:avoid}
.card,tr,.finding>header,.meta,.fixed li{break-inside:avoid}
.toc{break-after:page}
}
`;
