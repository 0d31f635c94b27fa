/** The path of a PostgreSQL program, or undefined (scripts/lib/postgres-bin.mjs). */
export function postgresProgram(name: string): string | undefined;
