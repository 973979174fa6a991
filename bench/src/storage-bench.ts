import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AgentFS, importTree, Overlay } from '@cairn/agentfs';
import { AgentFS as SdkAgentFS } from 'agentfs-sdk';
import { commitAll, git, listFiles, totalBytes } from './fixtures.js';
import { median, medianOf, scaled, timeOnce, timeOnceAsync } from './measure.js';

/** One row of results: Cairn's median, the alternatives' medians, in milliseconds unless `unit` says otherwise. */
export interface BenchRow {
  tree: string;
  measure: string;
  unit: string;
  cairn: number;
  others: Record<string, number>;
  goal: string;
}

/** Flushes pending writes, so one measurement does not pay for the disk work of the one before. */
function settle(): void {
  execFileSync('sync');
}

/** Runs the storage comparisons on the project tree at `project`, using `work` for scratch space. */
export async function benchStorage(treeName: string, project: string, work: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  mkdirSync(work, { recursive: true });
  const files = listFiles(project);
  const bytes = totalBytes(project, files);
  const smallFiles = files.filter((f) => readFileSync(join(project, f)).byteLength <= 4096);
  commitAll(project);

  // Import: a fresh store, the whole tree, against cp -r of the same tree; runs alternate, each after a sync.
  const importTimes: number[] = [];
  const cpTimes: number[] = [];
  for (let run = 0; run < scaled(5); run++) {
    settle();
    const store = AgentFS.open(join(work, `import-${run}.db`));
    importTimes.push(timeOnce(() => importTree(store, project)));
    store.close();
    const target = join(work, `cp-${run}`);
    settle();
    cpTimes.push(timeOnce(() => execFileSync('cp', ['-r', project, target])));
    rmSync(target, { recursive: true, force: true });
  }
  const importMs = median(importTimes);
  rows.push({
    tree: treeName,
    measure: `import ${files.length} files (${(bytes / 1e6).toFixed(1)} MB)`,
    unit: 'ms',
    cairn: importMs,
    others: { 'cp -r': median(cpTimes) },
    goal: 'within 3x of cp -r',
  });
  const cpMs = median(cpTimes);
  rows.push({
    tree: treeName,
    measure: 'import throughput',
    unit: 'files/s',
    cairn: files.length / (importMs / 1000),
    others: { 'cp -r': files.length / (cpMs / 1000) },
    goal: '',
  });
  rows.push({
    tree: treeName,
    measure: 'import throughput',
    unit: 'MB/s',
    cairn: bytes / 1e6 / (importMs / 1000),
    others: { 'cp -r': bytes / 1e6 / (cpMs / 1000) },
    goal: '',
  });

  const base = AgentFS.open(join(work, 'import-0.db'));

  // Create an overlay: O(1) in the size of the base.
  settle();
  const created: Overlay[] = [];
  const overlayCreate = medianOf(scaled(30), (run) => created.push(Overlay.open(join(work, `agent-${run}.db`), base)));
  const overlayClose = medianOf(created.length, (run) => created[run]!.close());
  const worktree = medianOf(scaled(3), (run) => git(project, 'worktree', 'add', '-q', '--detach', join(work, `wt-${run}`)), settle);
  const cpTree = medianOf(scaled(3), (run) => execFileSync('cp', ['-r', project, join(work, `copy-${run}`)]), settle);
  rows.push({
    tree: treeName,
    measure: 'create an agent overlay',
    unit: 'ms',
    cairn: overlayCreate,
    others: { 'git worktree add': worktree, 'cp -r': cpTree },
    goal: '<= 5 ms, constant',
  });
  rows.push({ tree: treeName, measure: 'close an agent overlay (checkpoint)', unit: 'ms', cairn: overlayClose, others: {}, goal: '' });

  // Read a small file through an overlay (fall-through) against readFileSync and the SDK on the same store.
  const overlay = Overlay.open(join(work, 'agent-read.db'), base);
  overlay.fs.writeFile('/cairn-agent-note.txt', 'the overlay holds something of its own');
  const sample = smallFiles.slice(0, 2000);
  const perRead = (fn: (file: string) => unknown) => medianOf(scaled(7), () => sample.forEach(fn)) / sample.length;
  const overlayRead = perRead((f) => overlay.fs.readFile(f));
  const fsRead = perRead((f) => readFileSync(join(project, f)));
  const sdk = await SdkAgentFS.open({ path: join(work, 'import-0.db') });
  const sdkTimes: number[] = [];
  for (let run = 0; run < scaled(7); run++) {
    sdkTimes.push(
      await timeOnceAsync(async () => {
        for (const f of sample) await sdk.fs.readFile('/' + f);
      }),
    );
  }
  await sdk.close();
  rows.push({
    tree: treeName,
    measure: 'read a small file via overlay (fall-through)',
    unit: 'µs/read',
    cairn: overlayRead * 1000,
    others: { 'fs.readFileSync': fsRead * 1000, 'agentfs-sdk readFile': (median(sdkTimes) / sample.length) * 1000 },
    goal: '<= 3x readFileSync; faster than the SDK',
  });

  // Accept 100 modified files (fast-forward), and the same with the base moved (three-way merges).
  const targets = smallFiles.slice(0, 100);
  const acceptRuns = (moveBase: boolean) =>
    medianOf(
      7,
      () => {
        const result = currentOverlay!.accept();
        if (result.conflicts.length > 0 || result.applied.length !== targets.length)
          throw new Error('bench accept did not apply every file');
      },
      (run) => {
        currentOverlay?.close();
        currentOverlay = Overlay.open(join(work, `accept-${moveBase ? 'merge' : 'ff'}-${run}.db`), base);
        for (const f of targets) {
          const text = currentOverlay.fs.readFile(f, 'utf8');
          currentOverlay.fs.writeFile(f, `${text}\n// agent ${run}\n`);
          if (moveBase) base.fs.writeFile(f, `// human ${run}\n` + base.fs.readFile(f, 'utf8'));
        }
      },
    );
  let currentOverlay: Overlay | undefined;
  const acceptFf = acceptRuns(false);
  const acceptMerge = acceptRuns(true);
  currentOverlay?.close();
  rows.push({
    tree: treeName,
    measure: 'accept 100 modified files',
    unit: 'ms',
    cairn: acceptFf,
    others: { 'with base moved (3-way)': acceptMerge },
    goal: '<= 50 ms',
  });

  overlay.close();
  base.close();
  return rows;
}
