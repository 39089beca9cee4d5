/**
 * The targets list page: filters (search, type, status), sortable columns, counts by threat, and
 * pagination; an empty state that says how targets come to exist.
 */
import type { User } from '../../db/schema.js';
import type { TargetResource } from '../../findings/findings.schema.js';
import { TARGET_SORTS, TARGET_STATUSES, TARGET_TYPES } from '../../targets/targets.schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { Alert, EmptyState, Field, PageHeader, Pagination, Select, Time, type PageMeta } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { optionsWith } from './vulnerabilities.list.views.js';
import { SortHeader, type Order } from './vulnerabilities.table.views.js';
import { hrefOf, type RawQuery } from './vulnerabilities.query.js';

const SORT_LABELS: Record<(typeof TARGET_SORTS)[number], string> = {
  last_scan: 'Last scan',
  target: 'Target',
  type: 'Type',
  status: 'Status',
  created_at: 'Added',
  vulnerabilities: 'Vulnerabilities',
};

const THREAT_COUNTS = [
  ['critical', 'Critical'],
  ['high', 'High'],
  ['medium', 'Medium'],
  ['low', 'Low'],
  ['informational', 'Info'],
] as const;

/** A target's counts by threat as small labelled badges (zeros left out). */
export function ThreatCounts(props: { target: TargetResource }) {
  const shown = THREAT_COUNTS.filter(([key]) => props.target[key] > 0);
  if (shown.length === 0) return <span class="muted">none</span>;
  return (
    <span class="threat-counts">
      {shown.map(([key, label]) => (
        <span class={`badge threat-${key}`}>
          {props.target[key]} {label}
        </span>
      ))}
    </span>
  );
}

export interface TargetListProps {
  user: User;
  csrfToken: string;
  flash: Flash | null;
  query: RawQuery;
  order: Order;
  errors?: FieldErrors | undefined;
  page?: { items: TargetResource[]; meta: PageMeta } | undefined;
}

function TargetTable(props: { items: TargetResource[]; order: Order; query: RawQuery }) {
  const header = (label: string, key: string, cls?: string) => <SortHeader label={label} sortKey={key} order={props.order} path="/targets" query={props.query} class={cls} />;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Targets</caption>
        <thead>
          <tr>
            {header('Target', 'target')}
            {header('Type', 'type')}
            {header('Status', 'status')}
            {header('Last scan', 'last_scan')}
            {header('Vulnerabilities', 'vulnerabilities', 'num')}
            <th scope="col">By threat</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((t) => (
            <tr>
              <td>
                <a href={`/targets/${t.id}`}>{t.target}</a>
                {t.description && <div class="muted">{t.description}</div>}
              </td>
              <td>{t.type === 'Ip' ? 'IP address' : 'Domain'}</td>
              <td>{t.status}</td>
              <td>
                <Time value={t.last_scan} empty="never" />
              </td>
              <td class="num">{t.vulnerabilities_count}</td>
              <td>
                <ThreatCounts target={t} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** GET /targets */
export function TargetListPage(props: TargetListProps) {
  const { query, errors, page } = props;
  const filtered = query.search !== undefined || query.type !== undefined || query.status !== undefined;
  return (
    <Layout title="Targets" user={props.user} csrfToken={props.csrfToken} section="targets" flash={props.flash}>
      <PageHeader title="Targets" subtitle={page ? `${page.meta.total} ${page.meta.total === 1 ? 'target' : 'targets'}` : undefined} />
      <form method="get" action="/targets" class="filters" role="search" aria-label="Filter targets" data-drop-empty="">
        <Field name="search" label="Search" type="search" value={query.search} errors={errors} hint="Target, description or type" />
        <Select name="type" label="Type" value={query.type} errors={errors} options={optionsWith('Any type', TARGET_TYPES.map((t) => [t, t === 'Ip' ? 'IP address' : t]), query.type)} />
        <Select name="status" label="Status" value={query.status} errors={errors} options={optionsWith('Any status', TARGET_STATUSES.map((s) => [s, s]), query.status)} />
        <Select name="sort" label="Sort by" value={query.sort ?? props.order.sort} errors={errors} options={optionsWith(undefined, TARGET_SORTS.map((s) => [s, SORT_LABELS[s]]), query.sort)} />
        <Select name="direction" label="Order" value={query.direction ?? props.order.direction} errors={errors} options={optionsWith(undefined, [['desc', 'Descending'], ['asc', 'Ascending']], query.direction)} />
        <Field name="per_page" label="Per page" type="number" inputMode="numeric" min={1} max={100} value={query.per_page ?? '10'} errors={errors} hint="1 to 100" />
        {errors?.page && <Field name="page" label="Page" type="number" min={1} value={query.page} errors={errors} />}
        <div class="filter-actions">
          <button type="submit">Apply</button>
          <a href="/targets">Clear filters</a>
        </div>
      </form>
      {errors && (
        <Alert kind="error">
          <p>Some filters are not valid: correct the fields marked above.</p>
        </Alert>
      )}
      {page && page.meta.total === 0 && !filtered && (
        <EmptyState title="No targets yet.">
          <p>
            Every host a scan names becomes a target. <a href="/scans/new">Create a scan</a> to add some.
          </p>
        </EmptyState>
      )}
      {page && page.meta.total === 0 && filtered && (
        <EmptyState title="No targets match these filters.">
          <p>
            <a href="/targets">Clear filters</a> to see every target.
          </p>
        </EmptyState>
      )}
      {page && page.meta.total > 0 && page.items.length === 0 && (
        <EmptyState title="This page is past the end of the list.">
          <p>
            <a href={hrefOf('/targets', { ...query, page: undefined })}>Go to the first page</a>.
          </p>
        </EmptyState>
      )}
      {page && page.items.length > 0 && (
        <>
          <TargetTable items={page.items} order={props.order} query={query} />
          <Pagination meta={page.meta} path="/targets" query={query} />
        </>
      )}
    </Layout>
  );
}
