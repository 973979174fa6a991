import { describe, expect, it } from 'vitest';
import { parseName, parseRef } from './names.js';
import { type AirType, expandType, parseType, schemaHash, typeToJson } from './types.js';

const t = (json: unknown): AirType => {
  const parsed = parseType(json);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return parsed.value;
};

describe('names and references', () => {
  it('accepts namespace/name@N and content hashes', () => {
    expect(parseName('com.acme/Point@1')).toEqual({ ok: true, value: { namespace: 'com.acme', name: 'Point', version: 1 } });
    expect(parseRef('sha256:' + 'a'.repeat(64))).toEqual({ ok: true, value: { by: 'hash', hash: 'sha256:' + 'a'.repeat(64) } });
  });

  it.each([
    ['Point@1', 'it has no namespace ("namespace/name@N")'],
    ['com.acme/Point', 'it has no version ("@N")'],
    ['com.acme/Point@0', 'its version must be a positive integer'],
    ['com.acme/Point@01', 'its version must be a positive integer'],
    ['Com/Point@1', 'the namespace must be lower case ([a-z][a-z0-9._-]*) and the name must start with a letter'],
  ])('%s is refused: %s', (text, why) => {
    expect(parseName(text, '/name')).toEqual({
      ok: false,
      diagnostic: { code: 'name.invalid', message: `"${text}" is not a valid name: ${why}`, path: '/name' },
    });
  });

  it('refuses a malformed hash reference', () => {
    expect(parseRef('sha256:XYZ', '/ref')).toMatchObject({ ok: false, diagnostic: { code: 'ref.hash', path: '/ref' } });
  });
});

describe('types', () => {
  it('parses every primitive and composite and writes them back', () => {
    const json = {
      record: {
        b: { bool: {} },
        i: { int: {} },
        n: { nat: {} },
        d: { dec128: {} },
        y: { bytes: {} },
        s: { text: {} },
        t: { time: {} },
        du: { duration: {} },
        h: { hash: {} },
        u: { uuid: {} },
        e: { unit: {} },
        l: { list: { text: {} } },
        st: { set: { nat: {} } },
        m: { map: { key: { uuid: {} }, value: { int: {} } } },
        o: { option: { text: {} } },
        v: { variant: { Ok: { unit: {} }, Err: { text: {} } } },
        r: { ref: 'com.acme/Point@1' },
      },
    };
    expect(typeToJson(t(json))).toEqual(json);
  });

  it('reports every problem at once, with pointers', () => {
    const result = parseType(
      { record: { a: { float: {} }, 'bad-name': { text: {} }, m: { map: { key: { bool: {} }, value: { text: 1 } } }, r: { ref: 'nope' } } },
      '/type',
    );
    expect(result).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'type.unknown',
          message:
            'unknown type "float"; expected one of bool, int, nat, dec128, bytes, text, time, duration, hash, uuid, unit, record, variant, list, set, map, option, ref',
          path: '/type/record/a',
        },
        { code: 'type.member-name', message: '"bad-name" is not a valid field name', path: '/type/record/bad-name' },
        { code: 'type.map-key', message: 'map keys must be one of int, nat, text, uuid, hash', path: '/type/record/m/map/key' },
        {
          code: 'type.primitive',
          message: 'the primitive "text" takes an empty object: {"text":{}}',
          path: '/type/record/m/map/value/text',
        },
        { code: 'type.ref', message: 'a type reference names a schema: {"ref":"namespace/Name@N"}', path: '/type/record/r/ref' },
      ],
    });
    expect(parseType({ text: {}, int: {} })).toMatchObject({ ok: false, diagnostics: [{ code: 'type.shape' }] });
    expect(parseType({ variant: {} })).toMatchObject({ ok: false, diagnostics: [{ code: 'type.variant-empty' }] });
  });

  it('expands references and finds cycles and unknown names', () => {
    const schemas: Record<string, AirType> = {
      'a/Point@1': t({ record: { x: { int: {} }, y: { int: {} } } }),
      'a/Line@1': t({ record: { from: { ref: 'a/Point@1' }, to: { ref: 'a/Point@1' } } }),
      'a/Node@1': t({ record: { next: { option: { ref: 'a/Node@1' } } } }),
      'a/Ping@1': t({ list: { ref: 'a/Pong@1' } }),
      'a/Pong@1': t({ list: { ref: 'a/Ping@1' } }),
    };
    const lookup = (name: string) => schemas[name];
    const line = expandType(t({ ref: 'a/Line@1' }), lookup);
    expect(line.ok && typeToJson(line.value)).toEqual({
      record: { from: { record: { x: { int: {} }, y: { int: {} } } }, to: { record: { x: { int: {} }, y: { int: {} } } } },
    });
    expect(expandType(t({ ref: 'a/Node@1' }), lookup)).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'type.cycle',
          message: 'recursive type: a/Node@1 -> a/Node@1; AIR v1 types cannot refer to themselves',
          path: '/record/next/option',
        },
      ],
    });
    expect(expandType(t({ ref: 'a/Ping@1' }), lookup)).toMatchObject({
      ok: false,
      diagnostics: [
        { code: 'type.cycle', message: 'recursive type: a/Ping@1 -> a/Pong@1 -> a/Ping@1; AIR v1 types cannot refer to themselves' },
      ],
    });
    expect(expandType(t({ ref: 'a/Missing@1' }), lookup)).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'type.unknown-ref', message: 'no schema named "a/Missing@1"' }],
    });
  });

  it('schema_hash is the hash of the expanded type, so a reference and its expansion agree', () => {
    const point = t({ record: { x: { int: {} }, y: { int: {} } } });
    const viaRef = expandType(t({ ref: 'a/P@1' }), () => point);
    expect(viaRef.ok && schemaHash(viaRef.value)).toBe(schemaHash(point));
    expect(schemaHash(point)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(schemaHash(t({ record: { y: { int: {} }, x: { int: {} } } }))).toBe(schemaHash(point));
  });
});
