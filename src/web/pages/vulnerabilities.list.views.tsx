/**
 * The vulnerability list page: the filter form (a GET form, so the address is shareable and the
 * back button works), the findings of the page with their triage, bulk triage of the selected
 * ones, pagination and the CSV export of the current filters.
 */
import type { User } from '../../db/schema.js';
import type { VulnerabilityResource } from '../../findings/findings.schema.js';
import { LIFECYCLES, STATUSES, THREATS } from '../../findings/findings.schema.js';
import { SORT_KEYS } from '../../findings/vulnerabilities.service.js';
import type { FieldErrors } from '../../shared/errors.js';
import { Alert, CsrfField, EmptyState, Field, PageHeader, Pagination, Select, type PageMeta } from '../components.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { FindingsTable, type Order } from './vulnerabilities.table.views.js';
import { hrefOf, type RawQuery } from './vulnerabilities.query.js';

/** The query parameters that narrow the list (the export takes these, not the order or page). */
export const FILTER_KEYS = ['search', 'severity', 'status', 'lifecycle', 'target', 'url', 'min_qod'] as const;

const SORT_LABELS: Record<(typeof SORT_KEYS)[number], string> = {
  threat: 'Threat',
  cvss_base: 'CVSS score',
  name: 'Name',
  hostname: 'Host name',
  host_ip: 'IP address',
  scan_type: 'Scan type',
  status: 'Status',
  created_at: 'First found',
};

const LIFECYCLE_LABELS: Record<(typeof LIFECYCLES)[number], string> = { new: 'New', still_open: 'Still open', fixed: 'Fixed', regressed: 'Regressed' };

/**
 * A select's options with "any" first; a value the list lacks (an invalid one from the address)
 * is kept as an option, so the field shows what was asked beside its error.
 */
export function optionsWith(any: string | undefined, options: readonly (readonly [string, string])[], value: string | undefined): [string, string][] {
  const list: [string, string][] = [...(any !== undefined ? [['', any] as [string, string]] : []), ...options.map(([v, l]) => [v, l] as [string, string])];
  if (value !== undefined && !list.some(([v]) => v === value)) list.push([value, value]);
  return list;
}

/** The filters of the query alone. */
export function filtersOf(query: RawQuery): RawQuery {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, query[key]]));
}

export interface VulnerabilityListProps {
  user: User;
  csrfToken: string;
  flash: Flash | null;
  query: RawQuery;
  order: Order;
  /** The API's messages for invalid query values; the list is not shown then. */
  errors?: FieldErrors | undefined;
  page?: { items: VulnerabilityResource[]; meta: PageMeta } | undefined;
  /** The deployment's export threshold (RAMPART_MIN_QOD). */
  exportMinQod: number;
  /** This page's own address: where triage returns to. */
  self: string;
}

function FilterForm(props: { query: RawQuery; order: Order; errors?: FieldErrors | undefined }) {
  const { query, errors } = props;
  return (
    <form method="get" action="/vulnerabilities" class="filters" role="search" aria-label="Filter vulnerabilities" data-drop-empty="">
      <Field name="search" label="Search" type="search" value={query.search} errors={errors} hint="Name, host, IP, URL or scan name" />
      <Select name="severity" label="Threat" value={query.severity} errors={errors} options={optionsWith('Any threat', THREATS.map((t) => [t, t]), query.severity)} />
      <Select name="status" label="Status" value={query.status} errors={errors} options={optionsWith('Any status', STATUSES.map((s) => [s, s]), query.status)} />
      <Select
        name="lifecycle"
        label="Latest run"
        value={query.lifecycle}
        errors={errors}
        options={optionsWith('Any', LIFECYCLES.map((l) => [l, LIFECYCLE_LABELS[l]]), query.lifecycle)}
      />
      <Field name="target" label="Host" value={query.target} errors={errors} hint="Host name or IP, exactly" />
      <Field name="url" label="URL contains" value={query.url} errors={errors} />
      <Field name="min_qod" label="Minimum QoD" type="number" inputMode="numeric" min={0} max={100} value={query.min_qod} errors={errors} hint="0 to 100" />
      <Select name="sort" label="Sort by" value={query.sort ?? props.order.sort} errors={errors} options={optionsWith(undefined, SORT_KEYS.map((k) => [k, SORT_LABELS[k]]), query.sort)} />
      <Select
        name="direction"
        label="Order"
        value={query.direction ?? props.order.direction}
        errors={errors}
        options={optionsWith(undefined, [['desc', 'Descending'], ['asc', 'Ascending']], query.direction)}
      />
      <Field name="per_page" label="Per page" type="number" inputMode="numeric" min={1} max={100} value={query.per_page ?? '10'} errors={errors} hint="1 to 100" />
      {errors?.page && <Field name="page" label="Page" type="number" min={1} value={query.page} errors={errors} />}
      <div class="filter-actions">
        <button type="submit">Apply</button>
        <a href="/vulnerabilities">Clear filters</a>
      </div>
    </form>
  );
}

function Results(props: VulnerabilityListProps & { page: { items: VulnerabilityResource[]; meta: PageMeta } }) {
  const { page, query } = props;
  const filtered = FILTER_KEYS.some((key) => query[key] !== undefined);
  if (page.meta.total === 0) {
    return filtered ? (
      <EmptyState title="No vulnerabilities match these filters.">
        <p>
          <a href="/vulnerabilities">Clear filters</a> to see every vulnerability.
        </p>
      </EmptyState>
    ) : (
      <EmptyState title="No vulnerabilities yet.">
        <p>
          Findings appear here when a scan finishes. <a href="/scans/new">Create a scan</a> or upload results to an Unmanaged scan.
        </p>
      </EmptyState>
    );
  }
  if (page.items.length === 0) {
    return (
      <EmptyState title="This page is past the end of the list.">
        <p>
          <a href={hrefOf('/vulnerabilities', { ...query, page: undefined })}>Go to the first page</a>.
        </p>
      </EmptyState>
    );
  }
  return (
    <form method="post" action="/vulnerabilities/bulk" id="triage">
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="back" value={props.self} />
      <div class="bulk-actions">
        <Select
          name="action"
          id="f-bulk-action"
          label="With the selected vulnerabilities"
          options={[
            ['accept', 'Accept'],
            ['false-positive', 'Mark false positive'],
            ['undo', 'Reset to unresolved'],
          ]}
        />
        <button type="submit" class="secondary">
          Apply to selected
        </button>
      </div>
      <FindingsTable
        items={page.items}
        order={props.order}
        path="/vulnerabilities"
        query={query}
        triage
        caption="Vulnerabilities"
        sortKeys={{ threat: 'threat', cvss: 'cvss_base', name: 'name', location: 'hostname', scan: 'scan_type', status: 'status' }}
      />
      <Pagination meta={page.meta} path="/vulnerabilities" query={query} />
    </form>
  );
}

/** GET /vulnerabilities */
export function VulnerabilityListPage(props: VulnerabilityListProps) {
  const exportHref = hrefOf('/vulnerabilities/export.csv', filtersOf(props.query));
  return (
    <Layout title="Vulnerabilities" user={props.user} csrfToken={props.csrfToken} section="vulnerabilities" flash={props.flash}>
      <PageHeader title="Vulnerabilities" subtitle={props.page ? `${props.page.meta.total} found` : undefined}>
        {!props.errors && (
          <a class="button secondary" href={exportHref} download>
            Export CSV
          </a>
        )}
      </PageHeader>
      <FilterForm query={props.query} order={props.order} errors={props.errors} />
      {props.errors ? (
        <Alert kind="error">
          <p>Some filters are not valid: correct the fields marked above.</p>
        </Alert>
      ) : (
        <p class="hint export-note">
          The export holds the vulnerabilities of these filters
          {props.query.min_qod === undefined ? `, without those whose quality of detection is below ${props.exportMinQod} (set a minimum QoD of 0 to export all)` : ''}.
        </p>
      )}
      {props.page && <Results {...props} page={props.page} />}
    </Layout>
  );
}
