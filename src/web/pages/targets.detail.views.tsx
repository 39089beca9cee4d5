/**
 * One target: its fields and counts by threat, its vulnerabilities (the API's target list: sort,
 * direction, page size), and the confirmation page of its deletion, which says how many
 * vulnerabilities go with it.
 */
import type { User } from '../../db/schema.js';
import type { TargetResource, VulnerabilityResource } from '../../findings/findings.schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { Alert, CsrfField, EmptyState, Field, PageHeader, Pagination, Select, Time, type PageMeta } from '../components.js';
import { TARGET_VULNERABILITY_SORTS } from '../../targets/targets.schema.js';
import { optionsWith } from './vulnerabilities.list.views.js';
import type { Flash } from '../flash.js';
import { Layout } from '../layout.js';
import { ThreatCounts } from './targets.views.js';
import { FindingsTable, type Order } from './vulnerabilities.table.views.js';
import type { RawQuery } from './vulnerabilities.query.js';

export interface TargetDetailProps {
  user: User;
  csrfToken: string;
  flash: Flash | null;
  target: TargetResource;
  query: RawQuery;
  order: Order;
  errors?: FieldErrors | undefined;
  page?: { items: VulnerabilityResource[]; meta: PageMeta } | undefined;
}

const SORT_LABELS: Record<(typeof TARGET_VULNERABILITY_SORTS)[number], string> = {
  threat: 'Threat',
  cvss_base: 'CVSS score',
  name: 'Name',
  scan_type: 'Scan type',
  created_at: 'First found',
};

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** GET /targets/:id */
export function TargetDetailPage(props: TargetDetailProps) {
  const { target: t, page, query, errors } = props;
  const path = `/targets/${t.id}`;
  return (
    <Layout title={t.target} user={props.user} csrfToken={props.csrfToken} section="targets" flash={props.flash}>
      <p>
        <a href="/targets">← All targets</a>
      </p>
      <PageHeader title={t.target} subtitle={`${t.type === 'Ip' ? 'IP address' : 'Domain'} · ${t.status}`}>
        <a class="button secondary" href={`/vulnerabilities?target=${encodeURIComponent(t.target)}`}>
          Filter the vulnerability list
        </a>
        <a class="button danger" href={`${path}/delete`}>
          Delete target
        </a>
      </PageHeader>
      <section class="card" aria-labelledby="h-target">
        <h2 id="h-target">Target</h2>
        <dl class="details">
          <dt>Status</dt>
          <dd>{t.status === 'Active' ? 'Active: it answered in its last scan' : t.status === 'Inactive' ? 'Inactive: it did not answer in its last scan' : 'Unknown: never scanned'}</dd>
          <dt>Description</dt>
          <dd>{t.description ?? <span class="muted">—</span>}</dd>
          <dt>Last scan</dt>
          <dd>
            <Time value={t.last_scan} empty="never" />
          </dd>
          <dt>Added</dt>
          <dd>
            <Time value={t.created_at} />
          </dd>
          <dt>Vulnerabilities</dt>
          <dd>
            {t.vulnerabilities_count} <ThreatCounts target={t} />
          </dd>
        </dl>
      </section>
      <section aria-labelledby="h-findings">
        <h2 id="h-findings">Vulnerabilities</h2>
        <form method="get" action={path} class="filters" aria-label="Vulnerabilities of this target" data-drop-empty="">
          <Field name="url" label="URL contains" value={query.url} errors={errors} />
          <Field name="min_qod" label="Minimum QoD" type="number" inputMode="numeric" min={0} max={100} value={query.min_qod} errors={errors} hint="0 to 100" />
          <Field name="per_page" label="Per page" type="number" inputMode="numeric" min={1} max={100} value={query.per_page ?? '10'} errors={errors} hint="1 to 100" />
          <Select name="sort" label="Sort by" value={query.sort ?? props.order.sort} errors={errors} options={optionsWith(undefined, TARGET_VULNERABILITY_SORTS.map((s) => [s, SORT_LABELS[s]]), query.sort)} />
          <Select name="direction" label="Order" value={query.direction ?? props.order.direction} errors={errors} options={optionsWith(undefined, [['desc', 'Descending'], ['asc', 'Ascending']], query.direction)} />
          {errors?.page && <Field name="page" label="Page" type="number" min={1} value={query.page} errors={errors} />}
          <div class="filter-actions">
            <button type="submit">Apply</button>
          </div>
        </form>
        {errors && (
          <Alert kind="error">
            <p>Some values are not valid: correct the fields marked above.</p>
          </Alert>
        )}
        {page && page.meta.total === 0 && (
          <EmptyState title={t.vulnerabilities_count === 0 ? 'No vulnerabilities on this target.' : 'No vulnerabilities match these filters.'}>
            <p>{t.vulnerabilities_count === 0 ? 'Its scans found nothing, or it has not been scanned yet.' : <a href={path}>Show all its vulnerabilities</a>}</p>
          </EmptyState>
        )}
        {page && page.meta.total > 0 && page.items.length === 0 && (
          <EmptyState title="This page is past the end of the list.">
            <p>
              <a href={path}>Go to the first page</a>.
            </p>
          </EmptyState>
        )}
        {page && page.items.length > 0 && (
          <>
            <FindingsTable
              items={page.items}
              order={props.order}
              path={path}
              query={query}
              caption={`Vulnerabilities of ${t.target}`}
              sortKeys={{ threat: 'threat', cvss: 'cvss_base', name: 'name', scan: 'scan_type' }}
            />
            <Pagination meta={page.meta} path={path} query={query} />
          </>
        )}
      </section>
    </Layout>
  );
}

/** GET /targets/:id/delete: what the deletion removes, and the button that does it. */
export function TargetDeletePage(props: { user: User; csrfToken: string; target: TargetResource }) {
  const t = props.target;
  return (
    <Layout title={`Delete ${t.target}`} user={props.user} csrfToken={props.csrfToken} section="targets">
      <PageHeader title={`Delete ${t.target}?`} />
      <section class="card">
        <p class="delete-summary">
          Deleting {t.target} removes its {plural(t.vulnerabilities_count, 'vulnerability', 'vulnerabilities')}.
        </p>
        <p>Their triage (accepted, false positive) goes too. The scans that named it stay; a later scan of it adds it again.</p>
        <form method="post" action={`/targets/${t.id}/delete`} class="actions">
          <CsrfField token={props.csrfToken} />
          <button type="submit" class="danger">
            Delete {t.target}
          </button>
          <a class="button secondary" href={`/targets/${t.id}`}>
            Cancel
          </a>
        </form>
      </section>
    </Layout>
  );
}
