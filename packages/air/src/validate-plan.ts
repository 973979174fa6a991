import { EFFECT_CATALOG } from './builtins.js';
import { type AirDiagnostic, diagnostic, pointer } from './diagnostic.js';
import { parseExprRef } from './expr-refs.js';
import { describeType, inferExprType, isAssignable, type TypeScope } from './expr-types.js';
import type { DefPlanNode, PlanStep } from './nodes.js';
import type { AirType } from './types.js';
import type { Entry, World } from './world.js';

/** What a plan is checked against beyond its own definition. */
export interface PlanContext {
  /** Grant names the manifest's defaults provide. */
  defaultGrants: ReadonlySet<string>;
  /** Reducers that are keyed, with the key type when known. */
  keyedReducers: ReadonlyMap<string, AirType | undefined>;
}

const HASH_TYPE: AirType = { kind: 'primitive', name: 'hash' };

/**
 * The plan rules of AIR v1 §13: step ids unique; edges name steps; the graph is acyclic; emitted kinds are
 * allowed and known; caps are declared; await_receipt waits on an earlier emit; raise_event targets a
 * reducer with a conforming event (and a key when keyed); await_event names a schema; references resolve
 * to the input, to variables bound by earlier steps, or to earlier steps; guards are bools; end matches output.
 */
export function checkPlan(world: World, entry: Entry<DefPlanNode>, context: PlanContext, problems: AirDiagnostic[]): void {
  const plan = entry.node;
  const name = plan.name;
  const at = (_path: string, stepId?: string) => (stepId === undefined ? { name } : { name, stepId });
  const input = world.resolveSchemaRef(plan.input, '/input', problems, at(''))?.type;
  const output = plan.output === undefined ? undefined : world.resolveSchemaRef(plan.output, '/output', problems, { name });
  const locals = new Map<string, AirType | undefined>();
  for (const [local, ref] of Object.entries(plan.locals ?? {}))
    locals.set(local, world.resolveSchemaRef(ref, pointer('/locals', local), problems, { name })?.type);

  const index = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    if (index.has(step.id))
      problems.push(
        diagnostic('plan.duplicate-step', `step id "${step.id}" is used twice`, pointer(pointer('/steps', i), 'id'), {
          name,
          stepId: step.id,
        }),
      );
    else index.set(step.id, i);
  });
  const parents = new Map<string, string[]>(plan.steps.map((s) => [s.id, []]));
  plan.edges.forEach((edge, i) => {
    for (const end of ['from', 'to'] as const) {
      if (!index.has(edge[end]))
        problems.push(
          diagnostic('plan.unknown-step', `edge ${end} "${edge[end]}": no such step`, pointer(pointer('/edges', i), end), { name }),
        );
    }
    if (index.has(edge.from) && index.has(edge.to)) parents.get(edge.to)!.push(edge.from);
  });
  const cycle = findCycle(
    plan.steps.map((s) => s.id),
    parents,
  );
  if (cycle !== undefined) {
    problems.push(diagnostic('plan.cycle', `the steps form a cycle: ${cycle.join(' -> ')}; a plan is a DAG`, '/edges', { name }));
    return;
  }

  const ancestorsOf = memoAncestors(parents);
  const bindings = new Map<string, { step: PlanStep; type: AirType | undefined }>();
  plan.steps.forEach((step) => {
    const type = bindingType(world, step, bindings);
    const variable = 'bind' in step ? ('as' in step.bind ? step.bind.as : step.bind.effect_id_as) : undefined;
    if (variable !== undefined) bindings.set(step.id, { step, type });
  });
  const scopeFor = (stepId: string | undefined): TypeScope => {
    const visible = stepId === undefined ? [...bindings.keys()] : [...ancestorsOf(stepId)];
    const vars = new Map<string, AirType | undefined>(locals);
    const steps = new Map<string, AirType | undefined>();
    for (const id of visible) {
      const bound = bindings.get(id);
      steps.set(id, bound?.type);
      if (bound !== undefined) {
        const step = bound.step as PlanStep & { bind: { as?: string; effect_id_as?: string } };
        vars.set(step.bind.as ?? step.bind.effect_id_as!, bound.type);
      }
    }
    return input === undefined ? { vars, steps } : { input, vars, steps };
  };
  const checkExpr = (
    expr: unknown,
    path: string,
    stepId: string | undefined,
    expected?: AirType,
    what = 'value',
    extra?: [string, AirType | undefined],
  ): void => {
    const local: AirDiagnostic[] = [];
    const scope = scopeFor(stepId);
    if (extra !== undefined) (scope.vars as Map<string, AirType | undefined>).set(extra[0], extra[1]);
    const type = inferExprType(expr, scope, path, local);
    problems.push(...local.map((d) => ({ ...d, ...at(path, stepId) })));
    if (expected !== undefined && local.length === 0 && !isAssignable(type, expected)) {
      problems.push(
        diagnostic('plan.type', `the ${what} is ${describeType(type)}, but ${describeType(expected)} is required`, path, at(path, stepId)),
      );
    }
  };

  let ends = 0;
  plan.steps.forEach((step, i) => {
    const path = pointer('/steps', i);
    const where = at(path, step.id);
    switch (step.op) {
      case 'emit_effect': {
        const spec = EFFECT_CATALOG[step.kind];
        if (!plan.allowed_effects.includes(step.kind))
          problems.push(
            diagnostic(
              'plan.effect-not-allowed',
              `effect "${step.kind}" is not in allowed_effects (${plan.allowed_effects.join(', ') || 'none'})`,
              pointer(path, 'kind'),
              where,
            ),
          );
        if (spec === undefined)
          problems.push(
            diagnostic(
              'plan.unknown-effect',
              `unknown effect kind "${step.kind}"; known: ${Object.keys(EFFECT_CATALOG).join(', ')}`,
              pointer(path, 'kind'),
              where,
            ),
          );
        if (!plan.required_caps.includes(step.cap) && !context.defaultGrants.has(step.cap)) {
          problems.push(
            diagnostic(
              'plan.cap-not-declared',
              `cap grant "${step.cap}" is neither in required_caps nor in the manifest's default grants`,
              pointer(path, 'cap'),
              where,
            ),
          );
        }
        checkExpr(
          step.params,
          pointer(path, 'params'),
          step.id,
          spec === undefined ? undefined : world.schema(spec.params, '', problems)?.type,
          `params of ${step.kind}`,
        );
        break;
      }
      case 'await_receipt': {
        const ref =
          typeof step.for === 'object' && step.for !== null && typeof (step.for as { ref?: unknown }).ref === 'string'
            ? parseExprRef((step.for as { ref: string }).ref)
            : undefined;
        const emitter =
          ref?.root === 'var'
            ? [...ancestorsOf(step.id)]
                .map((id) => bindings.get(id)?.step)
                .find((s) => s?.op === 'emit_effect' && s.bind.effect_id_as === ref.name)
            : undefined;
        if (emitter === undefined) {
          problems.push(
            diagnostic(
              'plan.await-unknown-effect',
              'await_receipt.for must be {"ref":"@var:<id>"} naming the effect_id_as of an emit_effect step that comes before it',
              pointer(path, 'for'),
              where,
            ),
          );
        }
        break;
      }
      case 'raise_event': {
        const reducer = world.get('defmodule', step.reducer);
        if (reducer === undefined) {
          problems.push(diagnostic('plan.unknown-reducer', `no reducer module named "${step.reducer}"`, pointer(path, 'reducer'), where));
          checkExpr(step.event, pointer(path, 'event'), step.id);
          break;
        }
        const eventType = world.resolveSchemaRef(reducer.node.abi.reducer.event, pointer(path, 'event'), [], where)?.type;
        checkExpr(step.event, pointer(path, 'event'), step.id, eventType, `event for ${step.reducer}`);
        const keyed = context.keyedReducers.has(step.reducer);
        if (keyed && step.key === undefined)
          problems.push(diagnostic('plan.missing-key', `reducer "${step.reducer}" is keyed: raise_event needs a "key"`, path, where));
        if (step.key !== undefined) checkExpr(step.key, pointer(path, 'key'), step.id, context.keyedReducers.get(step.reducer), 'key');
        break;
      }
      case 'await_event': {
        const eventType = world.resolveSchemaRef(step.event, pointer(path, 'event'), problems, where)?.type;
        if (step.where !== undefined)
          checkExpr(step.where, pointer(path, 'where'), step.id, { kind: 'primitive', name: 'bool' }, 'where predicate', [
            step.bind.as,
            eventType,
          ]);
        break;
      }
      case 'assign': {
        const declared = locals.get(step.bind.as);
        checkExpr(step.expr, pointer(path, 'expr'), step.id, declared, `value assigned to local "${step.bind.as}"`);
        break;
      }
      case 'end':
        ends++;
        if (output !== undefined) {
          if (step.result === undefined)
            problems.push(
              diagnostic(
                'plan.result-type',
                `the plan declares an output (${describeType(output.type)}), so "end" needs a result`,
                path,
                where,
              ),
            );
          else checkExpr(step.result, pointer(path, 'result'), step.id, output.type, 'result');
        } else if (step.result !== undefined) {
          checkExpr(step.result, pointer(path, 'result'), step.id);
        }
        break;
    }
  });
  if (output !== undefined && ends === 0)
    problems.push(diagnostic('plan.no-end', 'the plan declares an output but has no "end" step', '/steps', { name }));
  plan.edges.forEach((edge, i) => {
    if (edge.when !== undefined)
      checkExpr(edge.when, pointer(pointer('/edges', i), 'when'), edge.to, { kind: 'primitive', name: 'bool' }, 'guard');
  });
  (plan.invariants ?? []).forEach((inv, i) =>
    checkExpr(inv, pointer('/invariants', i), undefined, { kind: 'primitive', name: 'bool' }, 'invariant'),
  );
}

function bindingType(
  world: World,
  step: PlanStep,
  earlier: ReadonlyMap<string, { step: PlanStep; type: AirType | undefined }>,
): AirType | undefined {
  switch (step.op) {
    case 'emit_effect':
      return HASH_TYPE;
    case 'await_receipt': {
      const ref = typeof step.for === 'object' && step.for !== null ? parseExprRef(String((step.for as { ref?: unknown }).ref)) : undefined;
      const emit = [...earlier.values()].map((b) => b.step).find((s) => s.op === 'emit_effect' && s.bind.effect_id_as === ref?.name);
      const spec = emit?.op === 'emit_effect' ? EFFECT_CATALOG[emit.kind] : undefined;
      return spec === undefined ? undefined : world.schema(spec.receipt, '', [])?.type;
    }
    case 'await_event':
      return world.resolveSchemaRef(step.event, '', [])?.type;
    default:
      return undefined;
  }
}

function findCycle(ids: readonly string[], parents: ReadonlyMap<string, string[]>): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id].reverse();
    state.set(id, 'visiting');
    stack.push(id);
    for (const parent of parents.get(id) ?? []) {
      const found = visit(parent);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

function memoAncestors(parents: ReadonlyMap<string, string[]>): (id: string) => ReadonlySet<string> {
  const memo = new Map<string, Set<string>>();
  const ancestors = (id: string): Set<string> => {
    const cached = memo.get(id);
    if (cached) return cached;
    const out = new Set<string>();
    memo.set(id, out);
    for (const parent of parents.get(id) ?? []) {
      out.add(parent);
      for (const a of ancestors(parent)) out.add(a);
    }
    return out;
  };
  return ancestors;
}
