import { CAP_TYPES, EFFECT_CATALOG } from './builtins.js';
import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, type AirResult, diagnostic, pointer } from './diagnostic.js';
import { describeType, isAssignable } from './expr-types.js';
import { type Hash, hashNode } from './node-hash.js';
import { type AirDefinition, type ManifestNode, parseNode } from './nodes.js';
import type { AirType } from './types.js';
import { checkPlan } from './validate-plan.js';
import { checkValue } from './values.js';
import { createWorld, type World } from './world.js';

/** A manifest that passed validation, with every reference's hash filled in, and its world. */
export interface ValidatedManifest {
  manifest: ManifestNode & { schemas: { name: string; hash: string }[] };
  manifestHash: Hash;
  world: World;
}

const LISTS = [
  ['schemas', 'defschema'],
  ['modules', 'defmodule'],
  ['plans', 'defplan'],
  ['caps', 'defcap'],
  ['policies', 'defpolicy'],
] as const;

/**
 * Validates a manifest and the definitions it lists, all of AIR v1 §13 at once: every node's structure;
 * names unique per kind; the manifest's references resolve (and their hashes match when given); schemas
 * expand without cycles; modules' schemas exist and their effects and cap slots are known; caps have a
 * built-in type and a compatible schema; policies name known effect kinds; plans (see `checkPlan`);
 * routing, triggers, default policy and grants, and module bindings resolve. Built-in `sys/*` definitions
 * are loaded unless `builtins` is false. Diagnostics carry a JSON pointer, the definition name and the step id.
 */
export function validateManifest(
  manifestJson: unknown,
  definitionsJson: readonly unknown[],
  options: { builtins?: boolean } = {},
): AirResult<ValidatedManifest> {
  const problems: AirDiagnostic[] = [];
  const world = createWorld(options.builtins ?? true);
  const parsedManifest = parseNode(manifestJson);
  if (!parsedManifest.ok) return { ok: false, diagnostics: parsedManifest.diagnostics };
  if (parsedManifest.value.$kind !== 'manifest') {
    return {
      ok: false,
      diagnostics: [diagnostic('manifest.kind', `expected a manifest, found a ${parsedManifest.value.$kind}`, '/$kind')],
    };
  }
  const manifest = parsedManifest.value;
  const offered = new Map<string, AirDefinition>();
  definitionsJson.forEach((json, i) => {
    const parsed = parseNode(json);
    if (!parsed.ok) {
      problems.push(...parsed.diagnostics);
      return;
    }
    if (parsed.value.$kind === 'manifest') {
      problems.push(diagnostic('manifest.nested', 'a definition file holds a second manifest', `/${i}`));
      return;
    }
    const key = `${parsed.value.$kind} ${parsed.value.name}`;
    if (offered.has(key))
      problems.push(
        diagnostic('manifest.duplicate-name', `two ${parsed.value.$kind} definitions are named "${parsed.value.name}"`, '', {
          name: parsed.value.name,
        }),
      );
    else offered.set(key, parsed.value);
  });

  const filled: Record<string, { name: string; hash: string }[]> = {};
  for (const [list, kind] of LISTS) {
    filled[list] = [];
    const seen = new Set<string>();
    manifest[list].forEach((ref, i) => {
      const path = pointer(pointer('', list), i);
      if (seen.has(ref.name)) {
        problems.push(diagnostic('manifest.duplicate-name', `"${ref.name}" is listed twice in ${list}`, path, { name: ref.name }));
        return;
      }
      seen.add(ref.name);
      const node = offered.get(`${kind} ${ref.name}`);
      if (node === undefined) {
        problems.push(
          diagnostic('manifest.unresolved', `${list} lists "${ref.name}", but no ${kind} of that name was given`, path, { name: ref.name }),
        );
        return;
      }
      const hash = hashNode(node as unknown as CborValue);
      if (ref.hash !== undefined && ref.hash !== hash) {
        problems.push(
          diagnostic(
            'manifest.hash-mismatch',
            `"${ref.name}" is listed with ${ref.hash}, but its definition hashes to ${hash}`,
            pointer(path, 'hash'),
            { name: ref.name },
          ),
        );
      }
      const clash = world.add(node, false, path);
      if (clash) problems.push(clash);
      filled[list]!.push({ name: ref.name, hash });
    });
  }

  for (const entry of world.all('defschema')) if (!entry.builtin) world.schema(entry.node.name, '/type', problems);
  checkModules(world, problems);
  checkCaps(world, problems);
  checkPolicies(world, problems);
  const defaultGrants = checkManifestWiring(world, manifest, problems);
  const keyedReducers = new Map<string, AirType | undefined>();
  for (const module of world.all('defmodule')) {
    if (module.node.key_schema !== undefined)
      keyedReducers.set(module.node.name, world.resolveSchemaRef(module.node.key_schema, '/key_schema', [])?.type);
  }
  for (const route of manifest.routing?.events ?? []) {
    if (route.key_field !== undefined && !keyedReducers.has(route.reducer)) keyedReducers.set(route.reducer, undefined);
  }
  for (const plan of world.all('defplan')) checkPlan(world, plan, { defaultGrants, keyedReducers }, problems);

  if (problems.length > 0) return { ok: false, diagnostics: problems };
  const completed = { ...manifest, ...filled } as ValidatedManifest['manifest'];
  return { ok: true, value: { manifest: completed, manifestHash: hashNode(completed as unknown as CborValue), world } };
}

function checkModules(world: World, problems: AirDiagnostic[]): void {
  for (const { node, builtin } of world.all('defmodule')) {
    if (builtin) continue;
    const where = { name: node.name };
    const abi = node.abi.reducer;
    for (const field of ['state', 'event', 'annotations'] as const)
      world.resolveSchemaRef(abi[field], `/abi/reducer/${field}`, problems, where);
    world.resolveSchemaRef(node.key_schema, '/key_schema', problems, where);
    (abi.effects_emitted ?? []).forEach((kind, i) => {
      if (EFFECT_CATALOG[kind] === undefined)
        problems.push(diagnostic('module.unknown-effect', `unknown effect kind "${kind}"`, `/abi/reducer/effects_emitted/${i}`, where));
    });
    for (const [slot, capType] of Object.entries(abi.cap_slots ?? {})) {
      if (CAP_TYPES[capType] === undefined)
        problems.push(
          diagnostic(
            'module.unknown-cap-type',
            `cap slot "${slot}" has unknown capability type "${capType}"`,
            pointer('/abi/reducer/cap_slots', slot),
            where,
          ),
        );
    }
  }
}

function checkCaps(world: World, problems: AirDiagnostic[]): void {
  for (const { node, builtin } of world.all('defcap')) {
    if (builtin) continue;
    const where = { name: node.name };
    const builtinSchema = CAP_TYPES[node.cap_type];
    if (builtinSchema === undefined) {
      problems.push(
        diagnostic(
          'cap.unknown-type',
          `unknown capability type "${node.cap_type}"; built-in types: ${Object.keys(CAP_TYPES).join(', ')}`,
          '/cap_type',
          where,
        ),
      );
      continue;
    }
    const own = world.resolveSchemaRef(node.schema, '/schema', problems, where);
    const standard = world.schema(builtinSchema, '', []);
    if (own === undefined || standard === undefined) continue;
    if (own.type.kind !== 'record' || standard.type.kind !== 'record') {
      problems.push(
        diagnostic('cap.incompatible-schema', `the schema of a ${node.cap_type} capability must be a record`, '/schema', where),
      );
      continue;
    }
    for (const [field, type] of Object.entries(standard.type.fields)) {
      const mine = own.type.fields[field];
      if (mine === undefined) {
        if (type.kind !== 'option')
          problems.push(
            diagnostic(
              'cap.incompatible-schema',
              `a ${node.cap_type} capability needs the field "${field}" (${describeType(type)})`,
              '/schema',
              where,
            ),
          );
      } else if (!isAssignable(mine, type) && !isAssignable(mine, type.kind === 'option' ? type.item : type)) {
        problems.push(
          diagnostic(
            'cap.incompatible-schema',
            `field "${field}" is ${describeType(mine)}, but ${node.cap_type} defines it as ${describeType(type)}`,
            '/schema',
            where,
          ),
        );
      }
    }
  }
}

function checkPolicies(world: World, problems: AirDiagnostic[]): void {
  for (const { node } of world.all('defpolicy')) {
    node.rules.forEach((rule, i) => {
      const kind = rule.when.effect_kind;
      if (kind !== undefined && !kind.endsWith('.*') && EFFECT_CATALOG[kind] === undefined) {
        problems.push(
          diagnostic(
            'policy.unknown-effect',
            `unknown effect kind "${kind}"; known: ${Object.keys(EFFECT_CATALOG).join(', ')}`,
            `/rules/${i}/when/effect_kind`,
            { name: node.name },
          ),
        );
      }
      const origin = rule.when.origin_name;
      if (origin !== undefined && world.get('defplan', origin) === undefined && world.get('defmodule', origin) === undefined) {
        problems.push(
          diagnostic('policy.unknown-origin', `origin_name "${origin}" is neither a plan nor a module`, `/rules/${i}/when/origin_name`, {
            name: node.name,
          }),
        );
      }
    });
  }
}

function checkManifestWiring(world: World, manifest: ManifestNode, problems: AirDiagnostic[]): Set<string> {
  (manifest.routing?.events ?? []).forEach((route, i) => {
    const path = `/routing/events/${i}`;
    world.resolveSchemaRef(route.event, `${path}/event`, problems);
    if (world.get('defmodule', route.reducer) === undefined)
      problems.push(diagnostic('manifest.unknown-reducer', `no reducer module named "${route.reducer}"`, `${path}/reducer`));
  });
  (manifest.routing?.inboxes ?? []).forEach((inbox, i) => {
    if (world.get('defmodule', inbox.reducer) === undefined)
      problems.push(diagnostic('manifest.unknown-reducer', `no reducer module named "${inbox.reducer}"`, `/routing/inboxes/${i}/reducer`));
  });
  (manifest.triggers ?? []).forEach((trigger, i) => {
    const path = `/triggers/${i}`;
    const event = world.resolveSchemaRef(trigger.event, `${path}/event`, problems);
    const plan = world.get('defplan', trigger.plan);
    if (plan === undefined) {
      problems.push(diagnostic('manifest.unknown-plan', `no plan named "${trigger.plan}"`, `${path}/plan`));
      return;
    }
    const input = world.resolveSchemaRef(plan.node.input, '/input', []);
    if (event !== undefined && input !== undefined && event.schemaHash !== input.schemaHash) {
      problems.push(
        diagnostic(
          'manifest.trigger-input',
          `plan "${trigger.plan}" takes ${describeType(input.type)}, but the trigger's event is ${describeType(event.type)}`,
          `${path}/event`,
        ),
      );
    }
  });
  const defaults = manifest.defaults;
  if (defaults?.policy !== undefined && world.get('defpolicy', defaults.policy) === undefined) {
    problems.push(diagnostic('manifest.unknown-policy', `default policy "${defaults.policy}" is not a listed policy`, '/defaults/policy'));
  }
  const grants = new Set<string>();
  (defaults?.cap_grants ?? []).forEach((grant, i) => {
    const path = `/defaults/cap_grants/${i}`;
    if (grants.has(grant.name))
      problems.push(diagnostic('manifest.duplicate-name', `two default grants are named "${grant.name}"`, `${path}/name`));
    grants.add(grant.name);
    const cap = world.get('defcap', grant.cap);
    if (cap === undefined) {
      problems.push(diagnostic('manifest.unknown-cap', `grant "${grant.name}" names no known capability "${grant.cap}"`, `${path}/cap`));
      return;
    }
    const schema = world.resolveSchemaRef(cap.node.schema, '/schema', []);
    if (schema !== undefined) problems.push(...checkValue(grant.params, schema.type, `${path}/params`));
  });
  for (const [moduleName, binding] of Object.entries(manifest.module_bindings ?? {})) {
    const path = pointer('/module_bindings', moduleName);
    const module = world.get('defmodule', moduleName);
    if (module === undefined) {
      problems.push(diagnostic('manifest.unknown-module', `no module named "${moduleName}"`, path));
      continue;
    }
    for (const [slot, grant] of Object.entries(binding.slots)) {
      if (!Object.hasOwn(module.node.abi.reducer.cap_slots ?? {}, slot))
        problems.push(
          diagnostic('manifest.unknown-slot', `module "${moduleName}" has no cap slot "${slot}"`, pointer(pointer(path, 'slots'), slot)),
        );
      if (!grants.has(grant))
        problems.push(
          diagnostic(
            'manifest.unknown-grant',
            `slot "${slot}" is bound to "${grant}", which is not a default grant`,
            pointer(pointer(path, 'slots'), slot),
          ),
        );
    }
  }
  return grants;
}
