import { BUILTIN_CAPS, BUILTIN_SCHEMAS } from './builtins.js';
import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, diagnostic } from './diagnostic.js';
import { type Hash, hashNode, isHash } from './node-hash.js';
import type { AirDefinition, SchemaRefJson } from './nodes.js';
import { type AirType, expandType, parseType, schemaHash } from './types.js';

/** A definition with its node hash. */
export interface Entry<N extends AirDefinition = AirDefinition> {
  node: N;
  hash: Hash;
  builtin: boolean;
}

/** A schema resolved to its fully expanded type and schema hash. */
export interface ResolvedSchema {
  type: AirType;
  schemaHash: Hash;
}

type KindOf<K extends AirDefinition['$kind']> = Extract<AirDefinition, { $kind: K }>;

/** The definitions of one world (built-ins and the manifest's), indexed by kind, name and hash. */
export class World {
  private readonly byKind = new Map<string, Map<string, Entry>>();
  private readonly byHash = new Map<string, Entry>();
  private readonly expanded = new Map<string, ResolvedSchema | null>();

  /** Adds a definition; returns a diagnostic if its name is taken for its kind. */
  add(node: AirDefinition, builtin: boolean, path: string): AirDiagnostic | undefined {
    const table = this.byKind.get(node.$kind) ?? new Map<string, Entry>();
    this.byKind.set(node.$kind, table);
    if (table.has(node.name)) {
      const other = table.get(node.name)!;
      return diagnostic(
        'manifest.duplicate-name',
        `two ${node.$kind} definitions are named "${node.name}"${other.builtin ? ' (one is built in)' : ''}`,
        path,
        { name: node.name },
      );
    }
    const entry: Entry = { node, hash: hashNode(node as unknown as CborValue), builtin };
    table.set(node.name, entry);
    this.byHash.set(entry.hash, entry);
    return undefined;
  }

  get<K extends AirDefinition['$kind']>(kind: K, name: string): Entry<KindOf<K>> | undefined {
    return this.byKind.get(kind)?.get(name) as Entry<KindOf<K>> | undefined;
  }

  all<K extends AirDefinition['$kind']>(kind: K): Entry<KindOf<K>>[] {
    return [...(this.byKind.get(kind)?.values() ?? [])] as Entry<KindOf<K>>[];
  }

  byNodeHash(hash: string): Entry | undefined {
    return this.byHash.get(hash);
  }

  /** The expanded type of a named schema (undefined, with diagnostics, when it cannot be expanded). */
  schema(name: string, path: string, problems: AirDiagnostic[]): ResolvedSchema | undefined {
    if (this.expanded.has(name)) return this.expanded.get(name) ?? undefined;
    const entry = this.get('defschema', name);
    if (entry === undefined) return undefined;
    const parsed = parseType(entry.node.type, '/type');
    const expanded = parsed.ok ? expandType(parsed.value, (n) => this.rawType(n), '/type', [name]) : parsed;
    if (!expanded.ok) {
      this.expanded.set(name, null);
      if (!entry.builtin) problems.push(...expanded.diagnostics.map((d) => ({ ...d, name })));
      return undefined;
    }
    const resolved = { type: expanded.value, schemaHash: schemaHash(expanded.value) };
    this.expanded.set(name, resolved);
    void path;
    return resolved;
  }

  private rawType(name: string): AirType | undefined {
    const entry = this.get('defschema', name);
    if (entry === undefined) return undefined;
    const parsed = parseType(entry.node.type);
    return parsed.ok ? parsed.value : undefined;
  }

  /** Resolves a schema reference (name, node hash, or inline type), reporting what does not resolve. */
  resolveSchemaRef(
    ref: SchemaRefJson | undefined,
    path: string,
    problems: AirDiagnostic[],
    where: { name?: string; stepId?: string } = {},
  ): ResolvedSchema | undefined {
    if (ref === undefined) return undefined;
    if (typeof ref === 'string') {
      if (isHash(ref)) {
        const entry = this.byNodeHash(ref);
        if (entry === undefined || entry.node.$kind !== 'defschema') {
          problems.push(diagnostic('ref.unresolved', `no schema has the hash ${ref}`, path, where));
          return undefined;
        }
        return this.schema(entry.node.name, path, problems);
      }
      if (this.get('defschema', ref) === undefined) {
        problems.push(diagnostic('ref.unresolved', `no schema named "${ref}"`, path, where));
        return undefined;
      }
      return this.schema(ref, path, problems);
    }
    const parsed = parseType(ref, path);
    const expanded = parsed.ok ? expandType(parsed.value, (n) => this.rawType(n), path) : parsed;
    if (!expanded.ok) {
      problems.push(...expanded.diagnostics.map((d) => ({ ...d, ...where })));
      return undefined;
    }
    return { type: expanded.value, schemaHash: schemaHash(expanded.value) };
  }
}

/** A world holding the built-in `sys/*` schemas and capability types. */
export function createWorld(withBuiltins = true): World {
  const world = new World();
  if (withBuiltins) for (const node of [...BUILTIN_SCHEMAS, ...BUILTIN_CAPS]) world.add(node as unknown as AirDefinition, true, '');
  return world;
}
