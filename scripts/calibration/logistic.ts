/**
 * Maximum-likelihood logistic regression by Newton's method (iteratively reweighted least
 * squares) with a small ridge penalty on the weights (not the intercept). A dozen inputs and
 * tens of thousands of rows need nothing more, and Newton converges in a handful of steps
 * to the same answer on every run, which keeps the committed coefficients reproducible.
 */

export interface FittedLogistic {
  intercept: number;
  weights: number[];
  iterations: number;
  logLoss: number;
}

export const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** Solves A x = b for a small symmetric positive-definite A (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col += 1) {
    let pivot = col;
    for (let r = col + 1; r < n; r += 1) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    for (let r = 0; r < n; r += 1) {
      if (r === col) continue;
      const f = m[r]![col]! / p;
      for (let c = col; c <= n; c += 1) m[r]![c] = m[r]![c]! - f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

export function fitLogistic(
  rows: readonly (readonly number[])[],
  labels: readonly (0 | 1)[],
  ridge = 1e-2,
  maxIterations = 50,
): FittedLogistic {
  const d = (rows[0]?.length ?? 0) + 1;
  let beta = new Array<number>(d).fill(0);
  let iterations = 0;
  for (; iterations < maxIterations; iterations += 1) {
    const gradient = new Array<number>(d).fill(0);
    const hessian = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    rows.forEach((row, i) => {
      const x = [1, ...row];
      const p = sigmoid(x.reduce((s, v, j) => s + v * beta[j]!, 0));
      const w = p * (1 - p);
      for (let j = 0; j < d; j += 1) {
        gradient[j] = gradient[j]! + (labels[i]! - p) * x[j]!;
        const hj = hessian[j]!;
        for (let k = 0; k <= j; k += 1) hj[k] = hj[k]! + w * x[j]! * x[k]!;
      }
    });
    for (let j = 0; j < d; j += 1) for (let k = j + 1; k < d; k += 1) hessian[j]![k] = hessian[k]![j]!;
    for (let j = 1; j < d; j += 1) {
      gradient[j] = gradient[j]! - ridge * beta[j]!;
      hessian[j]![j] = hessian[j]![j]! + ridge;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((b, j) => b + step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  const logLoss =
    -rows.reduce((sum, row, i) => {
      const p = Math.min(1 - 1e-12, Math.max(1e-12, sigmoid(row.reduce((s, v, j) => s + v * beta[j + 1]!, beta[0]!))));
      return sum + (labels[i] === 1 ? Math.log(p) : Math.log(1 - p));
    }, 0) / Math.max(1, rows.length);
  return { intercept: beta[0]!, weights: beta.slice(1), iterations, logLoss };
}
