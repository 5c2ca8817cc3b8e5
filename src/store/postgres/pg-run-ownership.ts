/** Who runs what on a shared database: this process's id and how long its claim on a run holds. */
export interface RunOwnership {
  readonly processId: string;
  readonly leaseMs: number;
}
