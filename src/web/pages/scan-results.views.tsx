/**
 * What an Unmanaged scan's page offers for results from the account's own network: the local
 * agent's download (a POST form: each download revokes the previous agent, so it is never a link a
 * browser could prefetch), and the upload of a scanner's results file with the equivalent
 * `rampart import` and curl commands.
 */
import type { FieldErrors } from '../../shared/errors.js';
import type { ScanResource } from '../../scans/scans.schema.js';
import { CopyButton } from '../components.js';

export function ResultsUpload(props: { scan: ScanResource; csrfToken: string; baseUrl: string; credentialDays: number; errors?: FieldErrors | undefined }) {
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
      <h3>The local agent</h3>
      <p>
        Run the agent on a machine inside the network to scan: <code>node agent.js</code> (Node.js 20 or later, nothing to install) scans this scan's targets
        and uploads the results. Add <code>--daemon</code> to keep it running for scheduled runs.
      </p>
      <form method="post" action={`/scans/${scan.uuid}/agent`} class="stack">
        <input type="hidden" name="_csrf" value={props.csrfToken} />
        <p class="hint" id="agent-hint">
          A new download revokes the previous agent of this scan. The agent's credential expires {props.credentialDays} days after the download.
        </p>
        <button type="submit" aria-describedby="agent-hint">
          Download the agent
        </button>
      </form>
      <h3>Or upload a results file</h3>
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
