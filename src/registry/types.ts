import type { z } from 'zod';

/** Product segments of the API: the second path segment after /v1/:chain. */
export const PRODUCTS = [
  'fixed-recurring',
  'variable-recurring',
  'on-demand',
  'one-time',
  'wallet-to-wallet',
  'scheduled-payments',
  'dollar-cost-average',
  'webhook-notifications',
] as const;
export type Product = (typeof PRODUCTS)[number];

/** A `:name` segment of an endpoint's path. */
export interface PathParam {
  /** API name, as in the path template (`planId`). */
  name: string;
  /** `flag` → `--plan-id ID`; `argument` → a positional argument. */
  as: 'flag' | 'argument';
  /** Validates the user's value before anything is sent; its message says what is expected. */
  schema: z.ZodType<string>;
  help: string;
}

/** A query parameter of a list endpoint that filters records. */
export interface Filter {
  /** API name (`triggeredBy`); the flag is its kebab case (`--triggered-by`). */
  name: string;
  schema: z.ZodType<string>;
  help: string;
  /**
   * Record field the filter compares with (dotted; `[]` walks an array), when it is not the
   * filter's own name. The emulator uses it; the client only sends the query parameter.
   */
  field?: string;
}

export interface Endpoint {
  /** Stable identifier, e.g. `fixed-recurring.billings.by-plan`. */
  id: string;
  product: Product;
  /** Words under the product command: `['billings']`, `['short-urls', 'get']`. */
  command: readonly string[];
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Path below `/v1/:chain`, with `:name` path parameters. */
  path: string;
  params: readonly PathParam[];
  filters: readonly Filter[];
  /** `list` answers the list envelope; `single` one record. */
  kind: 'list' | 'single';
  /** Lists that take from/to/sort (every list but the short url lists). */
  timeWindow: boolean;
  /** Schema of one record; unknown fields are kept. */
  record: z.ZodType;
  /** Fields that identify a record (for de-duplication when following). */
  identity: readonly string[];
  /** Default columns of the table format (dotted paths). */
  columns: readonly string[];
  /** Emulator collection that holds the records. */
  collection: string;
  /**
   * Its records are transfers: they join `payrec transfers` (merged by time with the
   * other products') and the mirror's `transfers` view. One property away from joining.
   */
  transfers?: true;
  /**
   * Destructive: ask on a terminal, and require --yes when not on one (DESIGN.md).
   * The question names the record by its path parameters.
   */
  confirm?: boolean;
  /** One line for --help and the README reference. */
  summary: string;
  /** Shown under "Examples" in --help. */
  examples: readonly string[];
}
