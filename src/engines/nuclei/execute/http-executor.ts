/**
 * The http executor (`TemplateExecutor`, contract.ts): runs a template's `http` blocks on one
 * HTTP(S) service and returns its matches. Blocks run in order (or as a simple `flow:` says);
 * operators are compiled once per template object; the DSL and jq are injected into the match
 * layer. Files: http-variables (helpers, randstr, template variables), http-raw and http-request
 * (building a request), http-send (redirects, cookies, sharing), http-block (one block),
 * http-result (events and matches), http-flow (flow expressions), payloads.
 */
import { compileExpression, expandMarkers, isDslError, type CompiledExpression, type DslError } from '../dsl/index.js';
import {
  compileOperators,
  loadJsonQuery,
  OperatorCompileError,
  type DslEvaluator,
  type ExtractorDeps,
  type ExtractorSpec,
  type MatcherSpec,
} from '../match/index.js';
import { isSimpleFlow } from '../templates/features.js';
import type { Extractor, HttpRequest, Matcher, Template } from '../templates/template.types.js';
import type { TemplateExecutor, TemplateOutcome } from './contract.js';
import { runHttpBlock, type CompiledBlock, type HttpExecution } from './http-block.js';
import { CookieJar } from './http-cookies.js';
import { evaluateSimpleFlow, FlowSyntaxError } from './http-flow.js';
import { evaluateTemplateVariables, helperVariables, inputUrl, makeConstants, printUrl } from './http-variables.js';

/** Compiled operators per template object (a loaded corpus is reused across services and runs). */
const compiledTemplates = new WeakMap<Template, CompiledBlock[] | { error: string }>();

const INDEXED = /_\d+/;

/** The model's matcher in the YAML shape the match layer compiles. */
function matcherSpec(m: Matcher): MatcherSpec {
  return {
    type: m.type,
    ...(m.name === undefined ? {} : { name: m.name }),
    ...(m.part === undefined ? {} : { part: m.part }),
    condition: m.condition,
    negative: m.negative,
    internal: m.internal,
    'case-insensitive': m.caseInsensitive,
    'match-all': m.matchAll,
    ...(m.encoding === undefined ? {} : { encoding: m.encoding }),
    words: m.words,
    regex: m.regex,
    binary: m.binary,
    status: m.status,
    size: m.size,
    dsl: m.dsl,
    xpath: m.xpath,
  };
}

/** The model's extractor in the YAML shape the match layer compiles. */
function extractorSpec(e: Extractor): ExtractorSpec {
  return {
    type: e.type,
    ...(e.name === undefined ? {} : { name: e.name }),
    ...(e.part === undefined ? {} : { part: e.part }),
    internal: e.internal,
    'case-insensitive': e.caseInsensitive,
    ...(e.group === undefined ? {} : { group: e.group }),
    ...(e.attribute === undefined ? {} : { attribute: e.attribute }),
    regex: e.regex,
    kval: e.kval,
    json: e.json,
    xpath: e.xpath,
    dsl: e.dsl,
  };
}

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
        operators: compileOperators({
          matchers: block.matchers.map(matcherSpec),
          extractors: block.extractors.map(extractorSpec),
          'matchers-condition': block.matchersCondition,
        }),
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

/** Compiled DSL expressions, shared by every template (the corpus repeats the same few thousand). */
const expressions = new Map<string, CompiledExpression | DslError>();
const MAX_EXPRESSIONS = 20_000;

/** The DSL evaluator the match layer uses: compiled once per expression text, errors as Error values. */
export const DSL_EVALUATOR: DslEvaluator = {
  evaluate(expression, vars) {
    let compiled = expressions.get(expression);
    if (compiled === undefined) {
      if (expressions.size >= MAX_EXPRESSIONS) expressions.clear();
      compiled = compileExpression(expression);
      expressions.set(expression, compiled);
    }
    if (isDslError(compiled)) return new Error(compiled.message);
    const value = compiled.evaluate(vars);
    return isDslError(value) ? new Error(value.message) : value;
  },
};

async function operatorDeps(template: Template): Promise<ExtractorDeps> {
  const deps: ExtractorDeps = { dsl: DSL_EVALUATOR, expand: (text, vars) => expandMarkers(text, vars) };
  if (template.http.some((block) => block.extractors.some((e) => e.type === 'json'))) deps.json = await loadJsonQuery();
  return deps;
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
  const constants = makeConstants([JSON.stringify(template.http), JSON.stringify(template.variables)]);
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
    deps: await operatorDeps(template),
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
