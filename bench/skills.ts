import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRunSkillsSource } from '../src/agent/run-skills.js';
import type { ConversationRef } from '../src/chat/conversation-ref.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import { filePinsOf } from '../src/skills/skill-enablement.js';
import { createSkillLibrary } from '../src/skills/skill-library.js';
import { createSkillMounts } from '../src/skills/skill-mounts.js';
import { scanSkills } from '../src/skills/skill-scan.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import { writeSkill } from '../tests/fixtures/skill-folders.js';
import type { Benchmark } from './benchmark.js';

const SKILLS = 200;
const CHANNELS = 20;
const RUNS = 5_000;
const NOW = Date.UTC(2026, 0, 5, 9, 0, 0);

/**
 * What skills add to the start of every run, with 200 skills installed and enabled (190 by `/skills enable`, 10 in
 * one channel by the configuration file): reading the pins (SQLite), choosing the skills enabled in the run's channel
 * and writing the system prompt's section within SKILLS_TOKEN_BUDGET. SKILLS_DIR is read once before, as start-up
 * does (that figure is in the detail). Target: < 1 ms per run.
 */
export const benchmark: Benchmark = {
  name: 'skills',
  figures: ['skills_prompt_ms'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-skills-'));
    const db = openDatabase(join(dir, 'errand.db'));
    try {
      const root = join(dir, 'skills');
      for (let i = 0; i < SKILLS; i++) {
        const name = `skill-${String(i).padStart(3, '0')}`;
        writeSkill(root, name, {
          description: `"Handle the ${name} procedure of the team: what to check, whom to ask and how to report it. Use when someone asks for ${name} or mentions its ticket type."`,
          body: `# ${name}\n\n${'Step. '.repeat(400)}`,
          files: { 'references/guide.md': 'Details. '.repeat(300), 'scripts/run.py': 'print("ok")\n' },
        });
      }
      const clock = { now: () => NOW, setTimer: () => null, clearTimer: () => undefined };
      const store = createSqliteStore(db, clock);
      const t0 = performance.now();
      const scan = await scanSkills(root);
      const scanMs = performance.now() - t0;
      if (scan.skills.size !== SKILLS)
        throw new Error(`only ${scan.skills.size} skills loaded: ${JSON.stringify(scan.malformed.slice(0, 3))}`);
      const skills = [...scan.skills.values()];
      const fileSkills = Object.fromEntries(skills.slice(0, 10).map((s) => [s.name, s.digest.pin]));
      for (const s of skills.slice(10))
        await store.skills.save({ name: s.name, pin: s.digest.pin, enabledBy: 'slack:UADMIN', enabledAt: NOW });
      const library = createSkillLibrary(scan, {
        scan: () => scanSkills(root),
        pins: store.skills,
        file: filePinsOf({}, { 'slack:C000': { skills: fileSkills } }),
        clock,
        logger: silentLogger(),
      });
      const source = createRunSkillsSource({ library, mounts: createSkillMounts(), tokenBudget: 1000 });
      const refs: ConversationRef[] = Array.from({ length: CHANNELS }, (_, i) => ({
        platform: 'slack',
        workspace: 'T1',
        channel: `C${String(i).padStart(3, '0')}`,
        thread: '1.0',
      }));
      const transcript = { recent: async () => [] };
      const once = async (i: number) => {
        const run = await source.forRun({
          conversation: refs[i % CHANNELS]!,
          conversationId: 'c',
          runId: `r${i}`,
          resumed: false,
          transcript,
        });
        if (!run || run.enabled.length < SKILLS - 10 || run.prompt.length === 0)
          throw new Error('the run did not get its skills');
      };
      for (let i = 0; i < 500; i++) await once(i);
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await once(i);
        times.push(performance.now() - s);
      }
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000 / RUNS;
      times.sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const p99 = times[Math.floor(times.length * 0.99)]!;
      return [
        {
          name: 'skills_prompt_ms',
          value: mean,
          unit: 'ms per run',
          detail: `${SKILLS} skills enabled, ${RUNS} runs over ${CHANNELS} channels: pins read, skills of the channel chosen, prompt section written; CPU ${cpuMs.toFixed(3)} ms per run, wall p99 ${p99.toFixed(3)} ms (a busy machine's scheduling shows there); SKILLS_DIR read at start-up in ${scanMs.toFixed(0)} ms; target < 1 ms`,
        },
      ];
    } finally {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
