import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

// The rooms of docs/architecture.md, held to the imports themselves: every import of
// src/**/*.ts (static, dynamic, type-only, re-exports; TypeScript's own scanner reads
// them, so a comment or a string that looks like one is not one) goes to a room the
// table allows, and no file reaches itself through its imports. The table in the doc is
// the rule: the test reads it, so the two cannot disagree.

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

interface Room {
  name: string;
  /** The folder under src/ (`core`), or '' for the entry files directly in src/. */
  folder: string;
  mayImport: Set<string> | 'everything';
  /** A room the doc places before it exists (`src/values/`, issue 45). */
  notYet: boolean;
}

/** The rooms of docs/architecture.md's table: `| room | folder | what it holds | may import |`. */
function roomsOfTheDoc(): Room[] {
  const text = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const rows = text.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| room ') && !l.startsWith('|---'));
  return rows.map((line) => {
    const [name, folder, , may] = line.split('|').slice(1, -1).map((c) => c.trim());
    const path = /`src\/([^`]*)`/.exec(folder)?.[1] ?? '';
    return {
      name,
      folder: path === '*.ts' ? '' : path.replace(/\/$/, ''),
      mayImport: may === 'everything' ? 'everything' : new Set(may === '—' ? [] : may.split(',').map((r) => r.trim())),
      notYet: folder.includes('not yet'),
    };
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file of src/ (relative, `core/lists/walk.ts`) and the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(SRC, resolve(dirname(file), name)).replace(/\.js$/, '.ts'))
      // package.json (the version) is outside src/.
      .filter((name) => !name.startsWith('..'));
    graph.set(relative(SRC, file).split(sep).join('/'), imported.map((f) => f.split(sep).join('/')));
  }
  return graph;
}

/** The room a file of src/ is in: the longest folder of the table that holds it. */
function roomOf(rooms: readonly Room[], file: string): Room | undefined {
  const inFolder = rooms.filter((r) => (r.folder === '' ? !file.includes('/') : file.startsWith(`${r.folder}/`)));
  return inFolder.sort((a, b) => b.folder.length - a.folder.length)[0];
}

/** Every import a room may not make, as `from → to (room → room)`. */
export function forbiddenImports(rooms: readonly Room[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [file, imports] of graph) {
    const from = roomOf(rooms, file)!;
    for (const target of imports) {
      const to = roomOf(rooms, target);
      if (!to || to === from || from.mayImport === 'everything' || from.mayImport.has(to.name)) continue;
      out.push(`${file} → ${target} (${from.name} → ${to.name})`);
    }
  }
  return out.sort();
}

/** The cycles of files (Tarjan's strongly connected components of more than one file), each sorted. */
export function fileCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

describe('the rooms of docs/architecture.md', () => {
  test('the table places every folder of src/, and a room marked "not yet" has no folder', () => {
    const rooms = roomsOfTheDoc();
    expect(rooms.map((r) => r.name)).toEqual(expect.arrayContaining(['registry', 'core', 'commands', 'entry']));
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => !rooms.some((r) => r.folder === f))).toEqual([]);
    expect(rooms.filter((r) => r.notYet && folders.includes(r.folder)).map((r) => r.name)).toEqual([]);
    // Each room may import only rooms the table names.
    const names = new Set(rooms.map((r) => r.name));
    expect(rooms.flatMap((r) => (r.mayImport === 'everything' ? [] : [...r.mayImport].filter((n) => !names.has(n))))).toEqual([]);
  });

  test('no room imports a room it may not (an upward or sideways import)', () => {
    expect(forbiddenImports(roomsOfTheDoc(), importGraph())).toEqual([]);
  });

  test('no file reaches itself through its imports (no cycle of files)', () => {
    expect(fileCycles(importGraph())).toEqual([]);
  });

  test("a mirror engine's folder (src/mirror/duckdb/) is reached only through openMirror (src/mirror/open.ts)", () => {
    const engines = readdirSync(join(SRC, 'mirror'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `mirror/${e.name}/`);
    expect(engines).toContain('mirror/duckdb/');
    const reached = [...importGraph()].flatMap(([file, imports]) =>
      imports.filter((target) => engines.some((e) => target.startsWith(e) && !file.startsWith(e)) && file !== 'mirror/open.ts').map((target) => `${file} → ${target}`),
    );
    expect(reached).toEqual([]);
  });

  test('the checks see what they check: an import up the table and a cycle of two files are found', () => {
    // A guard against a test that passes by reading nothing: the graph is the source's.
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('program.ts')).toEqual(expect.arrayContaining(['core/runtime/action.ts']));
    const rooms = roomsOfTheDoc();
    const planted = new Map(graph);
    planted.set('registry/endpoints.ts', [...graph.get('registry/endpoints.ts')!, 'core/runtime/errors.ts']);
    planted.set('core/runtime/errors.ts', [...graph.get('core/runtime/errors.ts')!, 'registry/endpoints.ts']);
    expect(forbiddenImports(rooms, planted)).toContain('registry/endpoints.ts → core/runtime/errors.ts (registry → core)');
    expect(fileCycles(planted)).toContainEqual(['core/runtime/errors.ts', 'registry/endpoints.ts']);
  });
});
