import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanSkills } from '../../src/skills/skill-scan.js';

const root = join(import.meta.dirname, '../..');

describe('the example skills shipped in skills/examples/', () => {
  it('are valid Agent Skills folders that SKILLS_DIR=./skills finds, none of them malformed', async () => {
    const scan = await scanSkills(join(root, 'skills'));
    expect(scan.malformed).toEqual([]);
    const csv = scan.skills.get('csv-summary');
    expect(csv).toMatchObject({ folder: 'examples/csv-summary', manifest: { allowedTools: ['run_code'] } });
    expect(csv!.digest.entries.map((e) => e.path)).toEqual([
      'SKILL.md',
      'references/report-template.md',
      'scripts/summarize.py',
    ]);
    expect(csv!.body).toContain('python3 /skills/csv-summary/scripts/summarize.py');
  });

  it("csv-summary's script profiles a CSV: separator, rows, and per column its type, empty cells, range and most common values", () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-csv-'));
    try {
      const file = join(dir, 'sales.csv');
      writeFileSync(file, 'region;revenue;units\nnorth;1200.5;10\nsouth;;3\nnorth;800;7\n');
      const out = JSON.parse(
        execFileSync('python3', [join(root, 'skills/examples/csv-summary/scripts/summarize.py'), file], {
          encoding: 'utf8',
        }),
      ) as Record<string, unknown>;
      expect(out).toMatchObject({ separator: 'semicolon', rows: 3, columns: 3 });
      expect(out.profile).toEqual([
        {
          name: 'region',
          type: 'text',
          empty: 0,
          distinct: 2,
          distinct_is_lower_bound: false,
          most_common: [
            ['north', 2],
            ['south', 1],
          ],
        },
        {
          name: 'revenue',
          type: 'number',
          empty: 1,
          distinct: 2,
          distinct_is_lower_bound: false,
          most_common: [
            ['1200.5', 1],
            ['800', 1],
          ],
          min: 800,
          max: 1200.5,
          mean: 1000.25,
          integers: false,
        },
        {
          name: 'units',
          type: 'number',
          empty: 0,
          distinct: 3,
          distinct_is_lower_bound: false,
          most_common: [
            ['10', 1],
            ['3', 1],
            ['7', 1],
          ],
          min: 3,
          max: 10,
          mean: 6.666667,
          integers: true,
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
