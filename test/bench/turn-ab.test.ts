import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compareStages,
  groupStages,
  refProblem,
  type ChildResult,
  type CorpusFile,
} from '../../bench/turn-ab.js';
import { handbook } from '../fixtures/handbook.js';

const root = join(import.meta.dirname, '../..');

function result(stages: Record<string, number>, count = 10): ChildResult {
  return {
    ingestWallMs: 1,
    ingestCpuMs: 1,
    turns: count,
    stages: Object.fromEntries(
      Object.entries(stages).map(([stage, p50]) => [stage, { p50, count }]),
    ),
  };
}

describe('bench:turn-ab', () => {
  it('makes one stage of names that carry the same value in every turn', () => {
    const stages = groupStages(
      new Map([
        ['turn.completed', [3, 5, 4]],
        ['timings.totalMs', [3, 5, 4]],
        ['retrieval', [1, 2, 1]],
        ['judge', [0.5]],
      ]),
    );
    expect(stages).toEqual({
      'timings.totalMs = turn.completed': { p50: 4, count: 3 },
      retrieval: { p50: 1, count: 3 },
      judge: { p50: 0.5, count: 1 },
    });
  });

  it('compares the stages both sides report, round by round, and lists the others apart', () => {
    const a = [
      result({ 'turn wall (bench)': 2, retrieval: 1, judge: 0.4 }),
      result({ 'turn wall (bench)': 4, retrieval: 1 }),
    ];
    const b = [
      result({ 'turn wall (bench)': 3, retrieval: 2, 'metrics.rerank': 0.1 }),
      result({ 'turn wall (bench)': 4, retrieval: 3 }),
    ];
    const { rows, onlyA, onlyB } = compareStages(a, b);
    expect(rows.map((row) => row.stage)).toEqual(['turn wall (bench)', 'retrieval']);
    expect(rows[0]!.ratios).toEqual([1.5, 1]);
    expect(rows[1]!.ratios).toEqual([2, 3]);
    expect(onlyA).toEqual(['judge']);
    expect(onlyB).toEqual(['metrics.rerank']);
  });

  it('counts a stage that did not occur in one process as 0 for that round', () => {
    const a = [result({ judge: 1 }), result({ judge: 2 })];
    const b = [result({ judge: 2 }), result({})];
    const [row] = compareStages(a, b).rows;
    expect(row!.a).toEqual([1, 2]);
    expect(row!.b).toEqual([2, 0]);
  });

  it('refuses refs git would read as options, control characters and huge refs', () => {
    expect(refProblem('HEAD~1')).toBeUndefined();
    expect(refProblem('fb74077')).toBeUndefined();
    expect(refProblem('')).toMatch(/empty/);
    expect(refProblem('-n')).toMatch(/starts with "-"/);
    expect(refProblem('--output=/tmp/x')).toMatch(/starts with "-"/);
    expect(refProblem('main\u0000')).toMatch(/control character/);
    expect(refProblem('a\nb')).toMatch(/control character/);
    expect(refProblem('x'.repeat(100_000))).toMatch(/longer than 256/);
    // A lone surrogate is not an option nor a control character: git itself rejects the ref.
    expect(refProblem('\ud800')).toBeUndefined();
  });

  it('rejects a hostile ref before running anything', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'bench/turn-ab.ts'), '-x', '--corpus', 'docs'],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('the ref starts with "-"');
  }, 60_000);

  it('measures a tree in a child process: ingest, turns and the stages the engine reports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-ab-test-'));
    try {
      const corpus: CorpusFile = {
        name: 'handbook',
        docs: handbook.map((doc) => ({ id: doc.id, title: doc.title ?? doc.id, text: doc.text })),
        warmup: ['Where is the office?'],
        questions: ['How fast are refunds?', 'How long is the warranty?', 'Can I return a gift?'],
      };
      const path = join(dir, 'handbook.json');
      writeFileSync(path, JSON.stringify(corpus));
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(root, 'bench/turn-ab.ts'), '--child', root, path],
        { cwd: root, encoding: 'utf8' },
      );
      expect(run.stderr).toBe('');
      const line = run.stdout.split('\n').find((text) => text.startsWith('TURN-AB '));
      const measured = JSON.parse(line!.slice('TURN-AB '.length)) as ChildResult;
      expect(measured.turns).toBe(3);
      expect(measured.ingestCpuMs).toBeGreaterThan(0);
      const names = Object.keys(measured.stages);
      expect(names).toContain('turn wall (bench)');
      expect(names).toContain('turn cpu (bench)');
      expect(names.some((name) => name.split(' = ').includes('timings.totalMs'))).toBe(true);
      expect(names.some((name) => name.split(' = ').includes('timings.retrievalMs'))).toBe(true);
      for (const { p50, count } of Object.values(measured.stages)) {
        expect(p50).toBeGreaterThanOrEqual(0);
        expect(count).toBeGreaterThan(0);
        expect(count).toBeLessThanOrEqual(3);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
