/** The HTML report's look: its one inline stylesheet and the threat colours it shares with the chart. */
import type { Threat } from './report.js';

/** One colour per threat, shared by the chart, the badges and the findings' edges. */
export const THREAT_COLORS: Record<Threat, string> = { Critical: '#7b1fa2', High: '#d32f2f', Medium: '#f57c00', Low: '#fbc02d', Informational: '#1976d2' };

// No url(), @import or @font-face: the page must load nothing, and its CSP would block it anyway.
export const HTML_STYLE = `
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
