import { describe, expect, it } from 'vitest';
import {
  actionStatus,
  completedAt,
  isOverdue,
  meanProgress,
  parseProgress,
  planProgress,
  PROGRESS_MESSAGE,
  residualScores,
  riskLevel,
  taskStatusFor,
  todayUtc,
  type RiskLevel,
} from '../../server/src/services/risk-scoring.ts';

const SCORES = [1, 2, 3, 4] as const;

describe('risk scoring (docs/api-projects.md "Risks")', () => {
  it('gives every cell of the 4 × 4 matrix its level', () => {
    // expected[likelihood-1][impact-1]
    const expected: RiskLevel[][] = [
      ['low', 'low', 'low', 'medium'],
      ['low', 'medium', 'medium', 'high'],
      ['low', 'medium', 'high', 'critical'],
      ['medium', 'high', 'critical', 'critical'],
    ];
    for (const l of SCORES) {
      for (const i of SCORES) expect(riskLevel(l * i), `${l}×${i}`).toBe(expected[l - 1]![i - 1]);
    }
  });

  it('places the level boundaries at 3/4, 6/8 and 9/12', () => {
    expect([1, 3, 4, 6, 8, 9, 12, 16].map(riskLevel)).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
      'critical',
    ]);
  });

  it('keeps the initial scores without a plan, and for an accepted risk whatever the plan', () => {
    const plan = { targetLikelihood: 1, targetImpact: 1 };
    expect(residualScores({ likelihood: 4, impact: 3, treatment: 'REDUCE' }, null, 100)).toEqual({
      likelihood: 4,
      impact: 3,
    });
    for (const p of [0, 50, 100]) {
      expect(residualScores({ likelihood: 4, impact: 3, treatment: 'ACCEPT' }, plan, p)).toEqual({
        likelihood: 4,
        impact: 3,
      });
    }
  });

  it('moves from the initial scores to the targets with the progress, rounding half up', () => {
    const risk = { likelihood: 4, impact: 4, treatment: 'REDUCE' as const };
    const plan = { targetLikelihood: 2, targetImpact: 1 };
    const at = (p: number) => residualScores(risk, plan, p);
    expect(at(0)).toEqual({ likelihood: 4, impact: 4 });
    // 4 → 2 at 25 %: 3.5 rounds up to 4; 4 → 1 at 25 %: 3.25 rounds to 3.
    expect(at(25)).toEqual({ likelihood: 4, impact: 3 });
    expect(at(50)).toEqual({ likelihood: 3, impact: 3 }); // 3 and 2.5 → 3
    expect(at(75)).toEqual({ likelihood: 3, impact: 2 }); // 2.5 → 3, 1.75 → 2
    expect(at(99)).toEqual({ likelihood: 2, impact: 1 });
    expect(at(100)).toEqual({ likelihood: 2, impact: 1 });
    // The worked example of the contract: 4×4 with target 2×2 at 0, 50 and 100 %.
    const square = { targetLikelihood: 2, targetImpact: 2 };
    expect([0, 50, 100].map((p) => residualScores(risk, square, p))).toEqual([
      { likelihood: 4, impact: 4 },
      { likelihood: 3, impact: 3 },
      { likelihood: 2, impact: 2 },
    ]);
    // SHARE and AVOID follow the plan like REDUCE.
    expect(residualScores({ ...risk, treatment: 'SHARE' }, square, 100)).toEqual({ likelihood: 2, impact: 2 });
    expect(residualScores({ ...risk, treatment: 'AVOID' }, square, 50)).toEqual({ likelihood: 3, impact: 3 });
  });

  it('stays between target and initial, never moves back as progress grows, and reaches the target at 100', () => {
    const failures: string[] = [];
    let cases = 0;
    for (const l of SCORES) {
      for (const i of SCORES) {
        for (let tl = 1; tl <= l; tl++) {
          for (let ti = 1; ti <= i; ti++) {
            const risk = { likelihood: l, impact: i, treatment: 'REDUCE' as const };
            const plan = { targetLikelihood: tl, targetImpact: ti };
            let previous: { likelihood: number; impact: number } = { likelihood: l, impact: i };
            for (let p = 0; p <= 100; p++) {
              const r = residualScores(risk, plan, p);
              cases++;
              const ok =
                Number.isInteger(r.likelihood) &&
                Number.isInteger(r.impact) &&
                r.likelihood >= tl &&
                r.likelihood <= l &&
                r.impact >= ti &&
                r.impact <= i &&
                r.likelihood <= previous.likelihood &&
                r.impact <= previous.impact &&
                (p !== 0 || (r.likelihood === l && r.impact === i)) &&
                (p !== 100 || (r.likelihood === tl && r.impact === ti));
              if (!ok) failures.push(`${l}×${i} → ${tl}×${ti} at ${p} %: ${JSON.stringify(r)}`);
              previous = r;
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(cases).toBe(100 * 101); // every (initial, target) pair with target ≤ initial, at 0…100 %
  });

  it('averages the actions of a plan, rounding half up, 0 without actions', () => {
    expect(planProgress([])).toBe(0);
    expect(planProgress([40])).toBe(40);
    expect(planProgress([0, 100])).toBe(50);
    expect(planProgress([33, 34])).toBe(34); // 33.5
    expect(planProgress([0, 0, 1])).toBe(0); // 0.33
    expect(planProgress([100, 100, 99])).toBe(100); // 99.67
    expect(planProgress([0, 1])).toBe(1); // 0.5
    expect(meanProgress(101, 2)).toBe(51);
    expect(meanProgress(0, 0)).toBe(0);
  });
});

describe('progress values (update_progress)', () => {
  it('accepts the JSON integers 0 to 100', () => {
    for (const v of [0, 1, 50, 99, 100]) expect(parseProgress(v)).toBe(v);
    expect(Object.is(parseProgress(-0), 0)).toBe(true);
  });

  it('refuses strings, fractions, booleans, null, out-of-range and non-finite numbers', () => {
    for (const v of [
      '50',
      '',
      50.5,
      0.1,
      99.999,
      -1,
      101,
      1000,
      null,
      undefined,
      true,
      false,
      NaN,
      Infinity,
      [50],
      {},
    ]) {
      expect(parseProgress(v), JSON.stringify(v)).toBeUndefined();
    }
    expect(PROGRESS_MESSAGE).toBe('La progression doit être un entier entre 0 et 100.');
  });

  it('derives a corrective action’s status from its progress', () => {
    expect([0, 1, 50, 99, 100].map(actionStatus)).toEqual([
      'TODO',
      'IN_PROGRESS',
      'IN_PROGRESS',
      'IN_PROGRESS',
      'DONE',
    ]);
  });

  it('moves a task’s status with its progress as the contract says', () => {
    expect(taskStatusFor('TODO', 100)).toBe('DONE');
    expect(taskStatusFor('BLOCKED', 100)).toBe('DONE');
    expect(taskStatusFor('DONE', 99)).toBe('IN_PROGRESS');
    expect(taskStatusFor('DONE', 0)).toBe('IN_PROGRESS');
    expect(taskStatusFor('IN_PROGRESS', 0)).toBe('IN_PROGRESS');
    expect(taskStatusFor('TODO', 0)).toBe('TODO');
    expect(taskStatusFor('TODO', 10)).toBe('IN_PROGRESS');
    expect(taskStatusFor('BLOCKED', 40)).toBe('BLOCKED');
    expect(taskStatusFor('DONE', 100)).toBe('DONE');
  });

  it('stamps completion at 100, keeps the first stamp, and clears it below', () => {
    const first = new Date('2025-01-01T00:00:00Z');
    const now = new Date('2025-06-01T00:00:00Z');
    expect(completedAt(100, null, now)).toBe(now);
    expect(completedAt(100, first, now)).toBe(first);
    expect(completedAt(99, first, now)).toBeNull();
    expect(completedAt(0, null, now)).toBeNull();
  });

  it('is overdue when due before today (UTC) and not finished', () => {
    expect(todayUtc(new Date('2025-03-10T23:30:00-02:00'))).toBe('2025-03-11');
    const today = '2025-03-11';
    expect(isOverdue('2025-03-10', 0, today)).toBe(true);
    expect(isOverdue('2025-03-10', 99, today)).toBe(true);
    expect(isOverdue('2025-03-10', 100, today)).toBe(false);
    expect(isOverdue('2025-03-11', 0, today)).toBe(false);
    expect(isOverdue('2026-01-01', 0, today)).toBe(false);
    expect(isOverdue(null, 0, today)).toBe(false);
  });
});
