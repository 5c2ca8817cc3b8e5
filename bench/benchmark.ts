/** One figure printed by `npm run bench` as `name: value unit`. */
export interface BenchFigure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Extra context printed on the following line, indented (baseline, per-op figures). */
  readonly detail?: string;
}

/** A benchmark module: `name` is what `npm run bench -- NAME` selects; it may print several figures. */
export interface Benchmark {
  readonly name: string;
  /** Figure names this benchmark prints (so NAME may also be a figure name). */
  readonly figures: readonly string[];
  run(): Promise<BenchFigure[]>;
}
