/**
 * The findings table shared by the vulnerability list and a target's page: sortable column
 * headers (links that keep the filters, `aria-sort` on the sorted column), one row per finding,
 * and on the list the selection checkboxes and the triage buttons of each row.
 */
import type { VulnerabilityResource } from '../../findings/findings.schema.js';
import { ThreatBadge, Time } from '../components.js';
import { hrefOf, withQuery, type RawQuery } from './vulnerabilities.query.js';

/** The order a list is shown in. */
export interface Order {
  sort: string;
  direction: 'asc' | 'desc';
}

/** Keys whose natural first order is A to Z; the others (threat, score, dates, counts) start with the largest. */
const ASCENDING_FIRST = new Set(['name', 'hostname', 'host_ip', 'scan_type', 'status', 'target', 'type']);

/**
 * A column header that sorts the list by `sortKey`: a link to the same list sorted by it (the
 * other direction when it is already the sort), back on page 1. Without `sortKey`, plain text.
 */
export function SortHeader(props: { label: string; sortKey?: string | undefined; order: Order; path: string; query: RawQuery; class?: string }) {
  const { sortKey, order } = props;
  if (!sortKey) return <th scope="col" class={props.class}>{props.label}</th>;
  const sorted = order.sort === sortKey;
  const next = sorted ? (order.direction === 'asc' ? 'desc' : 'asc') : ASCENDING_FIRST.has(sortKey) ? 'asc' : 'desc';
  const href = hrefOf(props.path, withQuery(props.query, { sort: sortKey, direction: next, page: undefined }));
  return (
    <th scope="col" class={props.class} aria-sort={sorted ? (order.direction === 'asc' ? 'ascending' : 'descending') : undefined}>
      <a href={href}>
        {props.label}
        {sorted && <span aria-hidden="true">{order.direction === 'asc' ? ' ▲' : ' ▼'}</span>}
        <span class="visually-hidden">{`, sort ${next === 'asc' ? 'ascending' : 'descending'}`}</span>
      </a>
    </th>
  );
}

/** Where a finding is: the URL of a web finding, else host (address) and port/protocol. */
export function locationOf(v: Pick<VulnerabilityResource, 'url' | 'method' | 'hostname' | 'host_ip' | 'port' | 'protocol'>): string {
  if (v.url) return v.method ? `${v.method} ${v.url}` : v.url;
  const host = v.hostname && v.hostname !== v.host_ip ? `${v.hostname} (${v.host_ip})` : v.host_ip || v.hostname;
  return v.port !== null ? `${host}:${v.port}${v.protocol ? `/${v.protocol}` : ''}` : host;
}

/** The triage buttons that change something for a finding in this status. */
export function triageActions(status: string): { path: 'accept' | 'false-positive' | 'undo'; label: string }[] {
  if (status === 'Unresolved') return [
    { path: 'accept', label: 'Accept' },
    { path: 'false-positive', label: 'False positive' },
  ];
  return [{ path: 'undo', label: 'Undo' }];
}

export interface FindingsTableProps {
  items: VulnerabilityResource[];
  order: Order;
  /** The list's path and query (headers keep the filters). */
  path: string;
  query: RawQuery;
  /** The keys each column sorts by; a column without one is not sortable here. */
  sortKeys: Partial<Record<'threat' | 'cvss' | 'name' | 'location' | 'scan' | 'status', string>>;
  /** Inside the triage form: a checkbox and the triage buttons on each row. */
  triage?: boolean;
  caption: string;
}

/** The findings of one page as a table. */
export function FindingsTable(props: FindingsTableProps) {
  const { order, path, query, sortKeys: keys } = props;
  const header = (label: string, key: string | undefined, cls?: string) => <SortHeader label={label} sortKey={key} order={order} path={path} query={query} class={cls} />;
  return (
    <div class="table-wrap">
      <table class="findings">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.triage && (
              <th scope="col">
                <input type="checkbox" data-select-all="ids" aria-label="Select every vulnerability on this page" />
              </th>
            )}
            {header('Threat', keys.threat)}
            {header('CVSS', keys.cvss, 'num')}
            {header('Name', keys.name)}
            {header('Location', keys.location)}
            {header('Scan', keys.scan)}
            {header('Status', keys.status)}
            <th scope="col" class="num">
              <abbr title="Quality of detection">QoD</abbr>
            </th>
            <th scope="col">Last seen</th>
            {props.triage && <th scope="col">Triage</th>}
          </tr>
        </thead>
        <tbody>
          {props.items.map((v) => (
            <tr>
              {props.triage && (
                <td>
                  <input type="checkbox" name="ids" value={String(v.id)} aria-label={`Select ${v.name} on ${locationOf(v)}`} />
                </td>
              )}
              <td>
                <ThreatBadge threat={v.threat} />
              </td>
              <td class="num">{v.cvss_base === null ? <span class="muted">—</span> : v.cvss_base.toFixed(1)}</td>
              <td>
                <a href={`/vulnerabilities/${v.id}`}>{v.name}</a>
                {v.kev && (
                  <>
                    {' '}
                    <span class="badge kev" title="In CISA's Known Exploited Vulnerabilities catalog">
                      KEV
                    </span>
                  </>
                )}
              </td>
              <td class="location">{locationOf(v)}</td>
              <td>
                <a href={`/scans/${v.scan_uuid}`}>{v.scan_name}</a>
                <span class="muted"> · {v.scan_type}</span>
              </td>
              <td>{v.status}</td>
              <td class="num">{v.qod}</td>
              <td>
                <Time value={v.last_seen_at} />
              </td>
              {props.triage && (
                <td class="triage">
                  {triageActions(v.status).map((action) => (
                    <button type="submit" class="small secondary" formaction={`/vulnerabilities/${v.id}/${action.path}`} aria-label={`${action.label}: ${v.name} on ${locationOf(v)}`}>
                      {action.label}
                    </button>
                  ))}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
