import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openProject, type ProjectOptions } from '../project/open-project.js';
import type { Project } from '../project/project.js';

/**
 * A project folder and a `$CAIRN_HOME` in a temp dir, removed by `cleanup`; `await using` closes every project
 * opened through it and removes it all.
 */
export interface TempProject extends AsyncDisposable {
  root: string;
  home: string;
  write(path: string, content: string): void;
  read(path: string): string;
  exists(path: string): boolean;
  open(options?: ProjectOptions): Project;
  cleanup(): void;
}

/** Makes a temp project holding `files` (path → content). */
export function makeTempProject(files: Record<string, string> = {}): TempProject {
  const base = mkdtempSync(join(tmpdir(), 'cairn-test-'));
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  const projects: Project[] = [];
  const project: TempProject = {
    root,
    home,
    write(path, content) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    },
    read: (path) => readFileSync(join(root, path), 'utf8'),
    exists: (path) => existsSync(join(root, path)),
    open: (options = {}) => {
      const opened = openProject(root, { cairnHome: home, ...options });
      projects.push(opened);
      return opened;
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
    async [Symbol.asyncDispose]() {
      for (const opened of projects.splice(0)) await opened.close();
      project.cleanup();
    },
  };
  for (const [path, content] of Object.entries(files)) project.write(path, content);
  return project;
}

/** A temp project that holds a project opened on it (and synced): what most tests start from. */
export interface OpenedTempProject extends TempProject {
  project: Project;
}

/** Makes a temp project holding `files`, opens it and imports the files; dispose it to close and remove it all. */
export async function openTempProject(files: Record<string, string>, options: ProjectOptions = {}): Promise<OpenedTempProject> {
  const temp = makeTempProject(files);
  const project = temp.open(options);
  await project.sync();
  return Object.assign(temp, { project });
}

/** A small JavaScript project to run agents on. */
export const SAMPLE_FILES: Record<string, string> = {
  'README.md': '# sample\n\nA small project.\n',
  'src/math.js': 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n',
  'src/greet.js': 'export function greet(name) {\n  var text = "Hello, " + name;\n  return text;\n}\n',
  'src/util/strings.js': 'export const upper = (s) => s.toUpperCase();\n',
  '.env': 'SECRET=do-not-read\n',
  '.gitignore': 'node_modules/\n*.log\n',
};
