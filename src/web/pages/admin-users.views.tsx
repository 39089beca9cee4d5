/**
 * The admins' users page: every account, paginated and searchable by email, with a form per row to
 * change its plan and a button to disable or enable it. A refused change (the last admin, one's own
 * account) is shown beside the row it concerns.
 */
import type { User } from '../../db/schema.js';
import type { FieldErrors } from '../../shared/errors.js';
import { ROLES } from '../../shared/roles.js';
import { Layout } from '../layout.js';
import type { Flash } from '../flash.js';
import { Alert, CsrfField, EmptyState, PageHeader, Pagination, Time, type PageMeta } from '../components.js';

export interface AdminUsersPageProps {
  viewer: User;
  csrfToken: string;
  flash?: Flash | null | undefined;
  accounts: User[];
  meta: PageMeta;
  search: string;
  page: number;
  /** The row whose change was refused, and why (errors by field: role, disabled). */
  failure?: { userId: number; errors: FieldErrors; message?: string | undefined } | undefined;
}

/** The list's query string, carried by each row's forms so the page comes back as it was. */
function listQuery(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search) params.set('search', search);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function RoleForm(props: { account: User; csrfToken: string; back: string; errors?: string[] | undefined }) {
  const { account } = props;
  const id = `role-${account.id}`;
  return (
    <form method="post" action={`/admin/users/${account.id}/role${props.back}`} class="row-form">
      <CsrfField token={props.csrfToken} />
      <label for={id} class="visually-hidden">
        Plan of {account.email}
      </label>
      <select id={id} name="role" aria-invalid={props.errors ? 'true' : undefined} aria-describedby={props.errors ? `${id}-error` : undefined}>
        {ROLES.map((role) => (
          <option value={role} selected={role === account.role}>
            {role}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary small">
        Change<span class="visually-hidden"> the plan of {account.email}</span>
      </button>
      {props.errors && (
        <p class="field-error" id={`${id}-error`}>
          {props.errors.join(' ')}
        </p>
      )}
    </form>
  );
}

function DisableForm(props: { account: User; csrfToken: string; back: string; errors?: string[] | undefined }) {
  const { account } = props;
  const disabled = account.disabled_at !== null;
  const action = `/admin/users/${account.id}/${disabled ? 'enable' : 'disable'}${props.back}`;
  return (
    <form method="post" action={action} class="row-form" data-confirm={disabled ? undefined : `Disable ${account.email}? Their sessions end now and their API keys stop working.`}>
      <CsrfField token={props.csrfToken} />
      <button type="submit" class={disabled ? 'secondary small' : 'danger small'} aria-describedby={props.errors ? `disable-${account.id}-error` : undefined}>
        {disabled ? 'Enable' : 'Disable'}
        <span class="visually-hidden"> {account.email}</span>
      </button>
      {props.errors && (
        <p class="field-error" id={`disable-${account.id}-error`}>
          {props.errors.join(' ')}
        </p>
      )}
    </form>
  );
}

export function AdminUsersPage(props: AdminUsersPageProps) {
  const back = listQuery(props.search, props.page);
  const { failure } = props;
  return (
    <Layout title="Users" user={props.viewer} csrfToken={props.csrfToken} section="admin" flash={props.flash}>
      <PageHeader title="Users" subtitle="Every account of this Rampart: change plans, disable and enable accounts." />
      {failure && (
        <Alert kind="error">
          <p>Nothing was changed: {failure.message ?? 'see the row below.'}</p>
        </Alert>
      )}
      <form method="get" action="/admin/users" class="filters" role="search">
        <div class="field">
          <label for="f-search">Email contains</label>
          <input id="f-search" name="search" type="search" class="search" value={props.search} maxLength={255} />
        </div>
        <button type="submit" class="secondary">
          Search
        </button>
        {props.search && <a href="/admin/users">Clear</a>}
      </form>
      {props.accounts.length === 0 ? (
        <EmptyState title={props.search ? `No account's email contains "${props.search}"` : 'No accounts on this page'}>
          <p>
            <a href="/admin/users">Show every account</a>
          </p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Accounts</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Plan</th>
                <th scope="col">Email verified</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.accounts.map((account) => {
                const errors = failure?.userId === account.id ? failure.errors : undefined;
                return (
                  <tr id={`user-${account.id}`}>
                    <td>
                      {account.email}
                      {account.id === props.viewer.id && <span class="muted"> (you)</span>}
                    </td>
                    <td>{account.name}</td>
                    <td>
                      <RoleForm account={account} csrfToken={props.csrfToken} back={back} errors={errors?.role} />
                    </td>
                    <td>{account.email_verified_at ? 'Yes' : 'No'}</td>
                    <td>
                      {account.disabled_at ? (
                        <>
                          <span class="badge status-disabled">Disabled</span> <Time value={account.disabled_at} />
                        </>
                      ) : (
                        'Active'
                      )}
                    </td>
                    <td>
                      <Time value={account.created_at} />
                    </td>
                    <td>
                      {account.id === props.viewer.id && !errors?.disabled ? (
                        <span class="muted">Your account</span>
                      ) : (
                        <DisableForm account={account} csrfToken={props.csrfToken} back={back} errors={errors?.disabled} />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pagination meta={props.meta} path="/admin/users" query={{ search: props.search || undefined }} />
    </Layout>
  );
}
