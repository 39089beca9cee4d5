/**
 * OS command injection: a "ping" page whose host goes into a shell command line and whose output
 * is shown, and a blind form whose command's output is thrown away; each with a twin that runs the
 * same program without a shell. The base commands are harmless (`echo`, `printf`): the weakness is
 * the shell, not the program.
 */
import { execFile } from 'node:child_process';
import { escapeHtml, page, param, type VulnPage } from '../app.js';

const RULE = 'rampart:web-command-injection';

/** Runs a program and resolves with its output (errors as output: the pages show what ran). */
function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) => resolve(`${stdout}${stderr}${error && !stdout && !stderr ? error.message : ''}`));
  });
}

/** The command line through a shell: what the vulnerable pages do. */
const shell = (command: string): Promise<string> => run('/bin/sh', ['-c', command]);

const greetForm = (action: string): string =>
  `<form method="post" action="${action}"><label>Your name <input name="name" value="guest"></label> <button type="submit">Greet</button></form>`;

export const PAGES: VulnPage[] = [
  {
    path: '/cmdi',
    link: '/cmdi?host=127.0.0.1',
    title: 'Ping a host',
    expect: { ruleId: RULE, parameter: 'host', method: 'GET' },
    async handle(request, reply) {
      const output = await shell(`echo Pinging ${param(request, 'host')}`);
      return reply.type('text/html').send(page('Ping a host', `<pre>${escapeHtml(output)}</pre>`));
    },
  },
  {
    path: '/safe/cmdi',
    link: '/safe/cmdi?host=127.0.0.1',
    title: 'Ping a host (safe)',
    async handle(request, reply) {
      // The same program, its argument passed as one: no shell parses the value.
      const output = await run('echo', ['Pinging', param(request, 'host')]);
      return reply.type('text/html').send(page('Ping a host', `<pre>${escapeHtml(output)}</pre>`));
    },
  },
  {
    path: '/cmdi/blind',
    methods: ['GET', 'POST'],
    link: '/cmdi/blind',
    title: 'Greeting card',
    expect: { ruleId: RULE, parameter: 'name', method: 'POST' },
    async handle(request, reply) {
      if (request.method === 'GET') return reply.type('text/html').send(page('Greeting card', greetForm('/cmdi/blind')));
      await shell(`printf 'Hello %s\\n' ${param(request, 'name')} > /dev/null`);
      return reply.type('text/html').send(page('Greeting card', '<p>Your card is on its way.</p>'));
    },
  },
  {
    path: '/safe/cmdi/blind',
    methods: ['GET', 'POST'],
    link: '/safe/cmdi/blind',
    title: 'Greeting card (safe)',
    async handle(request, reply) {
      if (request.method === 'GET') return reply.type('text/html').send(page('Greeting card', greetForm('/safe/cmdi/blind')));
      await run('printf', ['Hello %s\n', param(request, 'name')]);
      return reply.type('text/html').send(page('Greeting card', '<p>Your card is on its way.</p>'));
    },
  },
];
