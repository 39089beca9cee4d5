/**
 * OS command injection on every query and form input, by two techniques, the second only when the
 * first proved nothing (one finding per input):
 * - output-based: a shell separator and `echo <token>$((a*b))`: the page must show the token
 *   followed by the product, which only a shell computes (a page echoing the payload back shows
 *   `$((a*b))`, never the number); confirmed by the same payload with other operands;
 * - time-based (timing.ts): `sleep` of two different lengths and a zero-length control.
 * POSIX shells only: Windows `cmd.exe` has no arithmetic an echo can prove this way.
 */
import type { CheckContext, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { onInput, randomProduct, reportOn, sendWith } from './probe.js';
import { webRule } from './rule.js';
import { proveDelayOnInput } from './timing.js';

export const COMMAND_INJECTION = 'rampart:web-command-injection';

/**
 * Ways to run a command `C` after or inside the one the value goes into: separators, command
 * substitution, and breaking out of single or double quotes first.
 */
const SHAPES = [';C', '|C', '&&C', '||C', '\nC', '`C`', '$(C)', "';C;'", '";C;"', "'`C`'", '"$(C)"'];

async function testInput(point: InputPoint, ctx: CheckContext): Promise<void> {
  await onInput(ctx, 'cmdi', point, async () => {
    const report = (technique: string, proof: WebResponse[], summary: string, highlight?: string): void =>
      reportOn(ctx, point, { ruleId: COMMAND_INJECTION, name: `OS command injection (${technique})`, proof, summary, highlight });

    const output = await proveOutput(ctx, point);
    if (output) return report('output-based', output.proof, output.summary, output.highlight);

    const sleeps = SHAPES.map((shape) => ({ label: shape.replace('C', 'sleep N'), value: (seconds: number) => point.value + shape.replace('C', `sleep ${seconds}`) }));
    const delay = await proveDelayOnInput(ctx, 'cmdi', point, sleeps);
    if (!delay) return;
    report('time-based', [delay.short, delay.long, delay.control], `The payload \`${JSON.stringify(delay.probe.label).slice(1, -1)}\` appended to the value delayed the response as asked. ${delay.summary}`);
  });
}

/** Output-based: the token and a product only a shell computes, twice with different operands. */
async function proveOutput(ctx: CheckContext, point: InputPoint): Promise<{ proof: WebResponse[]; summary: string; highlight: string } | null> {
  const computed = async (shape: string): Promise<{ response: WebResponse; marker: string; payload: string } | null> => {
    const token = ctx.token();
    const { expression, product } = randomProduct();
    const payload = shape.replace('C', `echo ${token}$((${expression}))`);
    const marker = `${token}${product}`;
    const response = await sendWith(ctx, point, point.value + payload);
    return response.body.includes(marker) ? { response, marker, payload } : null;
  };
  for (const shape of SHAPES) {
    const first = await computed(shape);
    if (!first) continue;
    const second = await computed(shape);
    if (!second) continue;
    const shown = (payload: string): string => JSON.stringify(payload).slice(1, -1);
    return {
      proof: [first.response, second.response],
      highlight: second.marker,
      summary:
        `Appending \`${shown(first.payload)}\` to the value made the page show \`${first.marker}\`, the product computed by a shell; ` +
        `with other operands (\`${shown(second.payload)}\`) it showed \`${second.marker}\`.`,
    };
  }
  return null;
}

/** The cmdi check(s). */
export const CHECKS: WebCheck[] = [{ id: 'cmdi', kind: 'active', testInput }];

/** The rules its findings use (rows of the web severity table). */
export const RULES: WebRule[] = [
  webRule({
    ruleId: COMMAND_INJECTION,
    name: 'OS command injection',
    description:
      'A request parameter is passed to an operating system shell as part of a command line: shell syntax in the value (separators, substitutions) runs commands of ' +
      "the attacker's choosing with the rights of the web application.",
    solution:
      'Do not call a shell with request data: use the language\'s own library for the task, or start the program directly with its arguments as a list ' +
      '(execFile / spawn without `shell`, subprocess with a list), so that no shell parses the value. Validate the value against an allow-list of what it may be ' +
      '(an IP address, a known name) and run the application with the least privileges it needs.',
    cwe: 'CWE-78',
    references: [
      'https://cheatsheetseries.owasp.org/cheatsheets/OS_Command_Injection_Defense_Cheat_Sheet.html',
      'https://owasp.org/www-community/attacks/Command_Injection',
      'https://cwe.mitre.org/data/definitions/78.html',
    ],
    threat: 'Critical',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    reason:
      'One request over the network, with no privileges and no user interaction (an authenticated page may warrant PR:L, 8.8), runs arbitrary commands on the server ' +
      'as the application: full loss of confidentiality, integrity and availability of what it can reach.',
  }),
];
