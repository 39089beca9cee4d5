/**
 * The http executor (`TemplateExecutor`, contract.ts): runs a template's `http` blocks on one
 * HTTP(S) service and returns its matches. Blocks run in order (or as a simple `flow:` says);
 * operators are compiled once per template object; the DSL and jq are injected into the match
 * layer. The folder README lists the files and their roles.
 */
import { OperatorCompileError } from '../match/index.js';
import { isSimpleFlow } from '../templates/features.js';
import type { HttpRequest, Template } from '../templates/template.types.js';
import type { TemplateExecutor, TemplateOutcome } from './contract.js';
import { runHttpBlock, type CompiledBlock, type HttpExecution } from './http-block.js';
import { CookieJar } from './http-cookies.js';
import { evaluateSimpleFlow, FlowSyntaxError } from './http-flow.js';
import { compileBlockOperators, operatorDeps } from './operators.js';
import { evaluateTemplateVariables, helperVariables, inputUrl, makeConstants, printUrl } from './http-variables.js';

/** Compiled operators per template object (a loaded corpus is reused across services and runs). */
const compiledTemplates = new WeakMap<Template, CompiledBlock[] | { error: string }>();

const INDEXED = /_\d+/;

/** nuclei's NeedsRequestCondition: a matcher's or extractor's DSL or part names `x_N`. */
function needsRequestCondition(block: HttpRequest): boolean {
  const texts = [...block.matchers.flatMap((m) => [...m.dsl, m.part ?? '']), ...block.extractors.flatMap((e) => [...e.dsl, e.part ?? ''])];
  return block.reqCondition || texts.some((text) => INDEXED.test(text));
}

function compileTemplate(template: Template): CompiledBlock[] | { error: string } {
  let compiled = compiledTemplates.get(template);
  if (compiled === undefined) {
    try {
      compiled = template.http.map((block) => ({
        operators: compileBlockOperators(block),
        reqCondition: needsRequestCondition(block),
        hasMatchers: block.matchers.length > 0,
        hasOperators: block.matchers.length > 0 || block.extractors.length > 0,
      }));
    } catch (error) {
      if (!(error instanceof OperatorCompileError)) throw error;
      compiled = { error: `operators do not compile: ${error.message}` };
    }
    compiledTemplates.set(template, compiled);
  }
  return compiled;
}

/** Runs a template's http blocks on one HTTP(S) service (see the module comment). */
export const runHttpTemplate: TemplateExecutor = async (template, service, context) => {
  const outcome: TemplateOutcome = { matches: [], requestsSent: 0, requestsShared: 0, notes: [] };
  if (template.http.length === 0) return outcome;
  const compiled = compileTemplate(template);
  if ('error' in compiled) {
    outcome.notes.push(`${template.id}: ${compiled.error}`);
    return outcome;
  }
  if (template.flow !== undefined && !isSimpleFlow(template.flow)) {
    outcome.notes.push(`${template.id}: its flow is JavaScript; not run.`);
    return outcome;
  }
  const input = inputUrl(service);
  const constants = makeConstants(templateTextOf(template));
  const helpers = helperVariables(input, service.address, false);
  const variables = evaluateTemplateVariables(template.variables, { ...helpers, ...context.vars, ...constants }, context.vars);
  const exec: HttpExecution = {
    template,
    service,
    context,
    input: printUrl(input),
    scope: { service, userVars: context.vars, variableDefinitions: template.variables, variables, constants },
    dynamic: {},
    previous: {},
    send: { jar: new CookieJar(), usedKeys: new Set(), sent: 0, shared: 0 },
    deps: await operatorDeps(template.http),
    matches: outcome.matches,
    notes: outcome.notes,
    flow: template.flow !== undefined,
    halted: false,
  };
  const runBlock = (index: number): ReturnType<typeof runHttpBlock> => runHttpBlock(exec, template.http[index]!, compiled[index]!);

  if (template.flow === undefined) {
    for (const index of template.http.keys()) {
      const block = await runBlock(index);
      if (exec.halted || (template.stopAtFirstMatch && block.results)) break;
    }
  } else {
    try {
      await evaluateSimpleFlow(template.flow, async (protocol, index) => {
        if (protocol !== 'http') {
          exec.notes.push(`${template.id}: its flow calls ${protocol}(), which the http executor does not run; taken as no match.`);
          return false;
        }
        if (index === undefined) {
          let status = false;
          for (const i of template.http.keys()) status = (await runBlock(i)).status || status;
          return status;
        }
        if (index < 1 || index > template.http.length) return false;
        return (await runBlock(index - 1)).status;
      });
    } catch (error) {
      if (!(error instanceof FlowSyntaxError)) throw error;
      exec.notes.push(`${template.id}: ${error.message}; not run.`);
    }
  }
  outcome.requestsSent = exec.send.sent;
  outcome.requestsShared = exec.send.shared;
  return outcome;
};

/** The text `makeConstants` reads for `randstr` markers, serialised once per loaded template. */
const templateTexts = new WeakMap<Template, string[]>();
function templateTextOf(template: Template): string[] {
  let text = templateTexts.get(template);
  if (!text) {
    text = [JSON.stringify(template.http), JSON.stringify(template.variables)];
    templateTexts.set(template, text);
  }
  return text;
}
