// Types of scripts/processes.mjs for the TypeScript tests that read the list.
export interface KithProcess {
  name: string;
  dir: string;
  entry?: string;
  devOnly?: boolean;
  /** Weight of its share of the PostgreSQL budget; 0 for a process that opens no database. */
  postgres?: number;
  env: Record<string, string>;
  readyUrl: string;
  baseUrl?: string;
}
export const POSTGRES_CONNECTION_BUDGET: number;
export const POSTGRES_STARTUP_RESERVE: number;
export function processes(offset?: number, dbPrefix?: string): KithProcess[];
export function withPostgresShares<P extends { name: string; postgres?: number; env: Record<string, string> }>(
  list: P[],
  budget?: number,
): P[];
export function deployedProcesses(): KithProcess[];
