/** GET /scans/:uuid/delete: what deleting the scan removes, and the button that does it. */
import type { User } from '../../db/schema.js';
import type { ScanResource } from '../../scans/scans.schema.js';
import { CsrfField, PageHeader } from '../components.js';
import { Layout } from '../layout.js';

export function DeleteScanPage(props: { user: User; csrfToken: string; scan: ScanResource; runCount: number; current: boolean }) {
  const { scan } = props;
  return (
    <Layout title={`Delete ${scan.scan_name}`} user={props.user} csrfToken={props.csrfToken} section="scans">
      <PageHeader title={`Delete “${scan.scan_name}”?`} />
      <div class="card">
        <p>Deleting this scan removes, for good:</p>
        <ul>
          <li>
            the scan and its schedule ({scan.scan_frequency}, targets {scan.scan_target});
          </li>
          <li>
            its {props.runCount} run{props.runCount === 1 ? '' : 's'} and their reports;
          </li>
          <li>the vulnerabilities this scan found, with their triage;</li>
          {scan.zap_login_script && <li>its stored login script;</li>}
        </ul>
        {props.current && <p class="alert alert-warning">A run of this scan is in progress: it will be stopped.</p>}
        <p>The targets stay in your target list. This cannot be undone.</p>
        <form method="post" action={`/scans/${scan.uuid}/delete`} class="actions">
          <CsrfField token={props.csrfToken} />
          <button type="submit" class="danger">
            Delete scan
          </button>
          <a class="button secondary" href={`/scans/${scan.uuid}`}>
            Cancel
          </a>
        </form>
      </div>
    </Layout>
  );
}
