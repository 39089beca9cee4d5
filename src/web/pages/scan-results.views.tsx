/**
 * The results upload of an Unmanaged scan: the scan waits for results from the account's own
 * network. The local agent (issue 18) does not exist yet, and the page says so plainly rather
 * than offer a download that does not work; it offers the upload form and the equivalent
 * `rampart import` and curl commands instead.
 */
import type { FieldErrors } from '../../shared/errors.js';
import type { ScanResource } from '../../scans/scans.schema.js';
import { CopyButton } from '../components.js';

export function ResultsUpload(props: { scan: ScanResource; csrfToken: string; baseUrl: string; errors?: FieldErrors | undefined }) {
  const { scan } = props;
  const error = props.errors?.file;
  const curl = `curl -X POST -H "Authorization: Bearer $RAMPART_TOKEN" -F "file=@results.xml" ${props.baseUrl}/api/scans/${scan.uuid}/results`;
  const cli = `rampart import --scan ${scan.uuid} results.xml`;
  return (
    <section class="card" aria-labelledby="results-title">
      <h2 id="results-title">Results from your network</h2>
      <p>
        This scan waits for results from your own network: run a scanner there and upload what it wrote. Each upload becomes a run of this scan, and its findings
        join your vulnerabilities.
      </p>
      <p class="alert alert-info">The local agent is not available in this version; upload results from your own scanner.</p>
      <form method="post" action={`/scans/${scan.uuid}/results?_csrf=${encodeURIComponent(props.csrfToken)}`} enctype="multipart/form-data" class="stack">
        <div class={`field${error ? ' has-error' : ''}`}>
          <label for="f-file">Results file</label>
          <input type="file" id="f-file" name="file" required aria-invalid={error ? 'true' : undefined} aria-describedby={`f-file-hint${error ? ' f-file-error' : ''}`} />
          <p class="hint" id="f-file-hint">
            nmap XML, OpenVAS/Greenbone XML or CSV, ZAP XML or JSON, nuclei JSON Lines: the format is detected from the content.
          </p>
          {error && (
            <p class="field-error" id="f-file-error">
              {error.join(' ')}
            </p>
          )}
        </div>
        <button type="submit">Upload results</button>
      </form>
      <h3>From the command line</h3>
      <p>On the server, as an administrator:</p>
      <div class="secret">
        <code id="cmd-import">{cli}</code>
        <CopyButton target="cmd-import" />
      </div>
      <p>From anywhere, with an API token (see Settings for API keys):</p>
      <div class="secret">
        <code id="cmd-curl">{curl}</code>
        <CopyButton target="cmd-curl" />
      </div>
    </section>
  );
}
