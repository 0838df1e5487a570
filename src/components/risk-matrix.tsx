import {
  IMPACT_LABELS,
  LIKELIHOOD_LABELS,
  RISK_LEVEL_LABELS,
  RISK_LEVELS,
  RISK_SCALE,
  riskLevelOf,
} from '../../contract/projects.ts';
import './risk-matrix.css';

const NUMBER = new Intl.NumberFormat('fr-FR');

/** Soft hyphens in the scale's long words, so narrow headers break them with a hyphen, not anywhere. */
const SOFT_HYPHENS: Record<string, string> = {
  Significative: 'Signi\u00adfica\u00adtive',
  Maximale: 'Maxi\u00admale',
  Mineure: 'Mi\u00adneure',
  Critique: 'Cri\u00adtique',
};

function hyphenable(word: string | undefined): string {
  return word === undefined ? '' : (SOFT_HYPHENS[word] ?? word);
}

/** One cell of a heat map as the API counts it (GET /api/dashboard/my-work/, /api/dashboard/risks/). */
export interface HeatCell {
  likelihood: number;
  impact: number;
  count: number;
}

/** `matrix[impact - 1][likelihood - 1]`, as RiskMatrix reads it, from the API's cells. */
export function matrixOfCells(cells: readonly HeatCell[]): number[][] {
  const matrix = RISK_SCALE.map(() => RISK_SCALE.map(() => 0));
  for (const c of cells) {
    const row = matrix[c.impact - 1];
    if (row && c.likelihood >= 1 && c.likelihood <= RISK_SCALE.length) row[c.likelihood - 1] = c.count;
  }
  return matrix;
}

/**
 * The 4 × 4 risk heat map: rows are gravité (4 at the top), columns vraisemblance; each cell coloured by the level
 * of likelihood × impact and holding the number of risks. `matrix[impact - 1][likelihood - 1]`.
 */
export function RiskMatrix({ matrix, caption }: { matrix: number[][]; caption: string }) {
  return (
    <div className="rm-wrap">
      <table className="rm-matrix">
        <caption>{caption}</caption>
        <colgroup>
          <col className="rm-head-col" />
          <col span={4} />
        </colgroup>
        <thead>
          <tr>
            <td />
            <th scope="colgroup" colSpan={4}>
              Vraisemblance →
            </th>
          </tr>
          <tr>
            <th scope="col" className="rm-axis">
              Gravité ↓
            </th>
            {RISK_SCALE.map((l) => (
              <th scope="col" key={l}>
                <span className="rm-n">{l}</span>
                <span className="rm-label">{hyphenable(LIKELIHOOD_LABELS[l])}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {[...RISK_SCALE].reverse().map((impact) => (
            <tr key={impact}>
              <th scope="row">
                <span className="rm-n">{impact}</span>
                <span className="rm-label">{hyphenable(IMPACT_LABELS[impact])}</span>
              </th>
              {RISK_SCALE.map((likelihood) => {
                const count = matrix[impact - 1]?.[likelihood - 1] ?? 0;
                const level = riskLevelOf(likelihood * impact);
                return (
                  <td
                    key={likelihood}
                    data-likelihood={likelihood}
                    data-impact={impact}
                    className={`level-${level}${count === 0 ? ' empty' : ''}`}
                  >
                    <div className="rm-cell">
                      <strong className="rm-count">{NUMBER.format(count)}</strong>
                      <span className="sr-only">
                        {count > 1 ? ' risques' : ' risque'}, niveau {RISK_LEVEL_LABELS[level]}
                      </span>
                    </div>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="rm-legend" aria-label="Légende des niveaux">
        {RISK_LEVELS.map((level) => (
          <li key={level}>
            <span className={`rm-swatch level-${level}`} aria-hidden="true" /> {RISK_LEVEL_LABELS[level]}
          </li>
        ))}
      </ul>
    </div>
  );
}
