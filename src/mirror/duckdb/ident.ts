// Apart from schema.ts (which derives the mirror's columns from the registry's zod
// schemas): `payrec sql` and the subscription reader quote names without loading zod.

/** Quotes an identifier for DuckDB. */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
