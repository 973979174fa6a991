import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadManifestDirectory, writeManifestDirectoryStore } from './node/index.js';
import { decodeNode, hashBytes } from './node-hash.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function world(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-air-'));
  dirs.push(dir);
  for (const [path, json] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), typeof json === 'string' ? json : JSON.stringify(json, null, 2));
  }
  return dir;
}

const point = { $kind: 'defschema', name: 'com.acme/Point@1', type: { record: { x: { int: {} }, y: { int: {} } } } };
const plan = {
  $kind: 'defplan',
  name: 'com.acme/Plan@1',
  input: 'com.acme/Point@1',
  steps: [{ id: 'end', op: 'end' }],
  edges: [],
  required_caps: [],
  allowed_effects: [],
};
const manifest = {
  $kind: 'manifest',
  schemas: [{ name: 'com.acme/Point@1' }],
  modules: [],
  plans: [{ name: 'com.acme/Plan@1' }],
  caps: [],
  policies: [],
};

describe('manifest directory store', () => {
  it('loads manifest.air.json with definitions from any *.air.json below, resolves hashes, writes the node store', () => {
    const dir = world({
      'manifest.air.json': manifest,
      'defs/schemas.air.json': [point],
      'plans/plan.air.json': plan,
      'notes.txt': 'ignored',
    });
    const loaded = loadManifestDirectory(dir);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.diagnostics));
    expect(loaded.value.manifest.schemas[0]!.hash).toBe('sha256:9b74eadb8810612f1becfbf9b4502cccb0ef290b90e3e912b316fc279e779add');
    expect(loaded.value.manifest.plans[0]!.hash).toBe('sha256:d22044a0312bc264029427c93af440d1c27749468f7bd94cdad3100849b343ae');
    const written = writeManifestDirectoryStore(dir, loaded.value);
    expect(written.length).toBe(4);
    for (const path of written.filter((p) => p.includes('.store'))) {
      const bytes = readFileSync(path);
      expect(`sha256:${path.slice(-64)}`).toBe(hashBytes(bytes));
    }
    expect(decodeNode(readFileSync(join(dir, 'manifest.air.cbor')))).toEqual(JSON.parse(JSON.stringify(loaded.value.manifest)));
    expect(existsSync(join(dir, '.store/nodes/sha256', loaded.value.manifestHash.slice(7)))).toBe(true);
    expect(loadManifestDirectory(dir).ok).toBe(true);
  });

  it('says which file a problem is in', () => {
    const dir = world({
      'manifest.air.json': manifest,
      'defs/point.air.json': point,
      'defs/plan.air.json': { ...plan, input: 'com.acme/Nope@1' },
    });
    expect(loadManifestDirectory(dir)).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'ref.unresolved', path: '/input', name: 'com.acme/Plan@1', file: 'defs/plan.air.json' }],
    });
  });

  it('reports a missing manifest and broken JSON', () => {
    expect(loadManifestDirectory(world({}))).toMatchObject({ ok: false, diagnostics: [{ code: 'store.no-manifest' }] });
    expect(
      loadManifestDirectory(world({ 'manifest.air.json': { ...manifest, schemas: [], plans: [] }, 'bad.air.json': '{ nope' })),
    ).toMatchObject({ ok: false, diagnostics: [{ code: 'store.json', file: 'bad.air.json' }] });
  });
  it('reads files that start with a byte-order mark, places JSON errors at line and column, and files manifest problems under the manifest', () => {
    const bom = '\ufeff' + JSON.stringify(point);
    expect(
      loadManifestDirectory(
        world({ 'manifest.air.json': '\ufeff' + JSON.stringify(manifest), 'defs/point.air.json': bom, 'plan.air.json': plan }),
      ).ok,
    ).toBe(true);
    const broken = loadManifestDirectory(
      world({
        'manifest.air.json': { ...manifest, schemas: [], plans: [] },
        'bad.air.json': '{\n  "$kind": "defschema",\n  "name": "a.b/C@1",\n}\n',
      }),
    );
    expect(broken).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'store.json', file: 'bad.air.json', message: expect.stringMatching(/^bad\.air\.json:4:1 is not valid JSON/) }],
    });
    const unknownField = loadManifestDirectory(
      world({ 'manifest.air.json': { ...manifest, extra: 1 }, 'defs/point.air.json': point, 'plan.air.json': plan }),
    );
    expect(unknownField).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'structure.unknown-field', path: '/extra', file: 'manifest.air.json' }],
    });
  });
});
